"""Profiles (`"profiles"`, issue #18) seen by the official `mcp` Python SDK.

A profile is served at `/profiles/<name>/mcp`: a merged endpoint over its servers only. With a
token, a request without `Authorization: Bearer <token>` (or with a wrong one) gets 401; with it,
the client lists only the profile's servers' tools, its calls reach them, and a tool of another
server is an unknown tool. A profile in search mode searches only its servers. A reload adds,
changes (`tools/list_changed`) and removes profiles (404 afterwards) without a restart.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from conftest import fixture_bin, switchboard_bin

WAIT_S = 15.0
POLL_S = 0.05

TOKEN = "work-profile-token-5f2a9c1e7b"
SEARCH = "switchboard__search_tools"
CALL = "switchboard__call_tool"

WEATHER = {"tools": [
    {"name": "forecast", "description": "Get the weather forecast for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
    {"name": "echo", "description": "Repeat the given text back."},
]}
MAIL = {"tools": [
    {"name": "send_mail", "description": "Send an email message to someone.",
     "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}}}},
    {"name": "echo", "description": "Repeat the given text back."},
]}

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}}


def server(tmp_path: Path, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """A stdio fixture serving `spec`."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spec))
    return {"command": str(fixture_bin()), "args": ["--spec", str(path)]}


def servers(tmp_path: Path) -> dict[str, Any]:
    return {"w": server(tmp_path, "weather", WEATHER), "m": server(tmp_path, "mail", MAIL)}


