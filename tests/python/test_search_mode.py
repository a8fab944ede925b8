"""Search mode (`settings.toolMode: "search"`, issue #18) seen by the official `mcp` Python SDK,
and per-server `disabledTools` hiding a tool from lists, search and calls.

`/mcp` lists only the pinned tools and `switchboard__search_tools` / `switchboard__call_tool`;
search answers from the warm catalog and, with `settings.warmOnSearch` (default on, issue #32),
starts only its best hit's server, so the call that follows starts nothing (spawns counted
with the fixture's `--counter-file`, which a fixture writes on its first request); with it off
a search starts nothing; `call_tool` forwards
with progress; a reload that switches `toolMode` sends `tools/list_changed`.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.shared.exceptions import McpError

from conftest import fixture_bin

WAIT_S = 15.0
POLL_S = 0.05

SEARCH = "switchboard__search_tools"
CALL = "switchboard__call_tool"

SPEC = {
    "tools": [
        {"name": "forecast", "description": "Get the weather forecast for a city.",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
        {"name": "nap", "description": "Wait a while, reporting progress.", "behavior": "sleep",
         "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}},
        {"name": "echo", "description": "Repeat the given text back."},
    ]
}


def weather_server(tmp_path: Path) -> tuple[dict[str, Any], Path]:
    """A stdio fixture serving SPEC, counting its requests in a file; (config entry, file)."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    counter = tmp_path / "counts.json"
    entry = {"command": str(fixture_bin()),
             "args": ["--spec", str(spec), "--counter-file", str(counter)]}
    return entry, counter


def config(entry: dict[str, Any], mode: str) -> dict[str, Any]:
    return {"mcpServers": {"w": entry},
            "settings": {"toolMode": mode, "pinnedTools": ["w__echo"]}}


