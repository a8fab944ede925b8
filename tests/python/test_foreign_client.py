"""Switchboard seen by a foreign client: the official `mcp` Python SDK over Streamable HTTP.

Each test starts its own hub (and upstreams) and leaves no process behind. Waiting is always
on an event (a ready line, a process exit) or a polled condition with a deadline.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import McpError

from conftest import fixture_bin, server_everything_command

WAIT_S = 15.0
POLL_S = 0.05


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------

_no_proxy = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def get_status(hub: Any) -> dict[str, Any]:
    """`GET /api/v1/status` as JSON."""
    with _no_proxy.open(f"{hub.base}/api/v1/status", timeout=10) as response:
        assert response.status == 200
        return json.load(response)


def servers_by_id(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {server["id"]: server for server in status["servers"]}


def wait_status(hub: Any, predicate: Callable[[dict[str, dict[str, Any]]], bool],
                what: str, timeout: float = WAIT_S) -> dict[str, dict[str, Any]]:
    """Polls the status until ``predicate(servers_by_id)`` holds; fails with the last status."""
    deadline = time.monotonic() + timeout
    while True:
        servers = servers_by_id(get_status(hub))
        if predicate(servers):
            return servers
        if time.monotonic() > deadline:
            pytest.fail(f"status never showed {what} within {timeout:.0f}s; last status:\n"
                        f"{json.dumps(servers, indent=2)}\nhub stderr:\n{hub.log()}",
                        pytrace=False)
        time.sleep(POLL_S)


def summary(server: dict[str, Any]) -> dict[str, Any]:
    """The status fields these tests assert as a whole."""
    return {key: server[key] for key in ("transport", "enabled", "state", "toolCount")}


def texts(result: Any) -> list[str]:
    """The text items of a CallToolResult."""
    return [item.text for item in result.content if item.type == "text"]


def stdio_fixture(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A config entry running `switchboard-fixture` over stdio."""
    entry: dict[str, Any] = {"command": str(fixture_bin()), "args": list(args)}
    if env:
        entry["env"] = env
    return entry


def _proc_status(pid: int) -> dict[str, str] | None:
    """`/proc/<pid>/status` as a dict, or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def is_running(pid: int, reapers: tuple[int, ...] = ()) -> bool:
    """Whether ``pid`` is a live process, or a zombie that this test process or one of
    ``reapers`` (e.g. a running hub) should have reaped.

    Any other zombie counts as dead: it is an orphan reparented to an init that does not reap
    (as in some containers), which is not the hub's doing.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = _proc_status(pid)
    if status is None:
        return False
    if not status["State"].startswith("Z"):
        return True
    return int(status["PPid"]) in (os.getpid(), *reapers)


