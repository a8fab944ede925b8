"""`switchboard stdio` driven by the official Python `mcp` SDK's stdio client:
a stdio-only client reaches the servers behind a running hub, calls them, and
hears about tool changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import fixture_bin, switchboard_bin


@pytest.mark.anyio
async def test_stdio_bridge_lists_calls_and_relays_list_changed(hub_factory, tmp_path: Path) -> None:
    control = tmp_path / "control.json"
    hub = hub_factory(
        {
            "mcpServers": {
                "a": {"command": str(fixture_bin()), "args": ["--tools", "x", "--control", str(control)]},
                "b": {"command": str(fixture_bin()), "args": ["--tools", "y"]},
            }
        }
    )
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
            message.root, types.ToolListChangedNotification
        ):
            changed.set()

    params = StdioServerParameters(command=str(switchboard_bin()), args=["stdio", "--url", hub.url])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            assert init.serverInfo.name == "switchboard"
            tools = sorted(tool.name for tool in (await session.list_tools()).tools)
            assert tools == ["a__x", "b__y"]
            result = await session.call_tool("b__y", {"text": "through the bridge"})
            assert [c.text for c in result.content if c.type == "text"] == ["through the bridge"]

            # Server `a` changes its tools and says so: the bridge passes the
            # hub's notification on to this stdio client.
            tmp = control.with_suffix(".tmp")
            tmp.write_text(json.dumps({"tools": [{"name": "x"}, {"name": "z"}], "notify": True}))
            tmp.rename(control)
            with anyio.fail_after(20):
                await changed.wait()
            tools = sorted(tool.name for tool in (await session.list_tools()).tools)
            assert tools == ["a__x", "a__z", "b__y"]


@pytest.mark.anyio
async def test_stdio_bridge_without_a_hub_says_so(tmp_path: Path) -> None:
    # Nothing listens on port 9 (discard) on loopback here.
    proc = await anyio.run_process(
        [str(switchboard_bin()), "stdio", "--url", "http://127.0.0.1:9"],
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert b"Switchboard is not running at http://127.0.0.1:9" in proc.stderr
