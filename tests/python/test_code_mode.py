"""Code mode (`settings.toolMode: "code"`, issue #31) seen by the official `mcp` Python SDK.

`/mcp` lists the pinned tools, the two search tools and `switchboard__run_code`, which runs a
JavaScript body in the interpreter helper (`switchboard __run-code`, a process of its own) with
`tools.<server>.<tool>(args)`, `callTool` and `console` in scope. Every call a script makes takes
the route of a direct call: the activity log records it with the run's id, held tools are
refused, a profile's script reaches only its servers. The limits (deadline, memory, calls,
result size) each end a run with `isError` and the script line while the hub keeps serving;
only the servers a script calls are started (spawns counted with the fixture's
`--counter-file`, which a fixture writes on its first request).
"""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import types

from conftest import fixture_bin

RUN = "switchboard__run_code"
SEARCH = "switchboard__search_tools"
CALL = "switchboard__call_tool"

ISSUES = [
    {"number": 1, "title": "Crash on start", "labels": ["bug"]},
    {"number": 2, "title": "Dark mode", "labels": ["feature"]},
    {"number": 4, "title": "Login fails", "labels": ["bug", "auth"]},
]

GH_SPEC = {
    "tools": [
        {"name": "list_issues", "description": "List the open issues of a repository.",
         "behavior": "data",
         "inputSchema": {"type": "object", "properties": {
             "repo": {"type": "string"}, "label": {"type": "string"}}, "required": ["repo"]},
         "outputSchema": {"type": "object", "properties": {"issues": {"type": "array", "items": {
             "type": "object", "properties": {"number": {"type": "integer"},
                                              "title": {"type": "string"}},
             "required": ["number", "title"]}}}, "required": ["issues"]},
         "responses": [
             {"when": {"repo": "app", "label": "bug"},
              "result": {"issues": [i for i in ISSUES if "bug" in i["labels"]]}},
             {"when": {"repo": "app"}, "result": {"issues": ISSUES}}]},
        {"name": "nap", "description": "Wait a while, reporting progress.", "behavior": "sleep",
         "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer"}}}},
        {"name": "broken", "description": "Always fails.", "behavior": "error"},
    ]
}

CHAT_SPEC = {
    "tools": [
        {"name": "post_message", "description": "Post a message to a chat channel.",
         "behavior": "structured",
         "inputSchema": {"type": "object", "properties": {
             "channel": {"type": "string"}, "text": {"type": "string"}},
             "required": ["channel", "text"]}},
    ]
}


def server(tmp_path: Path, name: str, spec: dict[str, Any], *extra: str) -> tuple[dict[str, Any], Path]:
    """A stdio fixture serving `spec`, counting its requests in a file; (config entry, file)."""
    spec_path = tmp_path / f"{name}.json"
    spec_path.write_text(json.dumps(spec))
    counter = tmp_path / f"{name}-counts.json"
    entry = {"command": str(fixture_bin()),
             "args": ["--spec", str(spec_path), "--counter-file", str(counter), *extra]}
    return entry, counter


def code_config(tmp_path: Path, **settings: Any) -> dict[str, Any]:
    gh, _ = server(tmp_path, "gh", GH_SPEC)
    chat, _ = server(tmp_path, "chat", CHAT_SPEC)
    return {"mcpServers": {"gh": gh, "chat": chat},
            "settings": {"toolMode": "code", **settings}}


def body(result: types.CallToolResult) -> dict[str, Any]:
    """The run's structuredContent, checked against its JSON text."""
    assert result.structuredContent is not None, result
    text = [item.text for item in result.content if item.type == "text"]
    assert json.loads(text[-1]) == result.structuredContent
    return result.structuredContent


