"""The real Gemini CLI, pointed at the hub by `switchboard connect gemini`, gets the hub's tools.

Gemini CLI's bundled SDK speaks 2025-06-18 over Streamable HTTP and parses the data of every
event as JSON; the empty priming event the hub used to send first on its streams made its
discovery fail ("SyntaxError: Unexpected end of JSON input") while `gemini mcp list` still said
Connected (issue #27, item 12). No account is needed: the CLI runs one prompt (`-p`) with a
made-up API key against a stand-in for the Gemini API on 127.0.0.1
(`GOOGLE_GEMINI_BASE_URL`), which records each request and answers "ok". The first request
carries the tools the CLI discovered as function declarations; the hub's are there under
Gemini's `mcp_<server>_<tool>` names. `--yolo`: without it a non-interactive run leaves out
every tool that would ask for confirmation, MCP tools among them.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import fixture_bin, missing, switchboard_bin

# Gemini CLI starts Node and its MCP clients; generous, and only a safety net.
RUN_TIMEOUT_S = 120


def gemini_bin() -> str:
    path = os.environ.get("SWITCHBOARD_TEST_GEMINI")
    if not path or not os.access(path, os.X_OK):
        missing("SWITCHBOARD_TEST_GEMINI is not set or not executable (scripts/test.sh installs "
                "@google/gemini-cli into .tools/gemini)")
    assert path is not None
    return path


class StandInApi:
    """The Gemini API as far as one prompt needs it: records request bodies, answers "ok"."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                try:
                    api.requests.append(json.loads(body))
                except ValueError:
                    api.requests.append({"unparsed": body.decode(errors="replace")})
                answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
                                          "finishReason": "STOP"}]}
                if "alt=sse" in self.path:
                    payload = f"data: {json.dumps(answer)}\r\n\r\n".encode()
                    content_type = "text/event-stream"
                else:
                    payload = json.dumps(answer).encode()
                    content_type = "application/json"
                self.send_response(200)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def declared_functions(self) -> set[str]:
        names: set[str] = set()
        for request in self.requests:
            for tool in request.get("tools", []):
                for declaration in tool.get("functionDeclarations", []):
                    names.add(declaration["name"])
        return names


@pytest.fixture
def stand_in_api() -> Iterator[StandInApi]:
    api = StandInApi()
    yield api
    api.close()


def test_gemini_cli_gets_the_hubs_tools(hub_factory: Any, stand_in_api: StandInApi,
                                        tmp_path: Path) -> None:
    gemini = gemini_bin()
    hub = hub_factory({"mcpServers": {
        "a": {"command": str(fixture_bin()), "args": ["--tools", "echo,add"]},
    }})
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    # Exactly what a user runs: the hub writes Gemini's settings itself.
    connect = subprocess.run(
        [str(switchboard_bin()), "connect", "gemini", "--url", hub.base],
        env=env, capture_output=True, text=True, timeout=60, check=False)
    assert connect.returncode == 0, connect.stderr
    settings_path = home / ".gemini" / "settings.json"
    settings = json.loads(settings_path.read_text())
    assert settings["mcpServers"]["switchboard"] == {"httpUrl": hub.url}, settings
    # An API key sign-in (made up: the API is the stand-in) and no folder-trust prompt.
    settings.setdefault("security", {})["auth"] = {"selectedType": "gemini-api-key"}
    settings["security"]["folderTrust"] = {"enabled": False}
    settings_path.write_text(json.dumps(settings))

    run = subprocess.run(
        [gemini, "--yolo", "-m", "gemini-2.5-flash", "-p", "hi"],
        cwd=project, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
        env={**env, "GEMINI_API_KEY": "not-a-real-key", "GOOGLE_GEMINI_BASE_URL": stand_in_api.url,
             "GEMINI_CLI_NO_RELAUNCH": "true", "NO_COLOR": "1"})
    declared = stand_in_api.declared_functions()
    assert {"mcp_switchboard_a__echo", "mcp_switchboard_a__add"} <= declared, (
        f"Gemini CLI did not offer the hub's tools; it declared {sorted(declared)}\n"
        f"exit {run.returncode}\nstderr:\n{run.stderr[-4000:]}\nhub log:\n{hub.log()[-4000:]}")
    assert "Unexpected end of JSON input" not in run.stderr
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.stdout.strip() == "ok", run.stdout