def post(url: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """A raw `initialize` POST (no SDK: to see the HTTP status)."""
    with httpx.Client(trust_env=False, timeout=10) as client:
        return client.post(url, json=INITIALIZE, headers={
            "Accept": "application/json, text/event-stream", **(headers or {})})


def status(hub: Any) -> dict[str, Any]:
    with httpx.Client(trust_env=False, timeout=10) as client:
        return client.get(f"{hub.base}/api/v1/status").json()


def profile_endpoint(hub: Any, name: str) -> dict[str, Any] | None:
    path = f"/profiles/{name}/mcp"
    return next((e for e in status(hub)["endpoints"] if e["path"] == path), None)


def eventually(check: Any, what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL_S)


def names(tools: types.ListToolsResult) -> list[str]:
    return [tool.name for tool in tools.tools]


def server_tools(tools: types.ListToolsResult) -> list[str]:
    """The listed tools that are not Switchboard's own."""
    return [n for n in names(tools) if not n.startswith("switchboard__")]


@contextlib.asynccontextmanager
async def session_to(url: str, token: str | None = None,
                     on_message: Any = None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    timeout = httpx.Timeout(30.0, read=300.0)
    async with httpx.AsyncClient(headers=headers, timeout=timeout, trust_env=False) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write, message_handler=on_message) as session:
                await session.initialize()
                yield session


@pytest.mark.anyio
async def test_a_profile_with_a_token_serves_only_its_servers(hub_factory, tmp_path):
    hub = hub_factory({"mcpServers": servers(tmp_path),
                       "profiles": {"work": {"servers": ["w"], "token": TOKEN}}})
    url = f"{hub.base}/profiles/work/mcp"

    bare = post(url)
    assert bare.status_code == 401
    assert bare.headers["www-authenticate"].startswith("Bearer")
    assert "needs its token" in bare.json()["error"]
    wrong = post(url, {"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401
    assert TOKEN not in wrong.text
    unknown = post(f"{hub.base}/profiles/nope/mcp", {"Authorization": f"Bearer {TOKEN}"})
    assert unknown.status_code == 404
    assert "no profile 'nope'" in unknown.json()["error"]

    async with session_to(url, TOKEN) as session:
        assert server_tools(await session.list_tools()) == ["w__echo", "w__forecast"]
        echoed = await session.call_tool("w__echo", {"text": "hello"})
        assert [item.text for item in echoed.content] == ["hello"]
        with pytest.raises(McpError) as refused:
            await session.call_tool("m__send_mail", {"to": "x"})
        assert str(refused.value) == "unknown tool 'm__send_mail'"
        assert "'m'" not in str(refused.value)

    # `/mcp` still serves everything.
    async with session_to(hub.url) as session:
        assert server_tools(await session.list_tools()) == [
            "m__echo", "m__send_mail", "w__echo", "w__forecast"]

    # Both servers are listed; the hub counts their tools in the background
    # and says when every endpoint's count is complete (`tokensCounted`).
    def counted():
        endpoints = status(hub)["endpoints"]
        return all(e["tokensCounted"] for e in endpoints) and endpoints
    endpoints = eventually(counted, "every endpoint's tokens counted")
    endpoint = next(e for e in endpoints if e.get("profile", {}).get("name") == "work")
    assert endpoint["profile"] == {"name": "work", "servers": ["w"], "hasToken": True}
    assert endpoint["toolMode"] == "all"
    assert endpoint["toolTokens"] > 0
    # The hub's built-in tools plus w's two.
    assert endpoint["tools"] == status(hub)["totals"]["builtinTools"] + 2
    mcp = endpoints[0]
    assert mcp["path"] == "/mcp" and mcp["toolTokens"] > endpoint["toolTokens"]
    assert TOKEN not in json.dumps(status(hub))
    assert TOKEN not in hub.log()


@pytest.mark.anyio
async def test_a_profile_in_search_mode_searches_only_its_servers(hub_factory, tmp_path):
    hub = hub_factory({"mcpServers": servers(tmp_path),
                       "profiles": {"mail": {"servers": ["m"], "toolMode": "search"}}})
    async with session_to(f"{hub.base}/profiles/mail/mcp") as session:
        listed = names(await session.list_tools())
        assert CALL in listed and SEARCH in listed
        assert server_tools(await session.list_tools()) == []

        found = await session.call_tool(SEARCH, {"query": "repeat the text back"})
        assert not found.isError, found
        hits = found.structuredContent["tools"]
        assert hits, "the search found m's echo"
        assert {hit["server"] for hit in hits} == {"m"}
        assert hits[0]["name"] == "m__echo"

        echoed = await session.call_tool(CALL, {"name": "m__echo", "arguments": {"text": "hi"}})
        assert [item.text for item in echoed.content] == ["hi"]
        with pytest.raises(McpError, match="unknown tool 'w__echo'"):
            await session.call_tool(CALL, {"name": "w__echo", "arguments": {"text": "hi"}})

    # `/mcp` stays in `all` mode.
    async with session_to(hub.url) as session:
        assert SEARCH not in names(await session.list_tools())
    endpoint = profile_endpoint(hub, "mail")
    assert endpoint is not None and endpoint["toolMode"] == "search"


@pytest.mark.anyio
async def test_a_reload_adds_changes_and_removes_profiles(hub_factory, tmp_path):
    base = {"mcpServers": servers(tmp_path)}
    hub = hub_factory(base)
    url = f"{hub.base}/profiles/p/mcp"
    assert post(url).status_code == 404

    # Added without a restart.
    hub.config_path.write_text(json.dumps({**base, "profiles": {"p": {"servers": ["w"]}}}))
    eventually(lambda: profile_endpoint(hub, "p"), "the new profile")

    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            changed.set()

    async with session_to(url, on_message=on_message) as session:
        assert server_tools(await session.list_tools()) == ["w__echo", "w__forecast"]

        # Changed: the session hears its list changed, and sees m's tools too.
        hub.config_path.write_text(json.dumps(
            {**base, "profiles": {"p": {"servers": ["w", "m"]}}}))
        with anyio.fail_after(WAIT_S):
            await changed.wait()
        assert server_tools(await session.list_tools()) == [
            "m__echo", "m__send_mail", "w__echo", "w__forecast"]

        # Removed: its route answers 404, and its session is over.
        hub.config_path.write_text(json.dumps(base))
        eventually(lambda: profile_endpoint(hub, "p") is None, "the profile to go")
        gone = post(url)
        assert gone.status_code == 404
        assert "no profile 'p'" in gone.json()["error"]
        with anyio.fail_after(WAIT_S):
            with pytest.raises(Exception):  # noqa: B017 - the SDK's error for a 404
                await session.list_tools()


def test_connect_writes_a_profile_with_its_token(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"mcpServers": servers(tmp_path),
                                  "profiles": {"work": {"servers": ["w"], "token": TOKEN}}}))
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}

    def connect(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(switchboard_bin()), "connect", *args, "--config", str(config),
             "--url", "http://127.0.0.1:8420"],
            capture_output=True, text=True, env=env, timeout=60)

    printed = connect("cursor", "--profile", "work", "--print")
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["mcpServers"]["switchboard-work"] == {
        "url": "http://127.0.0.1:8420/profiles/work/mcp",
        "headers": {"Authorization": f"Bearer {TOKEN}"}}

    written = connect("claude-code", "--profile", "work")
    assert written.returncode == 0, written.stderr
    assert TOKEN not in written.stdout + written.stderr
    path = tmp_path / "home" / ".claude.json"
    entry = json.loads(path.read_text())["mcpServers"]["switchboard-work"]
    assert entry["headers"] == {"Authorization": f"Bearer {TOKEN}"}
    assert path.stat().st_mode & 0o077 == 0, "a file holding a token is the owner's only"

    bridge = connect("claude-desktop", "--profile", "work")
    assert bridge.returncode != 0
    assert "cannot send profile 'work''s token" in bridge.stderr
    unknown = connect("cursor", "--profile", "nope", "--print")
    assert unknown.returncode != 0
    assert "no profile 'nope'" in unknown.stderr
