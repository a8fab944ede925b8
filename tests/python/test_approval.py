"""Asking before acting (`settings.confirmCalls`, issue #30) seen by the official `mcp` SDK.

A client that declares elicitation is asked, for a destructive call, with a form whose message
names the server, the tool and the redacted arguments and whose schema offers allow, always and
deny; its answer decides the call (a denied call never reaches the server and comes back as a
tool result with ``isError``). While the call waits, the SDK's progress callback hears
"waiting for approval". A read-only tool is never asked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

from conftest import fixture_bin

SPEC = {"tools": [
    {"name": "delete_file", "annotations": {"destructiveHint": True}},
    {"name": "read_file", "annotations": {"readOnlyHint": True}},
]}


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@pytest.mark.anyio
async def test_the_calling_client_answers_the_approval_form(hub_factory, tmp_path: Path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    counter = tmp_path / "counts.json"
    hub = hub_factory({
        "mcpServers": {"files": {"command": str(fixture_bin()),
                                 "args": ["--spec", str(spec), "--counter-file", str(counter)]}},
        "settings": {"confirmCalls": "destructive"},
    })
    asked: list[types.ElicitRequestParams] = []
    answers = ["deny", "allow"]

    async def elicit(_context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"decision": answers.pop(0)})

    progress: list[str | None] = []

    async def on_progress(_progress: float, _total: float | None, message: str | None) -> None:
        progress.append(message)

    def calls_made() -> int:
        return json.loads(counter.read_text())["tools/call"] if counter.exists() else 0

    timeout = httpx.Timeout(30.0, read=300.0)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as http:
        async with streamable_http_client(hub.url, http_client=http) as (read, write, _):
            async with ClientSession(read, write, elicitation_callback=elicit) as session:
                await session.initialize()

                read_only = await session.call_tool("files__read_file", {"text": "r"})
                assert text_of(read_only) == "r"
                assert asked == []
                assert calls_made() == 1

                denied = await session.call_tool(
                    "files__delete_file", {"text": "one", "token": "ghp_secretsecretsecret"},
                    progress_callback=on_progress)
                assert denied.isError is True
                assert text_of(denied) == ("The user declined the call of tool 'delete_file' "
                                           "of server 'files'; it was not made.")
                assert calls_made() == 1
                form = asked[0]
                assert form.requestedSchema["properties"] == {
                    "decision": {"type": "string", "enum": ["allow", "always", "deny"]}}
                assert "'delete_file'" in form.message and "'files'" in form.message
                assert "one" in form.message
                assert "ghp_secretsecretsecret" not in form.message
                assert "waiting for approval" in progress

                allowed = await session.call_tool("files__delete_file", {"text": "two"})
                assert allowed.isError is not True
                assert text_of(allowed) == "two"
                assert calls_made() == 2
    assert hub.stop() == 0
