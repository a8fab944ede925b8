#!/usr/bin/env python3
"""Code mode's benchmark (issue #31), a manual step:

    .tools/venv/bin/python bench/codemode/run.py <directory of switchboard and switchboard-fixture> [rounds]

One hub serves the 33 servers of `bench/search/catalog.json` (353 real tool definitions), each a
`switchboard-fixture` that answers the task suite's tools with the deterministic data of
`tasks.py`: `/mcp` in `all` mode, profile `search` in search mode and profile `code` in code
mode, over the same servers. For each task and mode the scripted transcript is run against it
with the `mcp` SDK; every message the model reads (the `tools/list` result, each call it makes
and each result's text) is counted with o200k (`switchboard __count-tokens`), once each: a
transcript's size, not a re-read context. The answers of the three modes must equal the task's
expected answer (computed from the data without the hub).

Then the cost: `switchboard__run_code` with `return 1` (start of the interpreter; p50/p99 over
`rounds` runs), a script making 20 sequential calls against 20 direct calls of the same tool
(per inner call, p50), all from one client on the same machine.

Writes `bench/codemode/results.json` and prints the tables docs/benchmarks.md shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tasks as suite  # noqa: E402

from mcp import ClientSession  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

READY = re.compile(r"^Switchboard listening on (http://127\.0\.0\.1:\d+)/mcp$")
SEARCH = "switchboard__search_tools"
CALL = "switchboard__call_tool"
RUN = "switchboard__run_code"
SEARCH_LIMIT = 3


def fixture_spec(server: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    specs = []
    for tool in tools:
        spec = {"name": tool["name"], "description": tool.get("description"),
                "inputSchema": tool["inputSchema"]}
        if tool.get("outputSchema"):
            spec["outputSchema"] = tool["outputSchema"]
        if (server, tool["name"]) in suite.WRITES:
            spec["behavior"] = "structured"
        else:
            spec["behavior"] = "data"
            spec["responses"] = [{"when": when, "result": result}
                                 for when, result in suite.DATA.get((server, tool["name"]), [])]
        specs.append(spec)
    return {"tools": specs}


def config(bin_dir: Path, work: Path) -> dict[str, Any]:
    catalog = json.loads((HERE.parent / "search" / "catalog.json").read_text())["servers"]
    servers = {}
    for name, entry in catalog.items():
        path = work / f"{name}.json"
        path.write_text(json.dumps(fixture_spec(name, entry["tools"])))
        servers[name] = {"command": str(bin_dir / "switchboard-fixture"), "args": ["--spec", str(path)]}
    every = sorted(servers)
    return {"mcpServers": servers,
            "settings": {"toolMode": "all", "toolPinning": "off", "callTimeoutSecs": 30},
            "profiles": {"search": {"servers": every, "toolMode": "search"},
                         "code": {"servers": every, "toolMode": "code"}}}


def value_of(result: Any) -> Any:
    """What a model takes from a result: its structured content, else its text (parsed)."""
    if result.isError:
        raise RuntimeError(f"tool error: {result.content}")
    if result.structuredContent is not None:
        return result.structuredContent
    text = "\n".join(c.text for c in result.content if c.type == "text")
    try:
        return json.loads(text)
    except ValueError:
        return text


def read_text(result: Any) -> str:
    """The result as the model reads it: its text content."""
    return "\n".join(c.text for c in result.content if c.type == "text")


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def offline_expected(task: suite.Task) -> Any:
    """The task's answer from the data alone, without the hub."""
    def call(name: str, args: dict[str, Any]) -> Any:
        server, tool = name.split("__", 1)
        if (server, tool) in suite.WRITES:
            return args
        for when, result in suite.DATA.get((server, tool), []):
            if all(args.get(k) == v for k, v in when.items()):
                return result
        raise KeyError(f"no data for {name} {args}")
    return json.loads(json.dumps(task.plan(call)))


async def session_to(stack: contextlib.AsyncExitStack, url: str) -> ClientSession:
    read, write, _ = await stack.enter_async_context(streamable_http_client(url))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def transcript(session: ClientSession, mode: str, task: suite.Task) -> tuple[list[str], Any]:
    """The texts a model reads for `task` in `mode` (tools/list left out) and the answer."""
    texts: list[str] = []
    if mode in ("search", "code"):
        for query in task.find:
            args = {"query": query, "limit": SEARCH_LIMIT}
            texts.append(compact({"name": SEARCH, "arguments": args}))
            texts.append(read_text(await session.call_tool(SEARCH, args)))
    if mode == "code":
        args = {"code": task.script}
        texts.append(compact({"name": RUN, "arguments": args}))
        result = await session.call_tool(RUN, args)
        texts.append(read_text(result))
        if result.isError:
            raise RuntimeError(f"{task.id}: {read_text(result)}")
        return texts, result.structuredContent["result"]
    pending: list[tuple[str, dict[str, Any]]] = []

    def record(name: str, args: dict[str, Any]) -> None:
        if mode == "search":
            texts.append(compact({"name": CALL, "arguments": {"name": name, "arguments": args}}))
        else:
            texts.append(compact({"name": name, "arguments": args}))

    # The plan is synchronous (a model's turns): it is replayed from the start with the
    # results so far until it needs no new call; each new call is made as it comes.
    loop_results: dict[int, Any] = {}
    answers: list[Any] = []
    while True:
        made = 0

        def replay(name: str, args: dict[str, Any]) -> Any:
            nonlocal made
            index = made
            made += 1
            if index in loop_results:
                return loop_results[index]
            pending.append((name, args))
            raise _NeedCall(index)
        try:
            answers.append(task.plan(replay))
            break
        except _NeedCall as need:
            name, args = pending[-1]
            record(name, args)
            if mode == "search":
                result = await session.call_tool(CALL, {"name": name, "arguments": args})
            else:
                result = await session.call_tool(name, args)
            texts.append(read_text(result))
            loop_results[need.index] = value_of(result)
    return texts, json.loads(json.dumps(answers[0]))


