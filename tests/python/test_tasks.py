"""Tasks (SEP-2663, `io.modelcontextprotocol/tasks`) through the hub, with FastMCP 4's
task server (`task_server.py`, started by the hub over stdio) and FastMCP 4's client.

Runs in `.tools/venv-tasks` (FastMCP 4 needs mcp 2.x; the rest of tests/python pins mcp
1.30): `scripts/test.sh` runs this file with `$SWITCHBOARD_TEST_TASKS_PYTHON -m pytest`.

Each test goes through the merged endpoint, a profile and the pass-through route: create
and poll (a hub task id, never the server's), input required answered with `tasks/update`,
cancel, a client that reconnects mid-task (a new connection polls the same task), and a
task id of another server or route refused before any server is asked. The activity log
shows each task from the call that made it to its final status.
"""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import missing

try:
    import fastmcp  # noqa: F401
    from fastmcp import Client
    from fastmcp_tasks import call_tool_task
    from mcp.shared.exceptions import MCPError
except ImportError:  # the main venv: this file runs in .tools/venv-tasks
    Client = None  # type: ignore[assignment,misc]

SERVER = Path(__file__).with_name("task_server.py")
TIMEOUT_S = 30.0


@pytest.fixture
def task_hub(hub_factory):
    if Client is None:
        missing("fastmcp 4 is not installed in this Python (run with .tools/venv-tasks)")
    command = {"command": sys.executable, "args": [str(SERVER)]}
    return hub_factory({
        "mcpServers": {"tasks": command, "other": dict(command)},
        "profiles": {"only-tasks": {"servers": ["tasks"]}},
    })


def routes(hub) -> list[tuple[str, str]]:
    """(URL, tool prefix) of the merged endpoint, a profile and the pass-through route."""
    return [
        (hub.url, "tasks__"),
        (f"{hub.base}/profiles/only-tasks/mcp", "tasks__"),
        (f"{hub.base}/servers/tasks/mcp", ""),
    ]


async def answer_name(message, response_type, params, context):
    return {"name": "ada"}


