"""Tool sets by project (`profiles.<name>.roots`, issue #34) seen by the official `mcp` SDK.

A client on the merged `/mcp` that declares roots (`list_roots_callback`) inside a profile's
folder lists only that profile's tools; roots elsewhere, or no roots capability, list the whole
hub; a roots change (`send_roots_list_changed`) switches the set and the client receives
`notifications/tools/list_changed`; the stdio bridge started in a profile's folder is served
that profile. Folders are written with `~` against the hub's `$HOME`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from pydantic import FileUrl

from conftest import fixture_bin, switchboard_bin

WAIT_S = 15.0

WEATHER = {"tools": [{"name": "forecast", "description": "Weather forecast."}]}
MAIL = {"tools": [{"name": "send_mail", "description": "Send an email."}]}

ALL = ["m__send_mail", "w__forecast"]


def server(tmp_path: Path, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spec))
    return {"command": str(fixture_bin()), "args": ["--spec", str(path)]}


def start_hub(hub_factory: Any, tmp_path: Path) -> tuple[Any, Path]:
    """A hub with two servers and two profiles by folder: `acme` (`~/work/acme`, weather only)
    and `work` (`~/work`, mail only). Returns the hub and its home directory."""
    home = tmp_path / "home"
    (home / "work" / "acme" / "app").mkdir(parents=True)
    (home / "work" / "beta").mkdir(parents=True)
    (home / "elsewhere").mkdir(parents=True)
    hub = hub_factory({
        "mcpServers": {"w": server(tmp_path, "weather", WEATHER),
                       "m": server(tmp_path, "mail", MAIL)},
        "profiles": {"acme": {"servers": ["w"], "roots": ["~/work/acme"]},
                     "work": {"servers": ["m"], "roots": ["~/work/"]}},
    }, env={"HOME": str(home)})
    return hub, home


def names(tools: types.ListToolsResult) -> list[str]:
    return sorted(tool.name for tool in tools.tools)


class Roots:
    """The roots a client declares; `folders` can change during the session."""

    def __init__(self, *folders: Path) -> None:
        self.folders = list(folders)

    async def __call__(self, _context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[
            types.Root(uri=FileUrl(folder.as_uri())) for folder in self.folders])


@contextlib.asynccontextmanager
async def session_to(url: str, roots: Roots | None,
                     on_message: Any = None) -> AsyncIterator[ClientSession]:
    timeout = httpx.Timeout(30.0, read=300.0)
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as http:
        async with streamable_http_client(url, http_client=http) as (read, write, _):
            async with ClientSession(read, write, list_roots_callback=roots,
                                     message_handler=on_message) as session:
                await session.initialize()
                yield session


@pytest.mark.anyio
async def test_roots_inside_a_profile_folder_choose_it_the_deepest_folder_winning(
        hub_factory, tmp_path):
    hub, home = start_hub(hub_factory, tmp_path)
    async with session_to(hub.url, Roots(home / "work" / "acme" / "app")) as session:
        assert names(await session.list_tools()) == ["w__forecast"]
        # A tool of a server the profile does not have is unknown to this session.
        with pytest.raises(McpError, match="unknown tool 'm__send_mail'"):
            await session.call_tool("m__send_mail", {})
    async with session_to(hub.url, Roots(home / "work" / "beta")) as session:
        assert names(await session.list_tools()) == ["m__send_mail"]


@pytest.mark.anyio
async def test_roots_elsewhere_or_no_roots_see_the_whole_hub(hub_factory, tmp_path):
    hub, home = start_hub(hub_factory, tmp_path)
    async with session_to(hub.url, Roots(home / "elsewhere")) as session:
        assert names(await session.list_tools()) == ALL
    # `~/work2` is not inside `~/work`.
    async with session_to(hub.url, Roots(home / "work2")) as session:
        assert names(await session.list_tools()) == ALL
    async with session_to(hub.url, None) as session:
        assert names(await session.list_tools()) == ALL


@pytest.mark.anyio
async def test_a_roots_change_switches_the_set_and_says_tools_list_changed(
        hub_factory, tmp_path):
    hub, home = start_hub(hub_factory, tmp_path)
    roots = Roots(home / "elsewhere")
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            changed.set()

    async with session_to(hub.url, roots, on_message) as session:
        assert names(await session.list_tools()) == ALL
        roots.folders = [home / "work" / "acme"]
        await session.send_roots_list_changed()
        with anyio.fail_after(WAIT_S):
            await changed.wait()
        assert names(await session.list_tools()) == ["w__forecast"]
        # And back: roots outside every folder are the whole hub again.
        changed = anyio.Event()
        roots.folders = [home]
        await session.send_roots_list_changed()
        with anyio.fail_after(WAIT_S):
            await changed.wait()
        assert names(await session.list_tools()) == ALL


@pytest.mark.anyio
async def test_the_stdio_bridge_is_served_the_profile_of_its_working_directory(
        hub_factory, tmp_path):
    hub, home = start_hub(hub_factory, tmp_path)
    for cwd, expected in [(home / "work" / "acme" / "app", ["w__forecast"]),
                          (home / "elsewhere", ALL)]:
        params = StdioServerParameters(command=str(switchboard_bin()),
                                       args=["stdio", "--url", hub.url], cwd=str(cwd))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                assert names(await session.list_tools()) == expected, cwd