def endpoints(hub: Any) -> list[dict[str, Any]]:
    """`endpoints` of `GET /api/v1/status`, without `toolTokens` and `tokensCounted` (counted in
    the background)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{hub.base}/api/v1/status", timeout=10) as response:
        listed = json.load(response)["endpoints"]
    for endpoint in listed:
        assert endpoint.pop("toolTokens") >= 0
        assert endpoint.pop("tokensCounted") in (True, False)
    return listed


def names(tools: types.ListToolsResult) -> list[str]:
    return [tool.name for tool in tools.tools]


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.isError, result
    assert result.structuredContent is not None
    text = [item.text for item in result.content if item.type == "text"]
    assert [json.loads(t) for t in text] == [result.structuredContent]
    return result.structuredContent


@pytest.mark.anyio
async def test_all_mode_lists_every_tool(hub_factory, mcp_connect, tmp_path):
    entry, _ = weather_server(tmp_path)
    hub = hub_factory(config(entry, "all"))
    async with mcp_connect(hub.url) as session:
        assert names(await session.list_tools()) == ["w__echo", "w__forecast", "w__nap"]
    assert endpoints(hub) == [{"path": "/mcp", "toolMode": "all", "tools": 3}]


@pytest.mark.anyio
async def test_search_mode_lists_pins_searches_and_forwards_with_progress(
        hub_factory, mcp_connect, tmp_path):
    entry, _ = weather_server(tmp_path)
    hub = hub_factory(config(entry, "search"))
    async with mcp_connect(hub.url) as session:
        assert names(await session.list_tools()) == [CALL, SEARCH, "w__echo"]
        assert endpoints(hub) == [{"path": "/mcp", "toolMode": "search", "tools": 3}]

        found = structured(await session.call_tool(SEARCH, {"query": "weather in Paris",
                                                            "limit": 2}))
        assert len(found["tools"]) <= 2
        top = found["tools"][0]
        assert top["name"] == "w__forecast"
        assert top["server"] == "w"
        assert top["running"] is True  # listed just now by this session's tools/list
        assert top["inputSchema"]["properties"]["city"]["type"] == "string"
        assert top["description"] == "Get the weather forecast for a city."

        bad = await session.call_tool(SEARCH, {"query": "x", "limit": 51})
        assert bad.isError
        assert "`limit`" in bad.content[0].text

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        result = await session.call_tool(CALL, {"name": "w__nap", "arguments": {"ms": 400}},
                                         progress_callback=on_progress)
        assert not result.isError, result
        assert progress, "progress was forwarded through switchboard__call_tool"

        echoed = await session.call_tool(CALL, {"name": "w__echo",
                                                "arguments": {"text": "hello"}})
        assert [item.text for item in echoed.content] == ["hello"]
        # An unlisted tool can still be called directly by name.
        direct = await session.call_tool("w__forecast", {"city": "Paris"})
        assert not direct.isError

        # The error of a direct call, naming the tool.
        with pytest.raises(McpError, match="nope__x"):
            await session.call_tool(CALL, {"name": "nope__x"})


NOTES_SPEC = {
    "tools": [
        {"name": "jot", "description": "Write a note into the notebook."},
        {"name": "shelve", "description": "Archive old notes."},
    ]
}


def two_servers(tmp_path: Path, warm: bool | None) -> tuple[dict[str, Any], Path, Path]:
    """The weather fixture and a notes fixture, each counting its requests; (config, weather's
    counter file, notes' counter file)."""
    entry, weather = weather_server(tmp_path)
    spec = tmp_path / "notes.json"
    spec.write_text(json.dumps(NOTES_SPEC))
    notes = tmp_path / "notes-counts.json"
    cfg = config(entry, "search")
    cfg["mcpServers"]["n"] = {"command": str(fixture_bin()),
                              "args": ["--spec", str(spec), "--counter-file", str(notes)]}
    if warm is not None:
        cfg["settings"]["warmOnSearch"] = warm
    return cfg, weather, notes


def restarted_hub(hub_factory, mcp_connect, tmp_path: Path, cfg: dict[str, Any],
                  counters: list[Path]):
    """Runs a hub once so that both servers are listed into the warm catalog, stops it, forgets
    the counts, and starts a second hub on the same cache: nothing is running in it."""
    env = {"SWITCHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    first = hub_factory(cfg, env=env)

    async def list_once() -> None:
        async with mcp_connect(first.url) as session:
            await session.list_tools()
    return first, env, list_once


def initializes(counter: Path) -> int:
    return json.loads(counter.read_text())["initialize"] if counter.exists() else 0


async def wait_for_start(counter: Path) -> None:
    deadline = time.monotonic() + WAIT_S
    while initializes(counter) == 0:
        assert time.monotonic() < deadline, f"{counter.name}: the server was never started"
        await anyio.sleep(POLL_S)


@pytest.mark.anyio
async def test_a_search_after_a_restart_warms_only_its_best_hits_server(
        hub_factory, mcp_connect, tmp_path):
    cfg, weather, notes = two_servers(tmp_path, warm=None)  # warmOnSearch defaults to true
    first, env, list_once = restarted_hub(hub_factory, mcp_connect, tmp_path, cfg,
                                          [weather, notes])
    await list_once()
    assert initializes(weather) == 1 and initializes(notes) == 1
    first.stop()  # writes the warm catalog
    weather.unlink()
    notes.unlink()

    second = hub_factory(cfg, env=env)
    async with mcp_connect(second.url) as session:
        found = structured(await session.call_tool(SEARCH, {"query": "is it going to rain in Oslo"}))
        assert found["tools"][0]["name"] == "w__forecast"
        assert found["tools"][0]["running"] is False  # not yet: it is being started now
        assert found["tools"][0]["matched"] in ("lexical", "semantic", "both")
        await wait_for_start(weather)
        # The call that follows finds it running: no second start, and the other server,
        # whose tools the search also returned, was never started.
        result = await session.call_tool(CALL, {"name": "w__forecast",
                                                "arguments": {"city": "Oslo"}})
        assert not result.isError, result
        counts = json.loads(weather.read_text())
        assert counts["initialize"] == 1
        assert counts["tools/call"] == 1
        again = structured(await session.call_tool(SEARCH, {"query": "weather forecast"}))
        assert again["tools"][0]["running"] is True
    assert initializes(weather) == 1
    assert not notes.exists(), "the search started a server that was not its best hit"


@pytest.mark.anyio
async def test_search_after_a_restart_starts_no_server_when_warming_is_off(
        hub_factory, mcp_connect, tmp_path):
    cfg, weather, notes = two_servers(tmp_path, warm=False)
    first, env, list_once = restarted_hub(hub_factory, mcp_connect, tmp_path, cfg,
                                          [weather, notes])
    await list_once()
    first.stop()
    weather.unlink()
    notes.unlink()

    second = hub_factory(cfg, env=env)
    async with mcp_connect(second.url) as session:
        found = structured(await session.call_tool(SEARCH, {"query": "weather forecast"}))
        assert found["tools"][0]["name"] == "w__forecast"
        assert found["tools"][0]["running"] is False
        # Still nothing after a while: a start would have written the counter file.
        await anyio.sleep(0.5)
    assert not weather.exists(), "the search started the server"
    assert not notes.exists(), "the search started the server"


@pytest.mark.anyio
async def test_a_reload_switching_tool_mode_sends_list_changed(
        hub_factory, tmp_path):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    entry, _ = weather_server(tmp_path)
    hub = hub_factory(config(entry, "all"))
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            changed.set()

    async with streamable_http_client(hub.url) as (read, write, _):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            assert "w__forecast" in names(await session.list_tools())
            hub.config_path.write_text(json.dumps(config(entry, "search")))
            with anyio.fail_after(WAIT_S):
                await changed.wait()
            deadline = time.monotonic() + WAIT_S
            while names(await session.list_tools()) != [CALL, SEARCH, "w__echo"]:
                assert time.monotonic() < deadline, "search mode never applied"
                await anyio.sleep(POLL_S)


@pytest.mark.anyio
async def test_disabled_tools_are_hidden_from_lists_search_and_calls(
        hub_factory, mcp_connect, tmp_path):
    entry, _ = weather_server(tmp_path)
    entry = {**entry, "disabledTools": ["forecast"]}
    hub = hub_factory({"mcpServers": {"w": entry}, "settings": {"toolMode": "search"}})
    async with mcp_connect(hub.url) as session:
        # Listing runs discovery, so the search below sees the server's listing.
        assert names(await session.list_tools()) == [CALL, SEARCH]
        found = structured(await session.call_tool(SEARCH, {"query": "weather forecast city"}))
        assert "w__forecast" not in [tool["name"] for tool in found["tools"]], found
        # Refused whether called directly or through switchboard__call_tool, naming why.
        for call in (session.call_tool("w__forecast", {"city": "Paris"}),
                     session.call_tool(CALL, {"name": "w__forecast",
                                              "arguments": {"city": "Paris"}})):
            with pytest.raises(McpError, match="disabledTools"):
                await call
        echoed = await session.call_tool(CALL, {"name": "w__echo",
                                                "arguments": {"text": "still here"}})
        assert [item.text for item in echoed.content] == ["still here"]
