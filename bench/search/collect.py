#!/usr/bin/env python3
"""Regenerates bench/search/catalog.json: the tool lists of real published MCP servers.

A MANUAL step (it needs the npm registry and PyPI; the test command never runs it):

    python3 bench/search/collect.py /tmp/rank-eval

installs every server below into that scratch directory (npm packages under
<dir>/npm, PyPI packages in the venv <dir>/venv, which also gets the `mcp` SDK),
starts each one over stdio with the Python `mcp` client, saves its `tools/list`
result and writes the combined catalog, recording each server's package and
version. Servers that need an account are given dummy credentials: they only
have to list their tools, never call anything.
"""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

# id, registry, package, command (relative to the install), extra args, env
SERVERS = [
    ("filesystem", "npm", "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem", ["{scratch}/fsroot"], {}),
    ("memory", "npm", "@modelcontextprotocol/server-memory", "mcp-server-memory", [], {"MEMORY_FILE_PATH": "{scratch}/memory.json"}),
    ("everything", "npm", "@modelcontextprotocol/server-everything", "mcp-server-everything", ["stdio"], {}),
    ("thinking", "npm", "@modelcontextprotocol/server-sequential-thinking", "mcp-server-sequential-thinking", [], {}),
    ("github", "npm", "@modelcontextprotocol/server-github", "mcp-server-github", [], {"GITHUB_PERSONAL_ACCESS_TOKEN": "dummy"}),
    ("gitlab", "npm", "@modelcontextprotocol/server-gitlab", "mcp-server-gitlab", [], {"GITLAB_PERSONAL_ACCESS_TOKEN": "dummy"}),
    ("slack", "npm", "@modelcontextprotocol/server-slack", "mcp-server-slack", [], {"SLACK_BOT_TOKEN": "dummy", "SLACK_TEAM_ID": "T0"}),
    ("postgres", "npm", "@modelcontextprotocol/server-postgres", "mcp-server-postgres", ["postgresql://127.0.0.1:1/none"], {}),
    ("puppeteer", "npm", "@modelcontextprotocol/server-puppeteer", "mcp-server-puppeteer", [], {}),
    ("brave", "npm", "@modelcontextprotocol/server-brave-search", "mcp-server-brave-search", [], {"BRAVE_API_KEY": "dummy"}),
    ("maps", "npm", "@modelcontextprotocol/server-google-maps", "mcp-server-google-maps", [], {"GOOGLE_MAPS_API_KEY": "dummy"}),
    ("everart", "npm", "@modelcontextprotocol/server-everart", "mcp-server-everart", [], {"EVERART_API_KEY": "dummy"}),
    ("awskb", "npm", "@modelcontextprotocol/server-aws-kb-retrieval", "mcp-server-aws-kb-retrieval", [], {"AWS_ACCESS_KEY_ID": "dummy", "AWS_SECRET_ACCESS_KEY": "dummy", "AWS_REGION": "us-east-1"}),
    ("playwright", "npm", "@playwright/mcp", "playwright-mcp", [], {}),
    ("notion", "npm", "@notionhq/notion-mcp-server", "notion-mcp-server", [], {"NOTION_TOKEN": "dummy"}),
    ("kubernetes", "npm", "mcp-server-kubernetes", "mcp-server-kubernetes", [], {}),
    ("desktop", "npm", "@wonderwhy-er/desktop-commander", "desktop-commander", [], {}),
    ("tavily", "npm", "tavily-mcp", "tavily-mcp", [], {"TAVILY_API_KEY": "dummy"}),
    ("firecrawl", "npm", "firecrawl-mcp", "firecrawl-mcp", [], {"FIRECRAWL_API_KEY": "dummy"}),
    ("fetch", "pypi", "mcp-server-fetch", "mcp-server-fetch", [], {}),
    ("time", "pypi", "mcp-server-time", "mcp-server-time", ["--local-timezone", "UTC"], {}),
    ("git", "pypi", "mcp-server-git", "mcp-server-git", ["--repository", "{scratch}/repo"], {}),
    ("sqlite", "pypi", "mcp-server-sqlite", "mcp-server-sqlite", ["--db-path", "{scratch}/eval.db"], {}),
    # Added in issue #32 (collected with ONLY=... so the servers above kept their versions).
    ("context7", "npm", "@upstash/context7-mcp", "context7-mcp", [], {}),
    ("mongodb", "npm", "mongodb-mcp-server", "mongodb-mcp-server", [], {}),
    ("exa", "npm", "exa-mcp-server", "exa-mcp-server", [], {"EXA_API_KEY": "dummy"}),
    ("supabase", "npm", "@supabase/mcp-server-supabase", "mcp-server-supabase", ["--access-token", "dummy"], {}),
    ("stripe", "npm", "@stripe/mcp", "mcp", ["--tools=all", "--api-key=sk_test_dummy"], {}),
    ("figma", "npm", "figma-developer-mcp", "figma-developer-mcp", ["--stdio", "--figma-api-key=dummy"], {}),
    ("airtable", "npm", "airtable-mcp-server", "airtable-mcp-server", [], {"AIRTABLE_API_KEY": "dummy"}),
    ("redis", "npm", "@modelcontextprotocol/server-redis", "mcp-server-redis", ["redis://127.0.0.1:1"], {}),
    ("linear", "npm", "linear-mcp-server", "linear-mcp-server", [], {"LINEAR_API_KEY": "dummy"}),
    ("sentry", "npm", "@sentry/mcp-server", "sentry-mcp", ["--access-token=dummy"], {}),
    ("duckduckgo", "pypi", "duckduckgo-mcp-server", "duckduckgo-mcp-server", [], {}),
    ("arxiv", "pypi", "arxiv-mcp-server", "arxiv-mcp-server", ["--storage-path", "{scratch}/arxiv"], {}),
    ("obsidian", "pypi", "mcp-obsidian", "mcp-obsidian", [], {"OBSIDIAN_API_KEY": "dummy"}),
]

