"""Project files (`.switchboard.json`, issue #34) seen by the official `mcp` SDK.

A client on the merged `/mcp` whose declared root is a folder with a safe `.switchboard.json`
is served that file's servers (deeper than a named profile's `roots`, so it wins); unknown ids
in it are left out with a warning; a file others can write (chmod 666) or that another user
owns (`nobody`) is ignored with a warning naming it; a file in a parent of the root is never
read; a file created, changed or removed while the session runs is seen by its next list; a
roots change switches to a project with `notifications/tools/list_changed`; the stdio bridge
is served the project of its working directory.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from conftest import switchboard_bin
from test_project_roots import ALL, MAIL, WAIT_S, WEATHER, Roots, names, server, session_to

NOBODY_UID = 65534


def start_hub(hub_factory: Any, tmp_path: Path) -> tuple[Any, Path]:
    """Two servers (`w` weather, `m` mail) and a named profile `acme` (`~/work/acme`,
    weather only). Returns the hub and the folder `~/work/acme/app`."""
    home = tmp_path / "home"
    app = home / "work" / "acme" / "app"
    (app / "sub").mkdir(parents=True)
    (home / "elsewhere").mkdir(parents=True)
    for folder in [home, home / "work", home / "work" / "acme", app, app / "sub"]:
        folder.chmod(0o755)
    hub = hub_factory({
        "mcpServers": {"w": server(tmp_path, "weather", WEATHER),
                       "m": server(tmp_path, "mail", MAIL)},
        "profiles": {"acme": {"servers": ["w"], "roots": ["~/work/acme"]}},
    }, env={"HOME": str(home)})
    return hub, app


def write_project(folder: Path, body: dict[str, Any], mode: int = 0o644) -> Path:
    path = folder / ".switchboard.json"
    path.write_text(json.dumps(body))
    path.chmod(mode)
    return path


async def logged(hub: Any, pattern: str) -> str:
    """The hub's log once `pattern` shows in it."""
    with anyio.move_on_after(WAIT_S):
        while not re.search(pattern, hub.log()):
            await anyio.sleep(0.05)
    log = hub.log()
    assert re.search(pattern, log), f"{pattern!r} not in the hub's log:\n{log}"
    return log


@pytest.mark.anyio
async def test_a_project_file_wins_over_a_named_profile_and_unknown_ids_are_left_out(
        hub_factory, tmp_path):
    hub, app = start_hub(hub_factory, tmp_path)
    write_project(app, {"servers": ["m", "nope"]})
    async with session_to(hub.url, Roots(app)) as session:
        assert names(await session.list_tools()) == ["m__send_mail"]
    await logged(hub, re.escape('"nope", which is no configured server'))
    # A root below the project's folder: the file is outside the client's roots and is not
    # read; the named profile's folder holds the root.
    async with session_to(hub.url, Roots(app / "sub")) as session:
        assert names(await session.list_tools()) == ["w__forecast"]
    # The endpoints list shows the project profile read, on `/mcp`.
    status = await anyio.to_thread.run_sync(hub_status, hub)
    projects = [e for e in status["endpoints"] if (e.get("profile") or {}).get("project")]
    assert [(e["path"], e["profile"]["project"], e["profile"]["servers"]) for e in projects] \
        == [("/mcp", str(app), ["m"])]


def hub_status(hub: Any) -> dict[str, Any]:
    """`GET /api/v1/status` as JSON."""
    with httpx.Client(timeout=10, trust_env=False) as client:
        return client.get(f"{hub.base}/api/v1/status").json()


@pytest.mark.anyio
@pytest.mark.parametrize("unsafe", ["chmod 666", "owned by nobody"])
async def test_an_unsafe_project_file_is_ignored_with_a_warning(hub_factory, tmp_path, unsafe):
    hub, app = start_hub(hub_factory, tmp_path)
    path = write_project(app, {"servers": ["m"]})
    if unsafe == "chmod 666":
        path.chmod(0o666)
        why = "has mode 666"
    else:
        if os.geteuid() != 0:
            pytest.skip("chown to another user needs root")
        os.chown(path, NOBODY_UID, -1)
        why = f"belongs to another user \\(uid {NOBODY_UID}\\)"
    async with session_to(hub.url, Roots(app)) as session:
        # Ignored: the named profile `acme` holds the root.
        assert names(await session.list_tools()) == ["w__forecast"]
    await logged(hub, rf"the project file {re.escape(str(path))} is ignored: it {why}")
    # Made safe again: the next client's roots read it.
    if unsafe == "chmod 666":
        path.chmod(0o644)
    else:
        os.chown(path, 0, -1)
    async with session_to(hub.url, Roots(app)) as session:
        assert names(await session.list_tools()) == ["m__send_mail"]


@pytest.mark.anyio
async def test_a_new_changed_or_removed_file_is_seen_without_a_restart(hub_factory, tmp_path):
    hub, app = start_hub(hub_factory, tmp_path)
    other = app.parent.parent.parent / "elsewhere"
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            changed.set()

    async with session_to(hub.url, Roots(other), on_message) as session:
        assert names(await session.list_tools()) == ALL
        write_project(other, {"servers": ["w"], "toolMode": "all"})
        assert names(await session.list_tools()) == ["w__forecast"]
        write_project(other, {"servers": ["m", "w"]})
        assert names(await session.list_tools()) == ALL
        write_project(other, {"servers": ["m"]})
        assert names(await session.list_tools()) == ["m__send_mail"]
        (other / ".switchboard.json").unlink()
        assert names(await session.list_tools()) == ALL
    # A second client of the same folder sees what is there now.
    write_project(other, {"servers": ["w"]})
    async with session_to(hub.url, Roots(other)) as session:
        assert names(await session.list_tools()) == ["w__forecast"]


@pytest.mark.anyio
async def test_a_roots_change_switches_to_a_project_with_tools_list_changed(
        hub_factory, tmp_path):
    hub, app = start_hub(hub_factory, tmp_path)
    write_project(app, {"servers": ["m"]})
    roots = Roots(app.parent.parent.parent / "elsewhere")
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.ToolListChangedNotification):
            changed.set()

    async with session_to(hub.url, roots, on_message) as session:
        assert names(await session.list_tools()) == ALL
        roots.folders = [app]
        await session.send_roots_list_changed()
        with anyio.fail_after(WAIT_S):
            await changed.wait()
        assert names(await session.list_tools()) == ["m__send_mail"]


@pytest.mark.anyio
async def test_the_stdio_bridge_is_served_the_project_of_its_working_directory(
        hub_factory, tmp_path):
    hub, app = start_hub(hub_factory, tmp_path)
    write_project(app, {"servers": ["m"]})
    for cwd, expected in [(app, ["m__send_mail"]), (app / "sub", ["w__forecast"])]:
        params = StdioServerParameters(command=str(switchboard_bin()),
                                       args=["stdio", "--url", hub.url], cwd=str(cwd))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                assert names(await session.list_tools()) == expected, cwd
