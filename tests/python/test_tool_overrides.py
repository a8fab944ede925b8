"""Tool overrides (`mcpServers.<id>.toolOverrides`, issue #34) seen by the official `mcp` SDK.

The merged endpoint lists the tool under the override's name and description, with the hidden
argument gone from its schema and the defaulted one shown as `default`; a call gets the defaults
filled in (a value the call passes wins) and the hidden argument always has its configured value;
a call that passes the hidden argument is refused naming it.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from conftest import fixture_bin

SPEC = {"tools": [{
    "name": "search", "description": "Search issues", "behavior": "echo",
    "inputSchema": {"type": "object",
                    "properties": {"q": {"type": "string"}, "limit": {"type": "integer"},
                                   "project": {"type": "string"}},
                    "required": ["q", "project"]},
}]}

OVERRIDE = {"search": {"name": "find_issues", "description": "Find ACME issues",
                       "arguments": {"limit": 5, "project": "ACME"},
                       "hideArguments": ["project"]}}


def echoed(result) -> dict:
    """The fixture's echo tool answers with the arguments it got, as JSON text."""
    return json.loads(result.content[0].text)


@pytest.mark.anyio
async def test_an_override_is_listed_and_applied_to_calls(hub_factory, tmp_path: Path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    hub = hub_factory({"mcpServers": {"jira": {
        "command": str(fixture_bin()), "args": ["--spec", str(spec)],
        "toolOverrides": OVERRIDE}}})

    async with httpx.AsyncClient(timeout=30, trust_env=False) as http:
        async with streamable_http_client(hub.url, http_client=http) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = (await session.list_tools()).tools
                assert [t.name for t in tools] == ["jira__find_issues"]
                tool = tools[0]
                assert tool.description == "Find ACME issues"
                assert tool.inputSchema == {
                    "type": "object",
                    "properties": {"q": {"type": "string"},
                                   "limit": {"type": "integer", "default": 5}},
                    "required": ["q"]}

                got = await session.call_tool("jira__find_issues", {"q": "bug"})
                assert echoed(got) == {"q": "bug", "limit": 5, "project": "ACME"}
                got = await session.call_tool("jira__find_issues", {"q": "bug", "limit": 2})
                assert echoed(got) == {"q": "bug", "limit": 2, "project": "ACME"}

                with pytest.raises(McpError) as refused:
                    await session.call_tool("jira__find_issues", {"q": "bug", "project": "X"})
                assert refused.value.error.code == -32602
                assert '"project"' in refused.value.error.message