def ok(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.isError, result
    return body(result)


def failed(result: types.CallToolResult, kind: str) -> dict[str, Any]:
    assert result.isError, result
    content = body(result)
    assert content["error"]["kind"] == kind, content
    assert result.content[0].text.startswith(f"{RUN}: "), result.content[0].text
    return content


def activity(hub) -> list[dict[str, Any]]:
    token = (hub.workdir / "cache" / "control-token").read_text().strip()
    request = urllib.request.Request(f"{hub.base}/api/v1/activity?limit=200",
                                     headers={"Authorization": f"Bearer {token}"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as answer:
        return json.load(answer)["calls"]


def eventually(check, what: str, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.anyio
async def test_code_mode_lists_run_code_and_searches_with_signatures(hub_factory, mcp_connect,
                                                                      tmp_path):
    cfg = code_config(tmp_path)
    cfg["settings"]["pinnedTools"] = ["chat__post_message"]
    hub = hub_factory(cfg)
    async with mcp_connect(hub.url) as session:
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == [CALL, SEARCH, RUN, "chat__post_message"]
        run_tool = next(t for t in listed.tools if t.name == RUN)
        assert "tools.<server>.<tool>(args)" in run_tool.description
        assert set(run_tool.inputSchema["properties"]) == {"code", "timeoutSecs"}

        found = await session.call_tool(SEARCH, {"query": "list open issues of a repository"})
        hit = found.structuredContent["tools"][0]
        assert hit["name"] == "gh__list_issues"
        assert hit["signature"] == (
            "tools.gh.list_issues(args: {repo: string; label?: string}): "
            "Promise<{issues: {number: number; title: string}[]}>")
        # The signature stands in for the whole schema in code mode.
        assert "inputSchema" not in hit


@pytest.mark.anyio
async def test_a_script_chains_calls_on_two_servers_with_logs_and_progress(
        hub_factory, mcp_connect, tmp_path):
    hub = hub_factory(code_config(tmp_path))
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    code = """
const {issues} = await tools.gh.list_issues({repo: "app", label: "bug"});
console.log("found", issues.length, "bugs");
console.warn("posting");
await tools.gh.nap({ms: 300});
const posted = await tools["chat"]["post_message"]({channel: "dev", text: issues.map(i => i.title).join(", ")});
const raw = await callTool("gh__list_issues", {repo: "app"});
return {posted, all: raw.structuredContent.issues.length};
"""
    async with mcp_connect(hub.url) as session:
        result = await session.call_tool(RUN, {"code": code}, progress_callback=on_progress)
        content = ok(result)
    assert content["result"] == {
        "posted": {"channel": "dev", "text": "Crash on start, Login fails"}, "all": 3}
    assert content["logs"] == ["found 2 bugs", "[warn] posting"]
    assert [(c["name"], c["ok"]) for c in content["calls"]] == [
        ("gh__list_issues", True), ("gh__nap", True), ("chat__post_message", True),
        ("gh__list_issues", True)]
    assert all(c["ms"] >= 0 for c in content["calls"])
    assert progress, "the inner call's progress was forwarded as progress of run_code"


@pytest.mark.anyio
async def test_parallel_calls_overlap_and_a_tool_error_is_caught(hub_factory, mcp_connect,
                                                                 tmp_path):
    hub = hub_factory(code_config(tmp_path))
    code = """
const [a, b] = await Promise.all([tools.gh.nap({ms: 400}), tools.gh.nap({ms: 400})]);
let caught;
try { await tools.gh.broken({}); } catch (e) { caught = e.message; }
return {caught, kind: typeof a};
"""
    async with mcp_connect(hub.url) as session:
        content = ok(await session.call_tool(RUN, {"code": code}))
    assert content["result"]["caught"] == "tool failed on purpose"
    assert [(c["name"], c["ok"]) for c in content["calls"]] == [
        ("gh__nap", True), ("gh__nap", True), ("gh__broken", False)]
    naps = eventually(
        lambda: (lambda n: n if len(n) == 2 else None)(
            [e for e in activity(hub) if e["name"] == "gh__nap"]),
        "both naps in the activity log")
    # Both were under way at once: each started before the other ended.
    times = [(datetime.fromisoformat(e["time"].replace("Z", "+00:00")),
              timedelta(milliseconds=e["durationMs"])) for e in naps]
    (start_a, took_a), (start_b, took_b) = times
    assert start_b < start_a + took_a and start_a < start_b + took_b, naps


@pytest.mark.anyio
async def test_inner_calls_are_in_the_activity_log_with_the_runs_id(hub_factory, mcp_connect,
                                                                   tmp_path):
    hub = hub_factory(code_config(tmp_path))
    code = ('const {issues} = await tools.gh.list_issues({repo: "app"});\n'
            'await tools.chat.post_message({channel: "x", text: String(issues.length)});\n'
            'return issues.length;')
    async with mcp_connect(hub.url) as session:
        assert ok(await session.call_tool(RUN, {"code": code}))["result"] == 3

    def logged():
        calls = activity(hub)
        return calls if any(c["name"] == RUN for c in calls) else None
    calls = logged() or eventually(logged, "the run in the activity log")
    run = next(c for c in calls if c["name"] == RUN)
    assert run["run"] and run["server"] == "switchboard"
    inner = [c for c in calls if c.get("run") == run["run"] and c["name"] != RUN]
    assert sorted((c["name"], c["server"], c["outcome"]) for c in inner) == [
        ("chat__post_message", "chat", "ok"), ("gh__list_issues", "gh", "ok")]
    assert all("run" not in c for c in calls if c["name"] not in (RUN, "gh__list_issues",
                                                                   "chat__post_message"))


@pytest.mark.anyio
async def test_each_limit_is_an_error_with_its_line_and_the_hub_keeps_serving(
        hub_factory, mcp_connect, tmp_path):
    hub = hub_factory(code_config(tmp_path, codeMemoryMb=16, codeMaxCalls=3,
                                  codeMaxResultBytes=2048))
    async with mcp_connect(hub.url) as session:
        deadline = failed(await session.call_tool(RUN, {
            "code": 'console.log("spinning");\nlet i = 0;\nwhile (true) { i++; }',
            "timeoutSecs": 1}), "deadline")
        assert deadline["logs"] == ["spinning"]
        assert deadline["error"]["line"] == 1
        assert "deadline of 1 s" in deadline["error"]["message"]

        memory = failed(await session.call_tool(RUN, {
            "code": "const a = [];\nfor (;;) { a.push('x'.repeat(4096) + a.length); }"}), "memory")
        assert "16 MiB" in memory["error"]["message"]

        calls = failed(await session.call_tool(RUN, {
            "code": ("let n = 0;\nfor (let i = 0; i < 5; i++) {\n"
                     "  try { await tools.gh.list_issues({repo: 'app'}); n++; } catch (e) {}\n"
                     "}\nreturn n;")}), "calls")
        assert calls["error"]["line"] == 3
        assert len(calls["calls"]) == 3 and all(c["ok"] for c in calls["calls"])
        assert "more than 3 tool calls" in calls["error"]["message"]

        big = ok(await session.call_tool(RUN, {"code": "return 'x'.repeat(10000);"}))
        assert len(big["result"]) <= 2048 and big["result"].startswith('"xxx')
        assert "codeMaxResultBytes" in big["note"]

        syntax = failed(await session.call_tool(RUN, {"code": "let a = 1;\nlet = = 2;"}),
                        "syntax")
        assert syntax["error"]["line"] == 2
        thrown = failed(await session.call_tool(RUN, {"code": "\n\nthrow new Error('nope');"}),
                        "thrown")
        assert (thrown["error"]["message"], thrown["error"]["line"]) == ("Error: nope", 3)

        # Still serving: a run and a direct call answer as before.
        assert ok(await session.call_tool(RUN, {"code": "return 1 + 1;"}))["result"] == 2
        direct = await session.call_tool("gh__list_issues", {"repo": "app"})
        assert direct.structuredContent["issues"] == ISSUES


@pytest.mark.anyio
async def test_a_script_sees_no_host_objects(hub_factory, mcp_connect, tmp_path):
    hub = hub_factory(code_config(tmp_path))
    code = """
const names = ["require", "process", "fetch", "XMLHttpRequest", "WebSocket", "setTimeout",
  "setInterval", "std", "os", "Deno", "Bun", "module", "globalThis.__sbCall"];
const seen = names.map(n => { try { return typeof eval(n); } catch (e) { return "undefined"; } });
let imported;
try { await import("os"); imported = "yes"; } catch (e) { imported = "no"; }
return {seen, imported, json: typeof JSON.parse, date: typeof Date.now()};
"""
    async with mcp_connect(hub.url) as session:
        content = ok(await session.call_tool(RUN, {"code": code}))
    assert content["result"] == {"seen": ["undefined"] * 13, "imported": "no",
                                 "json": "function", "date": "number"}


@pytest.mark.anyio
async def test_a_profiles_script_reaches_only_its_servers(hub_factory, mcp_connect, tmp_path):
    cfg = code_config(tmp_path)
    cfg["settings"]["toolMode"] = "all"
    cfg["profiles"] = {"issues": {"servers": ["gh"], "toolMode": "code"}}
    hub = hub_factory(cfg)
    code = """
const mine = await tools.gh.list_issues({repo: "app", label: "bug"});
let other;
try { await tools.chat.post_message({channel: "x", text: "y"}); other = "reached"; }
catch (e) { other = e.message; }
return {bugs: mine.issues.length, other};
"""
    async with mcp_connect(f"{hub.base}/profiles/issues/mcp") as session:
        assert RUN in [t.name for t in (await session.list_tools()).tools]
        content = ok(await session.call_tool(RUN, {"code": code}))
    assert content["result"]["bugs"] == 2
    assert "unknown tool 'chat__post_message'" in content["result"]["other"]
    assert not (tmp_path / "chat-counts.json").exists(), "chat was never started"
    async with mcp_connect(hub.url) as session:
        assert RUN not in [t.name for t in (await session.list_tools()).tools]


@pytest.mark.anyio
async def test_a_held_tool_is_refused_inside_a_script(hub_factory, mcp_connect, tmp_path):
    poisoned, _ = server(tmp_path, "p", {"tools": []}, "--poisoned")
    hub = hub_factory({"mcpServers": {"p": poisoned}, "settings": {"toolMode": "code"}})
    code = """
let held;
try { await tools.p.add({a: 1, b: 2}); held = "called"; } catch (e) { held = e.message; }
const clean = await tools.p.clean_echo({text: "hi"});
return {held, clean};
"""
    async with mcp_connect(hub.url) as session:
        await session.list_tools()  # lists p, whose poisoned tools are held
        content = ok(await session.call_tool(RUN, {"code": code}))
    assert "is held" in content["result"]["held"], content
    assert content["result"]["clean"] == "hi"
    assert [(c["name"], c["ok"]) for c in content["calls"]] == [
        ("p__add", False), ("p__clean_echo", True)]


def initializes(counter: Path) -> int:
    return json.loads(counter.read_text())["initialize"] if counter.exists() else 0


@pytest.mark.anyio
async def test_only_the_servers_a_script_calls_are_started(hub_factory, mcp_connect, tmp_path):
    entries, counters = {}, {}
    for name in ["a", "b", "c", "d"]:
        spec = {"tools": [{"name": "get", "description": f"Get a thing of {name}.",
                           "behavior": "data", "responses": [{"result": {"from": name}}]}]}
        entries[name], counters[name] = server(tmp_path, name, spec)
    cfg = {"mcpServers": entries, "settings": {"toolMode": "code"}}
    env = {"SWITCHBOARD_CACHE_DIR": str(tmp_path / "cache")}
    first = hub_factory(cfg, env=env)
    async with mcp_connect(first.url) as session:
        await session.list_tools()  # lists every server into the warm catalog
    assert all(initializes(c) == 1 for c in counters.values())
    first.stop()
    for counter in counters.values():
        counter.unlink()

    second = hub_factory(cfg, env=env)
    code = """
const a = await tools.a.get({});
const name = ["d"].join("");
const d = await tools[name].get({});
if (a.from === "never") { await tools.b.get({}); }
return [a.from, d.from];
"""
    async with mcp_connect(second.url) as session:
        content = ok(await session.call_tool(RUN, {"code": code}))
    assert content["result"] == ["a", "d"]
    # a was named and called, d only called (started on its call), b named but never
    # called (started early, as every statically named server is), c never named.
    assert initializes(counters["a"]) == 1
    assert initializes(counters["d"]) == 1
    eventually(lambda: initializes(counters["b"]) == 1, "b started before the script ran")
    assert not counters["c"].exists(), "c was started although no script names it"


def test_the_interpreter_helper_contains_itself_before_it_runs_a_script():
    """`switchboard __run-code` as the hub starts it: its first line says how it is contained
    (on Linux: a network namespace and Landlock with no file access), then it runs one script."""
    import subprocess
    import sys

    from conftest import switchboard_bin

    run = {"type": "run", "code": "return [1 + 1, typeof fetch];", "timeoutMs": 5000,
           "memoryBytes": 16 << 20}
    done = subprocess.run([str(switchboard_bin()), "__run-code"], input=json.dumps(run) + "\n",
                          capture_output=True, text=True, timeout=30, check=True)
    ready, answer = [json.loads(line) for line in done.stdout.splitlines()]
    assert ready["type"] == "ready"
    if sys.platform == "linux":
        assert ready["contained"] is True, ready
        assert "network namespace" in ready["mechanism"] and "Landlock" in ready["mechanism"]
    assert answer == {"type": "done", "result": [2, "undefined"]}


@pytest.mark.anyio
async def test_cancelling_a_run_cancels_its_calls_in_flight(hub_factory, mcp_connect, tmp_path):
    import anyio

    hub = hub_factory(code_config(tmp_path))
    in_flight = anyio.Event()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        in_flight.set()  # the script's nap reports progress: it is under way

    async with mcp_connect(hub.url) as session:
        request_id = session._request_id  # the id the next request gets
        async with anyio.create_task_group() as group:
            async def run() -> None:
                await session.call_tool(RUN, {"code": "await tools.gh.nap({ms: 60000});\nreturn 1;"},
                                        progress_callback=on_progress)
            group.start_soon(run)
            with anyio.fail_after(20):
                await in_flight.wait()
            await session.send_notification(types.ClientNotification(types.CancelledNotification(
                params=types.CancelledNotificationParams(requestId=request_id, reason="test"))))

            def ended():
                calls = activity(hub)
                runs = [c for c in calls if c["name"] == RUN]
                naps = [c for c in calls if c["name"] == "gh__nap"]
                return (runs, naps) if runs and naps else None
            # Polled without blocking the loop: the client's tasks must send the cancellation.
            with anyio.fail_after(15):
                while (found := ended()) is None:
                    await anyio.sleep(0.05)
            runs, naps = found
            group.cancel_scope.cancel()
    assert naps[0]["run"] == runs[0]["run"]
    assert naps[0]["outcome"] == "cancelled", naps
    assert runs[0]["outcome"] == "cancelled", runs