class _NeedCall(Exception):
    def __init__(self, index: int) -> None:
        self.index = index


def count_tokens(bin_dir: Path, texts: list[str]) -> list[int]:
    lines = [t.replace("\n", " ") for t in texts]
    done = subprocess.run([str(bin_dir / "switchboard"), "__count-tokens"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, check=True)
    return [int(n) for n in done.stdout.split()]


def tools_list_text(listed: Any) -> str:
    return compact(listed.model_dump(by_alias=True, exclude_none=True, mode="json"))


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def timed(coro) -> float:
    start = time.perf_counter()
    result = await coro
    took = (time.perf_counter() - start) * 1000
    if getattr(result, "isError", False):
        raise RuntimeError(read_text(result))
    return took


async def main() -> None:
    bin_dir = Path(sys.argv[1]).resolve()
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "config.json").write_text(json.dumps(config(bin_dir, work)))
        env = {**os.environ, "SWITCHBOARD_CACHE_DIR": str(work / "cache"), "SWITCHBOARD_BUILTIN_TOOLS": "0"}
        hub = subprocess.Popen([str(bin_dir / "switchboard"), "serve", "--config", str(work / "config.json"),
                                "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=open(work / "hub.log", "wb"),
                               env=env, text=True)
        try:
            base = None
            assert hub.stdout is not None
            for line in hub.stdout:
                m = READY.match(line.strip())
                if m:
                    base = m.group(1)
                    break
            assert base, "the hub did not start"
            await run_all(bin_dir, base, rounds)
        finally:
            hub.terminate()
            hub.wait(timeout=30)


async def run_all(bin_dir: Path, base: str, rounds: int) -> None:
    urls = {"all": f"{base}/mcp", "search": f"{base}/profiles/search/mcp", "code": f"{base}/profiles/code/mcp"}
    async with contextlib.AsyncExitStack() as stack:
        sessions = {mode: await session_to(stack, url) for mode, url in urls.items()}
        listed = {}
        for mode, session in sessions.items():
            listed[mode] = tools_list_text(await session.list_tools())
        rows = []
        for task in suite.TASKS:
            expected = offline_expected(task)
            row: dict[str, Any] = {"id": task.id, "prompt": task.prompt, "expected": expected}
            for mode, session in sessions.items():
                texts, answer = await transcript(session, mode, task)
                assert answer == expected, f"{task.id} in {mode}: {answer!r} != {expected!r}"
                row[mode] = {"texts": [listed[mode], *texts]}
            rows.append(row)
        # Count every text at once (one helper run).
        flat = [t for row in rows for mode in urls for t in row[mode]["texts"]]
        counts = iter(count_tokens(bin_dir, flat))
        for row in rows:
            for mode in urls:
                tokens = [next(counts) for _ in row[mode]["texts"]]
                row[mode] = {"tokens": sum(tokens), "listTokens": tokens[0], "messages": len(tokens) - 1}
        cost = await measure_cost(sessions, rounds)
    totals = {mode: sum(r[mode]["tokens"] for r in rows) for mode in urls}
    out = {"tasks": rows, "totals": totals, "cost": cost, "searchLimit": SEARCH_LIMIT}
    (HERE / "results.json").write_text(json.dumps(out, indent=1) + "\n")
    print("| task | all | search | code | code/all | code/search |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        a, s, c = (r[m]["tokens"] for m in ("all", "search", "code"))
        print(f"| {r['id']} | {a} | {s} | {c} | {100 * c / a:.1f}% | {100 * c / s:.1f}% |")
    a, s, c = totals["all"], totals["search"], totals["code"]
    print(f"| **total** | {a} | {s} | {c} | {100 * c / a:.1f}% | {100 * c / s:.1f}% |")
    ex = {m: (rows[0][m]["listTokens"]) for m in urls}
    print(f"tools/list tokens per transcript: {ex}")
    print(json.dumps(cost, indent=1))


async def measure_cost(sessions: dict[str, Any], rounds: int) -> dict[str, Any]:
    code = sessions["code"]
    direct = sessions["all"]
    tool, args = "time__get_current_time", {"timezone": "Europe/Berlin"}
    for _ in range(5):  # warm up: the time server starts, caches fill
        await timed(code.call_tool(RUN, {"code": "return 1"}))
        await timed(direct.call_tool(tool, args))
    empty = [await timed(code.call_tool(RUN, {"code": "return 1"})) for _ in range(rounds)]
    calls = [await timed(direct.call_tool(tool, args)) for _ in range(rounds)]
    script = ("for (let i = 0; i < 20; i++) await tools.time.get_current_time("
              + json.dumps(args) + "); return 1;")
    twenty = [await timed(code.call_tool(RUN, {"code": script})) for _ in range(max(10, rounds // 5))]
    per_inner = (statistics.median(twenty) - statistics.median(empty)) / 20
    return {
        "runCodeEmptyMs": {"p50": round(statistics.median(empty), 2), "p99": round(pct(empty, 0.99), 2)},
        "directCallMs": {"p50": round(statistics.median(calls), 2), "p99": round(pct(calls, 0.99), 2)},
        "script20CallsMs": {"p50": round(statistics.median(twenty), 2), "p99": round(pct(twenty, 0.99), 2)},
        "perInnerCallMs": round(per_inner, 3),
        "rounds": rounds,
    }


if __name__ == "__main__":
    asyncio.run(main())
