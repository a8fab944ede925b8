#!/usr/bin/env python3
"""Measures issue #32's budgets that need a running hub (a MANUAL step):

    .tools/venv/bin/python bench/search/warm_latency.py <switchboard binary> [rounds]

1. **First call after a search, with and without `warmOnSearch`.** A hub in
   search mode with one real npx server (`npx --yes
   @modelcontextprotocol/server-everything stdio`) is run once so that the
   server is listed into the warm catalog, then stopped. Each round starts a
   fresh hub on that catalog (nothing running), searches for "add two
   numbers together" over MCP, and times the `switchboard__call_tool` of the
   best hit (`everything__get-sum`) that follows at once: with
   `warmOnSearch: true` the search has already started the server, with
   `false` the call has to start it.
2. **Idle RSS.** VmRSS of a fresh hub that has not searched (after its
   listener is up and the process settled: read until two reads 200 ms apart
   agree), then after its first search.

Prints one line per figure; docs/benchmarks.md has the results.
"""

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client

READY = re.compile(r"^Switchboard listening on (http://127\.0\.0\.1:\d+)/mcp$")
SERVER = {"command": "npx", "args": ["--yes", "@modelcontextprotocol/server-everything", "stdio"]}
QUERY = "add two numbers together"


def start(binary: str, cfg: dict, cache: Path, work: Path) -> tuple[subprocess.Popen, str]:
    path = work / "config.json"
    path.write_text(json.dumps(cfg))
    env = dict(os.environ, SWITCHBOARD_CACHE_DIR=str(cache), SWITCHBOARD_BUILTIN_TOOLS="0")
    proc = subprocess.Popen(
        [binary, "serve", "--config", str(path), "--listen", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=open(work / "hub.log", "ab"), env=env, text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        m = READY.match(line.strip())
        if m:
            return proc, m.group(1)
    raise RuntimeError(f"the hub exited: {(work / 'hub.log').read_text()[-2000:]}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    proc.wait(timeout=30)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def settled_rss(pid: int) -> int:
    last = rss_kib(pid)
    while True:
        time.sleep(0.2)
        now = rss_kib(pid)
        if now == last:
            return now
        last = now


async def session_do(url: str, work):
    async with streamablehttp_client(url) as (read, write, _):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return await work(session)


def config(warm: bool) -> dict:
    return {"mcpServers": {"everything": SERVER},
            "settings": {"toolMode": "search", "warmOnSearch": warm}}


async def search_then_call(session: ClientSession) -> float:
    found = await session.call_tool("switchboard__search_tools", {"query": QUERY})
    best = found.structuredContent["tools"][0]["name"]
    assert best == "everything__get-sum", best
    started = time.perf_counter()
    result = await session.call_tool("switchboard__call_tool", {"name": best, "arguments": {"a": 2, "b": 3}})
    elapsed = time.perf_counter() - started
    assert not result.isError, result
    return elapsed


def main() -> None:
    binary = str(Path(sys.argv[1]).resolve())
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = tmp / "cache"
        # List the server once into the warm catalog (also fills npx's cache).
        # (In "all" mode, whose tools/list lists every server and waits for it.)
        proc, base = start(binary, dict(config(True), settings={"toolMode": "all"}), cache, tmp)

        async def listed(session):
            tools = await session.list_tools()
            assert any(t.name == "everything__get-sum" for t in tools.tools), "not listed"

        asyncio.run(session_do(f"{base}/mcp", listed))
        stop(proc)
        for warm in (True, False):
            times = []
            for _ in range(rounds):
                proc, base = start(binary, config(warm), cache, tmp)
                try:
                    times.append(asyncio.run(session_do(f"{base}/mcp", search_then_call)))
                finally:
                    stop(proc)
            print(f"warmOnSearch={str(warm).lower()}: first call after a search, {rounds} rounds: "
                  f"median {1000 * statistics.median(times):.0f} ms, "
                  f"min {1000 * min(times):.0f} ms, max {1000 * max(times):.0f} ms")
        # Idle RSS, then after the first search (warming off: the server's start is not counted).
        proc, base = start(binary, config(False), cache, tmp)
        try:
            idle = settled_rss(proc.pid)

            async def search(session):
                await session.call_tool("switchboard__search_tools", {"query": QUERY})

            asyncio.run(session_do(f"{base}/mcp", search))
            searched = settled_rss(proc.pid)
        finally:
            stop(proc)
        print(f"hub RSS: idle (never searched) {idle / 1024:.1f} MiB, after the first search {searched / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