# Servers built on the 1.x `mcp` SDK (its low-level decorators are gone in 2.x):
# installed with mcp-server-sqlite into the older venv.
OLD_SDK = {"sqlite", "arxiv", "obsidian"}

# ONLY=id,id collects just those servers and merges them into the existing catalog.
ONLY = {s for s in os.environ.get("ONLY", "").split(",") if s}
if ONLY:
    SERVERS = [s for s in SERVERS if s[0] in ONLY]


def install(scratch: Path) -> None:
    npm = scratch / "npm"
    npm.mkdir(parents=True, exist_ok=True)
    if not (npm / "package.json").exists():
        (npm / "package.json").write_text('{"name": "eval", "private": true}\n')
    packages = [s[2] for s in SERVERS if s[1] == "npm"]
    env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", *packages], cwd=npm, env=env, check=True)
    venv = scratch / "venv"
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pypi = [s[2] for s in SERVERS if s[1] == "pypi" and s[0] not in OLD_SDK]
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "mcp", *pypi], check=True)
    # mcp-server-sqlite (last released 2025-04) needs an older SDK than the others.
    old = scratch / "venv-sqlite"
    older = [s[2] for s in SERVERS if s[0] in OLD_SDK]
    if older and not old.exists():
        subprocess.run([sys.executable, "-m", "venv", str(old)], check=True)
    if older:
        subprocess.run([str(old / "bin" / "pip"), "install", "-q", "mcp<1.10", "pydantic<2.11", *older], check=True)
    (scratch / "fsroot").mkdir(exist_ok=True)
    repo = scratch / "repo"
    if not (repo / ".git").exists():
        repo.mkdir(exist_ok=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)


def version(scratch: Path, registry: str, package: str) -> str:
    if registry == "npm":
        manifest = scratch / "npm" / "node_modules" / package / "package.json"
        return json.loads(manifest.read_text())["version"]
    venv = "venv-sqlite" if any(s[2] == package and s[0] in OLD_SDK for s in SERVERS) else "venv"
    out = subprocess.run(
        [str(scratch / venv / "bin" / "python"), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True, text=True, check=True,
    )
    return out.stdout.strip()


async def list_tools(command: str, args: list, env: dict) -> list:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command, args=args, env=dict(os.environ, **env))
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                page = await session.list_tools()
                tools = list(page.tools)
                while getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None):
                    cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
                    page = await session.list_tools(cursor=cursor)
                    tools.extend(page.tools)
    def schema(tool):  # the SDK's field name changed between major versions
        return getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}

    return [{"name": t.name, "description": t.description or "", "inputSchema": schema(t)} for t in tools]


async def collect(scratch: Path) -> dict:
    servers = {}
    for sid, registry, package, command, args, env in SERVERS:
        if registry == "npm":
            binary = scratch / "npm" / "node_modules" / ".bin" / command
        else:
            binary = scratch / ("venv-sqlite" if sid in OLD_SDK else "venv") / "bin" / command
        args = [a.format(scratch=scratch) for a in args]
        env = {k: v.format(scratch=scratch) for k, v in env.items()}
        try:
            tools = await asyncio.wait_for(list_tools(str(binary), args, env), 90)
        except Exception as err:  # a server that does not start is reported and left out
            print(f"{sid}: failed: {err!r}", file=sys.stderr)
            continue
        servers[sid] = {
            "registry": registry,
            "package": package,
            "version": version(scratch, registry, package),
            "tools": tools,
        }
        print(f"{sid}: {len(tools)} tools", file=sys.stderr)
    return servers


def main() -> None:
    scratch = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rank-eval").resolve()
    if os.environ.get("SKIP_INSTALL") != "1":
        install(scratch)
    # The SDK lives in the scratch venv; re-run there if this interpreter lacks it.
    try:
        import mcp  # noqa: F401
    except ImportError:
        python = scratch / "venv" / "bin" / "python"
        os.execve(str(python), [str(python), __file__, str(scratch)], dict(os.environ, SKIP_INSTALL="1"))
    servers = asyncio.run(collect(scratch))
    out = Path(__file__).with_name("catalog.json")
    if ONLY:
        servers = dict(json.loads(out.read_text())["servers"], **servers)
    out.write_text(json.dumps({"servers": servers}, indent=1, sort_keys=True) + "\n")
    total = sum(len(s["tools"]) for s in servers.values())
    print(f"{len(servers)} servers, {total} tools -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