def wait_dead(pids: dict[str, int], reapers: tuple[int, ...] = (), timeout: float = 5.0) -> None:
    """Fails unless every pid (labelled by the keys) is gone within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        alive = {name: pid for name, pid in pids.items() if is_running(pid, reapers)}
        if not alive:
            return
        if time.monotonic() > deadline:
            details = {name: _proc_status(pid) for name, pid in alive.items()}
            pytest.fail(f"still running (or unreaped): {alive}\n{details}", pytrace=False)
        time.sleep(POLL_S)


def tagged_processes(tag: str) -> list[int]:
    """Live processes whose environment carries ``SWITCHBOARD_TEST_TAG=<tag>``."""
    needle = f"SWITCHBOARD_TEST_TAG={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0") and is_running(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)


def wait_for_file(path: Path, timeout: float = WAIT_S) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text().endswith("\n")):
        if time.monotonic() > deadline:
            pytest.fail(f"{path} was not written within {timeout:.0f}s", pytrace=False)
        time.sleep(POLL_S)
    return path.read_text()


async def call_error(session: Any, name: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    """Calls a tool that must fail: (message, data) of the MCP error, or (text, None) of an
    error result."""
    try:
        result = await session.call_tool(name, arguments)
    except McpError as err:
        return err.error.message, err.error.data
    assert result.isError, f"{name} should have failed, got {result}"
    return " ".join(texts(result)), None


# --------------------------------------------------------------------------------------------
# 1. Two upstreams (stdio + HTTP), calls, status, clean shutdown
# --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_stdio_and_http_upstreams_then_clean_shutdown(
        hub_factory, http_fixture_factory, mcp_connect, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    b_url = http_fixture_factory(["y"])
    hub = hub_factory({"mcpServers": {
        "a": stdio_fixture("--tools", "x", "--spawn-grandchild", str(pidfile)),
        "b": {"url": b_url},
    }})

    async with mcp_connect(hub.url) as session:
        tools = await session.list_tools()
        assert sorted(tool.name for tool in tools.tools) == ["a__x", "b__y"]

        result = await session.call_tool("a__x", {"text": "hello"})
        assert (result.isError, texts(result)) == (False, ["hello"])
        result = await session.call_tool("b__y", {"text": "hello"})
        assert (result.isError, texts(result)) == (False, ["hello"])

    expected = {
        "a": {"transport": "stdio", "enabled": True, "state": "ready", "toolCount": 1},
        "b": {"transport": "http", "enabled": True, "state": "ready", "toolCount": 1},
    }
    servers = wait_status(hub, lambda s: {k: summary(v) for k, v in s.items()} == expected,
                          "both servers ready with one tool")
    fixture_pid = servers["a"]["pid"]
    assert isinstance(fixture_pid, int) and fixture_pid > 0
    assert servers["b"]["pid"] is None
    grandchild_pid = int(wait_for_file(pidfile))
    assert is_running(fixture_pid) and is_running(grandchild_pid)

    assert hub.stop() == 0  # fails the test if it takes longer than 15 s
    wait_dead({"stdio fixture": fixture_pid, "grandchild": grandchild_pid})


# --------------------------------------------------------------------------------------------
# 2. Unknown tool
# --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_unknown_tool_is_an_error_and_the_hub_keeps_serving(
        hub_factory, http_fixture_factory, mcp_connect):
    hub = hub_factory({"mcpServers": {"a": {"url": http_fixture_factory(["x"])}}})

    async with mcp_connect(hub.url) as session:
        with pytest.raises(McpError) as raised:
            await session.call_tool("nope__x", {"text": "hello"})
        assert (raised.value.error.code, raised.value.error.message) == (
            -32602, "unknown tool 'nope__x': no server 'nope' is configured")

        result = await session.call_tool("a__x", {"text": "still here"})
        assert (result.isError, texts(result)) == (False, ["still here"])

    assert hub.proc.poll() is None


# --------------------------------------------------------------------------------------------
# 3. An upstream that crashes mid-call is reported, then restarted on next use
# --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_crashed_upstream_is_reported_and_restarted_lazily(
        hub_factory, mcp_connect, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"tools": [{"name": "boom", "behavior": "crash"}]}))
    hub = hub_factory({"mcpServers": {"c": stdio_fixture("--tools", "ok", "--spec", str(spec))}})

    async with mcp_connect(hub.url) as session:
        tools = await session.list_tools()
        assert sorted(tool.name for tool in tools.tools) == ["c__boom", "c__ok"]
        first_pid = wait_status(hub, lambda s: s["c"]["state"] == "ready" and s["c"]["pid"],
                                "c ready with a pid")["c"]["pid"]

        crashed = "server 'c' exited; stderr: fixture crashing on purpose"
        message, data = await call_error(session, "c__boom", {})
        assert message == crashed
        assert data in (None, {"server": "c", "kind": "processExited"})

        assert hub.proc.poll() is None, "the hub died with its upstream"
        servers = wait_status(hub, lambda s: s["c"]["state"] == "failed" and s["c"]["pid"] is None,
                              "c failed with no pid")
        assert servers["c"]["lastError"] == crashed
        wait_dead({"crashed fixture": first_pid}, reapers=(hub.proc.pid,))

        result = await session.call_tool("c__ok", {"text": "again"})
        assert (result.isError, texts(result)) == (False, ["again"])

    servers = wait_status(hub, lambda s: s["c"]["state"] == "ready" and s["c"]["pid"],
                          "c ready again with a pid")
    assert servers["c"]["pid"] != first_pid
    assert servers["c"]["lastError"] is None
    assert is_running(servers["c"]["pid"])


# --------------------------------------------------------------------------------------------
# 4. A broken config file is refused with its path and line
# --------------------------------------------------------------------------------------------


def _refused(hub_factory, config_text: str) -> tuple[Any, list[str]]:
    """Starts the hub on ``config_text``; returns it and its stderr lines once it has exited."""
    hub = hub_factory(config_text, wait_ready=False)
    rc = hub.proc.wait(timeout=30)
    assert rc != 0, f"the hub accepted a broken config; stderr:\n{hub.log()}"
    hub.stop()  # already exited: just collects stdout
    assert not any("listening" in line for line in hub.stdout_lines), hub.stdout_lines
    return hub, [line.strip() for line in hub.log().splitlines()]


def test_invalid_json_config_names_file_and_line(hub_factory):
    text = '{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n'  # trailing comma, line 3
    hub, lines = _refused(hub_factory, text)
    # One line says it all: switchboard: the config file was refused: <path>:3:<col>: ...
    where = re.compile(
        r"switchboard: the config file was refused: "
        + re.escape(str(hub.config_path))
        + r":3:\d+: trailing comma"
    )
    assert any(where.fullmatch(line) for line in lines), "\n".join(lines)


def test_bad_server_id_is_named(hub_factory):
    text = '{\n  "mcpServers": {\n    "my server": {"command": "x"}\n  }\n}\n'
    hub, lines = _refused(hub_factory, text)
    prefix = f"switchboard: the config file was refused: {hub.config_path}:3:"
    assert any(line.startswith(prefix) and 'server id "my server"' in line
               for line in lines), "\n".join(lines)


# --------------------------------------------------------------------------------------------
# 5. The reference server: @modelcontextprotocol/server-everything
# --------------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_server_everything_through_the_hub(hub_factory, mcp_connect):
    command, *args = server_everything_command()
    tag = uuid.uuid4().hex
    hub = hub_factory({"mcpServers": {"everything": {
        "command": command, "args": args, "env": {"SWITCHBOARD_TEST_TAG": tag},
    }}})

    async with mcp_connect(hub.url) as session:
        tools = await session.list_tools()
        assert "everything__echo" in {tool.name for tool in tools.tools}

        result = await session.call_tool("everything__echo", {"message": "hi"})
        assert (result.isError, texts(result)) == (False, ["Echo: hi"])

        prompts = await session.list_prompts()
        assert prompts.prompts, "no prompts listed"
        resources = await session.list_resources()
        assert resources.resources, "no resources listed"

        resource = resources.resources[0]
        read = await session.read_resource(resource.uri)
        assert [str(item.uri) for item in read.contents] == [str(resource.uri)]

    servers = wait_status(hub, lambda s: s["everything"]["state"] == "ready", "everything ready")
    upstream_pid = servers["everything"]["pid"]
    assert upstream_pid in tagged_processes(tag)
    # The hub offers 2025-11-25 and the TypeScript SDK's server accepts it.
    assert servers["everything"]["protocolVersion"] == "2025-11-25"

    assert hub.stop() == 0
    deadline = time.monotonic() + 5.0
    while (left := tagged_processes(tag)) and time.monotonic() < deadline:
        time.sleep(POLL_S)
    assert left == [], f"server-everything processes survived the hub: {left}"