def activity(hub) -> list[dict[str, Any]]:
    token = [hub.workdir / "cache" / "control-token"]
    headers = {}
    for path in token:
        headers["Authorization"] = f"Bearer {path.read_text().strip()}"
    request = urllib.request.Request(f"{hub.base}/api/v1/activity?limit=200", headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["calls"]


@pytest.mark.anyio
@pytest.mark.parametrize("route", [0, 1, 2], ids=["merged", "profile", "pass-through"])
async def test_create_poll_input_and_cancel(task_hub, route):
    url, prefix = routes(task_hub)[route]
    async with Client(url, elicitation_handler=answer_name, timeout=TIMEOUT_S) as client:
        task = await call_tool_task(client, prefix + "add", {"a": 2, "b": 3})
        assert task.task_id.startswith("sbt-"), task.task_id
        done = await task.wait(timeout=TIMEOUT_S)
        assert done.status == "completed"
        assert done.task_id == task.task_id
        assert (await task.result()).content[0].text == "sum 5"

        asking = await call_tool_task(client, prefix + "ask_name", {})
        parked = await asking.wait(state="input_required", timeout=TIMEOUT_S)
        assert [r["method"] for r in parked.input_requests.values()] == ["elicitation/create"]
        assert (await asking.result()).content[0].text == "hello ada"

        held = await call_tool_task(client, prefix + "hold", {})
        assert (await held.status()).status == "working"
        await held.cancel()
        assert (await held.wait(timeout=TIMEOUT_S)).status == "cancelled"

    # The log is written off the call path: wait for the final entry to arrive.
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        calls = activity(task_hub)
        made = [c for c in calls if c["method"] == "tools/call" and c.get("task", {}).get("id") == held.task_id]
        ended = [c for c in calls if c["method"] == "tasks/get" and c.get("task", {}).get("id") == held.task_id]
        if ended or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    assert len(made) == 1 and made[0]["task"]["status"] == "working"
    assert [c["task"]["status"] for c in ended] == ["cancelled"]
    assert ended[0]["outcome"] == "cancelled" and ended[0]["server"] == "tasks"


@pytest.mark.anyio
async def test_a_reconnecting_client_finds_its_task(task_hub):
    url, prefix = routes(task_hub)[0]
    async with Client(url, timeout=TIMEOUT_S) as first:
        held = await call_tool_task(first, prefix + "hold", {})
        task_id = held.task_id
    # A new connection of the same client polls and cancels the same task.
    async with Client(url, timeout=TIMEOUT_S) as second:
        again = type(held)(second, prefix + "hold", held.create_result)
        assert (await again.status()).status == "working"
        await again.cancel()
        assert (await again.wait(timeout=TIMEOUT_S)).status == "cancelled"
        assert again.task_id == task_id


@pytest.mark.anyio
async def test_a_task_of_another_server_or_route_is_refused(task_hub):
    merged, profile, passthrough = routes(task_hub)
    async with Client(merged[0], timeout=TIMEOUT_S) as client:
        other = await call_tool_task(client, "other__hold", {})
        mine = await call_tool_task(client, "tasks__hold", {})
    # The pass-through route of `tasks` and the profile never see `other`'s task,
    # nor a task made on another route.
    for url, _ in (passthrough, profile):
        async with Client(url, timeout=TIMEOUT_S) as client:
            for task in (other, mine):
                foreign = type(task)(client, "hold", task.create_result)
                with pytest.raises(MCPError) as refused:
                    await foreign.status()
                assert refused.value.error.code == -32602
                assert "unknown task" in refused.value.error.message
                with pytest.raises(MCPError):
                    await foreign.cancel()
    # An id the hub never made, and the server's own id shape, are refused too.
    async with Client(merged[0], timeout=TIMEOUT_S) as client:
        for made_up in ("sbt-00000000000000000000000000000000", "vyIel8-A11i-OYEvnTrZYnB61tFH"):
            fake = type(mine)(client, "tasks__hold", mine.create_result.model_copy(update={"task_id": made_up}))
            with pytest.raises(MCPError) as refused:
                await fake.status()
            assert refused.value.error.code == -32602
        # Its own tasks still answer, on the route that made them.
        for task in (other, mine):
            again = type(task)(client, "hold", task.create_result)
            await again.cancel()
            assert (await again.wait(timeout=TIMEOUT_S)).status == "cancelled"


@pytest.mark.anyio
async def test_a_cancelled_task_ends_in_the_log_without_another_poll(task_hub):
    url, prefix = routes(task_hub)[0]
    async with Client(url, timeout=TIMEOUT_S) as client:
        held = await call_tool_task(client, prefix + "hold", {})
        await held.cancel()
        # No `tasks/get` after the cancel: the hub reads the final status itself.
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            ended = [c for c in activity(task_hub)
                     if c["method"] == "tasks/get" and c.get("task", {}).get("id") == held.task_id]
            if ended or time.monotonic() > deadline:
                break
            await anyio.sleep(0.05)
        assert [c["task"]["status"] for c in ended] == ["cancelled"]


@pytest.mark.anyio
async def test_a_code_mode_script_waits_for_a_tasks_result(hub_factory):
    """An inner call of `switchboard__run_code` that the server answers with a task is
    waited for: the script sees the task's result, and the log shows the task made by the
    run's call."""
    if Client is None:
        missing("fastmcp 4 is not installed in this Python (run with .tools/venv-tasks)")
    hub = hub_factory({
        "mcpServers": {"tasks": {"command": sys.executable, "args": [str(SERVER)]}},
        "settings": {"toolMode": "code"},
    })
    async with Client(hub.url, timeout=TIMEOUT_S) as client:
        answer = await client.call_tool(
            "switchboard__run_code",
            {"code": "const sum = await tools.tasks.add({a: 2, b: 3});\nreturn {sum};"},
        )
    # FastMCP gives a `str` result as structured content `{"result": ...}`: the script
    # resolves with the structured content, as for a call answered at once.
    assert answer.structured_content["result"] == {"sum": {"result": "sum 5"}}, answer.structured_content
    assert [c["ok"] for c in answer.structured_content["calls"]] == [True]

    deadline = time.monotonic() + TIMEOUT_S
    while True:
        calls = activity(hub)
        made = [c for c in calls if c["method"] == "tools/call" and c.get("task") and c.get("run")]
        if made or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    assert len(made) == 1 and made[0]["name"] == "tasks__add", calls
