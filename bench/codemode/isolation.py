#!/usr/bin/env python3
"""Code mode isolation check (issue #31), a manual step: a hub in code mode runs three memory
bombs and an endless loop; its VmRSS before and after, and a direct call still answers.

    .tools/venv/bin/python bench/codemode/isolation.py
"""
import asyncio, json, os, re, subprocess, sys, tempfile, time
from pathlib import Path
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
B=Path(os.environ.get("SWITCHBOARD_BIN_DIR") or Path(os.environ.get("CARGO_TARGET_DIR", "target")) / "debug")
def rss(pid): return int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{pid}/status").read()).group(1))//1024
async def main():
    d=Path(tempfile.mkdtemp()); cfg={"mcpServers":{"a":{"command":str(B/"switchboard-fixture"),"args":["--tools","echo"]}},"settings":{"toolMode":"code"}}
    (d/"c.json").write_text(json.dumps(cfg))
    p=subprocess.Popen([str(B/"switchboard"),"serve","--config",str(d/"c.json"),"--listen","127.0.0.1:0"],stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,text=True,env={**os.environ,"SWITCHBOARD_CACHE_DIR":str(d/"cache")})
    for line in p.stdout:
        m=re.match(r"Switchboard listening on (\S+)",line.strip())
        if m: url=m.group(1); break
    async with streamable_http_client(url) as (r,w,_):
        async with ClientSession(r,w) as s:
            await s.initialize()
            await s.call_tool("switchboard__run_code",{"code":"return 1"})
            before=rss(p.pid)
            t=time.perf_counter()
            for code in ["const a=[];for(;;)a.push('x'.repeat(4096)+a.length);"]*3+["for(;;){}"]:
                res=await s.call_tool("switchboard__run_code",{"code":code,"timeoutSecs":2})
                print(res.structuredContent["error"]["kind"])
            echo=await s.call_tool("a__echo",{"text":"still here"})
            print(echo.content[0].text, "hub VmRSS MiB before", before, "after 3 memory bombs and an endless loop", rss(p.pid))
    p.terminate(); p.wait()
asyncio.run(main())
