"""A real published server under the standard sandbox profile (issue #29), started the way
people start it: ``npx -y @modelcontextprotocol/server-filesystem@<version> <folder>``.

The hub gets a home directory of its own with a canary in ``~/.ssh`` and hands the whole home
to server-filesystem as its allowed folder, so the server's own access rules would let it read
the canary: only the sandbox can refuse. The control is the same server with ``sandbox: false``.
npx keeps its cache in the machine's real npm cache (``npm_config_cache``), which is not one
of this home's secret places.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from conftest import missing

FILESYSTEM_PKG = "@modelcontextprotocol/server-filesystem@2026.8.31"


def npx() -> str:
    found = shutil.which("npx")
    if not found:
        missing("npx not found")
    return str(found)


def home_with_secrets(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_canary").write_text("SSH-CANARY")
    (home / "notes").mkdir()
    (home / "notes" / "todo.txt").write_text("buy milk")
    return home


def server(home: Path, sandbox: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "command": npx(),
        "args": ["-y", FILESYSTEM_PKG, str(home)],
        "env": {"npm_config_cache": str(Path.home() / ".npm")},
    }
    if sandbox is not None:
        entry["sandbox"] = sandbox
    return entry


def status(hub: Any) -> dict[str, Any]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"{hub.base}/api/v1/status", timeout=10) as answer:
        return json.load(answer)


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@pytest.mark.anyio
async def test_server_filesystem_from_npx_runs_sandboxed_and_cannot_read_ssh(
        tmp_path: Path, hub_factory: Any, mcp_connect: Any) -> None:
    home = home_with_secrets(tmp_path)
    real_home = os.environ.get("HOME", str(Path.home()))
    hub = hub_factory(
        {"mcpServers": {"fs": server(home, None), "open": server(home, False)},
         "settings": {"startupTimeoutSecs": 120, "callTimeoutSecs": 120}},
        env={"HOME": str(home), "npm_config_cache": str(Path(real_home) / ".npm")},
    )
    async with mcp_connect(hub.url) as session:
        notes = str(home / "notes" / "todo.txt")
        canary = str(home / ".ssh" / "id_canary")

        # The control: server-filesystem itself allows the whole home.
        control = await session.call_tool("open__read_text_file", {"path": canary})
        assert not control.isError, text_of(control)
        assert "SSH-CANARY" in text_of(control)

        # Sandboxed: an ordinary file reads as before; the canary does not.
        ok = await session.call_tool("fs__read_text_file", {"path": notes})
        assert not ok.isError, text_of(ok)
        assert "buy milk" in text_of(ok)
        refused = await session.call_tool("fs__read_text_file", {"path": canary})
        assert refused.isError, text_of(refused)
        assert "SSH-CANARY" not in text_of(refused)

        written = await session.call_tool(
            "fs__write_file", {"path": str(home / "notes" / "new.txt"), "content": "hello"})
        assert not written.isError, text_of(written)
        assert (home / "notes" / "new.txt").read_text() == "hello"

    servers = {s["id"]: s for s in status(hub)["servers"]}
    sandbox = servers["fs"]["sandbox"]
    assert sandbox["profile"] == "standard", sandbox
    assert sandbox["enforced"] is True, sandbox
    assert servers["open"]["sandbox"]["profile"] == "off"
