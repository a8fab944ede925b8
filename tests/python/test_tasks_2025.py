"""2025-11-25's experimental tasks through the hub, with the pinned Python `mcp` SDK on both
sides: its task server (`task_server_2025.py`, `server.experimental.enable_tasks()`, started
by the hub over stdio) and its client (`session.experimental`: `call_tool_as_task`,
`get_task`, `get_task_result`, `list_tasks`, `cancel_task`).

Through the merged endpoint, a profile and the pass-through route: a task-augmented call
gets a hub task id (never the server's) with the server's `ttl` and `pollInterval`; polling,
the result, an elicitation inside the task (reaching the client on its `tasks/result`, naming
the hub's id), `tasks/list` (this client's tasks only), cancel; `notifications/tasks/status`
reaching the session that made the task, with the hub's id; a client resuming its session
finds its task; a task id of another server, route or session is refused before any server
is asked; the activity log follows each task to its final status.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.request
import warnings
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp.types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

SERVER = Path(__file__).with_name("task_server_2025.py")
TIMEOUT_S = 30.0

# The SDK marks its task API deprecated (tasks return as an extension in mcp 2.0).
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def task_hub(hub_factory):
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


class Seen:
    """What the server side sent this client: task status notifications, elicitations."""

    def __init__(self) -> None:
        self.statuses: list[types.TaskStatusNotificationParams] = []
        self.elicited: list[dict[str, Any]] = []

    async def on_message(self, message) -> None:
        if isinstance(message, types.ServerNotification) and isinstance(
                message.root, types.TaskStatusNotification):
            self.statuses.append(message.root.params)

    async def elicit(self, context, params) -> types.ElicitResult:
        self.elicited.append(params.model_dump(by_alias=True))
        return types.ElicitResult(action="accept", content={"name": "ada"})

    async def status_of(self, task_id: str, status: str) -> types.TaskStatusNotificationParams:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            for seen in self.statuses:
                if seen.taskId == task_id and seen.status == status:
                    return seen
            await anyio.sleep(0.05)
        raise AssertionError(f"no {status} notification for {task_id}: {self.statuses}")


@asynccontextmanager
async def session(url: str, seen: Seen | None = None, *, resume: str | None = None,
                  terminate: bool = True):
    """A ClientSession on `url`; with `resume`, the existing session of that id (no
    `initialize`), as a client that reconnects does."""
    headers = {}
    if resume is not None:
        headers = {"mcp-session-id": resume, "mcp-protocol-version": "2025-11-25"}
    async with httpx.AsyncClient(headers=headers, timeout=TIMEOUT_S) as http:
        async with streamable_http_client(url, http_client=http, terminate_on_close=terminate) as (
                read, write, session_id):
            seen = seen or Seen()
            async with ClientSession(read, write, message_handler=seen.on_message,
                                     elicitation_callback=seen.elicit) as client:
                if resume is None:
                    init = await client.initialize()
                    assert init.protocolVersion == "2025-11-25"
                client.session_id = session_id  # type: ignore[attr-defined]
                yield client


def activity(hub) -> list[dict[str, Any]]:
    token = (hub.workdir / "cache" / "control-token").read_text().strip()
    request = urllib.request.Request(f"{hub.base}/api/v1/activity?limit=200",
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["calls"]


async def wait_done(client: ClientSession, task_id: str) -> types.GetTaskResult:
    async for status in client.experimental.poll_task(task_id):
        last = status
    return last


@pytest.mark.anyio
@pytest.mark.parametrize("route", [0, 1, 2], ids=["merged", "profile", "pass-through"])
async def test_create_poll_result_input_list_and_cancel(task_hub, route):
    url, prefix = routes(task_hub)[route]
    seen = Seen()
    async with session(url, seen) as client:
        made = await client.experimental.call_tool_as_task(prefix + "add", {"a": 2, "b": 3})
        task = made.task
        assert task.taskId.startswith("sbt-"), task.taskId
        assert (task.status, task.ttl, task.pollInterval) == ("working", 60000, 500)
        done = await wait_done(client, task.taskId)
        assert (done.taskId, done.status, done.ttl) == (task.taskId, "completed", 60000)
        result = await client.experimental.get_task_result(task.taskId, types.CallToolResult)
        assert result.content[0].text == "sum 5"
        assert result.meta["io.modelcontextprotocol/related-task"] == {"taskId": task.taskId}
        # The server's status notification reaches this session, under the hub's id.
        note = await seen.status_of(task.taskId, "completed")
        assert note.ttl == 60000

        # Input inside the task: the elicitation comes with this client's `tasks/result`.
        asking = (await client.experimental.call_tool_as_task(prefix + "ask_name", {})).task
        greeted = await client.experimental.get_task_result(asking.taskId, types.CallToolResult)
        assert greeted.content[0].text == "hello ada"
        assert [e["_meta"].get("io.modelcontextprotocol/related-task") for e in seen.elicited] == [
            {"taskId": asking.taskId}]
        assert (await client.experimental.get_task(asking.taskId)).status == "completed"

        held = (await client.experimental.call_tool_as_task(prefix + "hold", {})).task
        working = await client.experimental.get_task(held.taskId)
        # rmcp reads this answer without `ttl`/`pollInterval`: the hub puts them back.
        assert (working.status, working.ttl, working.pollInterval) == ("working", 60000, 500)
        listed = await client.experimental.list_tasks()
        assert [(t.taskId, t.status) for t in listed.tasks] == [
            (task.taskId, "completed"), (asking.taskId, "completed"), (held.taskId, "working")]
        cancelled = await client.experimental.cancel_task(held.taskId)
        assert (cancelled.taskId, cancelled.status) == (held.taskId, "cancelled")
        assert (await client.experimental.get_task(held.taskId)).status == "cancelled"

    # The log is written off the call path: wait for the final entries to arrive.
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        calls = activity(task_hub)
        statuses = {t: [c["task"]["status"] for c in reversed(calls)
                        if c["method"] == "tasks/get" and c.get("task", {}).get("id") == t]
                    for t in (task.taskId, held.taskId)}
        if (statuses[task.taskId] and statuses[held.taskId]) or time.monotonic() > deadline:
            break
        await anyio.sleep(0.05)
    made_entries = [c for c in calls if c["method"] == "tools/call" and c.get("task")]
    assert sorted(c["task"]["id"] for c in made_entries) == sorted(
        [task.taskId, asking.taskId, held.taskId])
    assert all(c["task"]["status"] == "working" and c["server"] == "tasks" for c in made_entries)
    assert statuses == {task.taskId: ["completed"], held.taskId: ["cancelled"]}


@pytest.mark.anyio
async def test_a_client_resuming_its_session_finds_its_task(task_hub):
    url, prefix = routes(task_hub)[0]
    async with session(url, terminate=False) as first:
        held = (await first.experimental.call_tool_as_task(prefix + "hold", {})).task
        session_id = first.session_id()
    # The same session over a new connection: its task is there.
    async with session(url, resume=session_id) as again:
        assert (await again.experimental.get_task(held.taskId)).status == "working"
        assert [t.taskId for t in (await again.experimental.list_tasks()).tasks] == [held.taskId]
    # Another session is another client: the task is not its to see.
    async with session(url) as stranger:
        with pytest.raises(McpError) as refused:
            await stranger.experimental.get_task(held.taskId)
        assert refused.value.error.code == -32602
        assert (await stranger.experimental.list_tasks()).tasks == []
    async with session(url, resume=session_id) as again:
        assert (await again.experimental.cancel_task(held.taskId)).status == "cancelled"


@pytest.mark.anyio
async def test_a_task_of_another_server_route_or_session_is_refused(task_hub):
    merged, profile, passthrough = routes(task_hub)
    async with session(merged[0]) as client:
        other = (await client.experimental.call_tool_as_task("other__hold", {})).task
        mine = (await client.experimental.call_tool_as_task("tasks__hold", {})).task
        # Neither the pass-through route of `tasks` nor the profile sees them.
        for url, _ in (passthrough, profile):
            async with session(url) as elsewhere:
                for task in (other, mine):
                    for ask in (elsewhere.experimental.get_task,
                                elsewhere.experimental.cancel_task):
                        with pytest.raises(McpError) as refused:
                            await ask(task.taskId)
                        assert refused.value.error.code == -32602
                        assert "unknown task" in refused.value.error.message
                    with pytest.raises(McpError):
                        await elsewhere.experimental.get_task_result(task.taskId,
                                                                     types.CallToolResult)
        # An id the hub never made is refused too; the server's own ids never reach here.
        with pytest.raises(McpError) as refused:
            await client.experimental.get_task("sbt-00000000000000000000000000000000")
        assert refused.value.error.code == -32602
        # Its own tasks still answer, on the route that made them.
        for task in (other, mine):
            assert (await client.experimental.cancel_task(task.taskId)).status == "cancelled"
