"""Shared fixtures for Switchboard's Python end-to-end tests.

The tests run the real binaries that `cargo build --workspace --bins` produced:

* ``switchboard`` (``switchboard serve --config PATH --listen 127.0.0.1:0``), which prints
  ``Switchboard listening on http://127.0.0.1:<port>/mcp`` on stdout once it is ready;
* ``switchboard-fixture`` (``--http 127.0.0.1:0 --tools ...``), a scriptable fake MCP server
  that prints ``listening on http://127.0.0.1:<port>/mcp`` on stdout once it is ready.

Binaries are looked up in ``$SWITCHBOARD_BIN_DIR``, else ``$CARGO_TARGET_DIR/debug``, else
``target/debug`` at the repository root. When ``SWITCHBOARD_REQUIRE_EXTERNAL`` is set (as
``scripts/test.sh`` does), a missing binary or tool fails the test instead of skipping it.

Only the standard library, pytest and the ``mcp`` SDK are used here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 15.0

HUB_READY_RE = re.compile(r"^Switchboard listening on (http://127\.0\.0\.1:(\d+))/mcp$")
FIXTURE_READY_RE = re.compile(r"^listening on (http://127\.0\.0\.1:(\d+))/mcp$")

EXE_SUFFIX = ".exe" if sys.platform == "win32" else ""


# --------------------------------------------------------------------------------------------
# Locating binaries and external tools
# --------------------------------------------------------------------------------------------


def require_external() -> bool:
    """True when missing binaries/tools must fail tests rather than skip them."""
    return os.environ.get("SWITCHBOARD_REQUIRE_EXTERNAL", "") not in ("", "0")


def missing(message: str) -> None:
    """Fail (under SWITCHBOARD_REQUIRE_EXTERNAL) or skip the current test."""
    if require_external():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def bin_dir() -> Path:
    """Directory holding the built binaries."""
    explicit = os.environ.get("SWITCHBOARD_BIN_DIR")
    if explicit:
        return Path(explicit)
    target = os.environ.get("CARGO_TARGET_DIR")
    if target:
        return Path(target) / "debug"
    return REPO_ROOT / "target" / "debug"


def _binary(name: str) -> Path:
    path = bin_dir() / f"{name}{EXE_SUFFIX}"
    if not (path.is_file() and os.access(path, os.X_OK)):
        missing(f"{name} not found at {path}: run `cargo build --workspace --bins` "
                f"(or set SWITCHBOARD_BIN_DIR)")
    return path


def switchboard_bin() -> Path:
    """Path of the `switchboard` binary (skips/fails the test when it is missing)."""
    return _binary("switchboard")


def fixture_bin() -> Path:
    """Path of the `switchboard-fixture` binary, in the same directory as `switchboard`."""
    return _binary("switchboard-fixture")


def server_everything_command() -> list[str]:
    """argv that starts @modelcontextprotocol/server-everything in stdio mode."""
    path = os.environ.get("SWITCHBOARD_TEST_SERVER_EVERYTHING")
    if not path or not os.access(path, os.X_OK):
        missing("SWITCHBOARD_TEST_SERVER_EVERYTHING is not set or not executable "
                "(scripts/test.sh installs it)")
    args = shlex.split(os.environ.get("SWITCHBOARD_TEST_SERVER_EVERYTHING_ARGS", ""))
    return [str(path), *args]


# --------------------------------------------------------------------------------------------
# Process plumbing
# --------------------------------------------------------------------------------------------


class _StdoutPump:
    """Reads a child's stdout on a thread, so the pipe never fills up and blocks the child.

    Lines are kept (``.lines``) and copied to ``copy_path``; ``wait_for`` waits for the first
    line matching a regex.
    """

    def __init__(self, proc: subprocess.Popen[bytes], copy_path: Path) -> None:
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._eof = False
        self._proc = proc
        self._copy_path = copy_path
        self._thread = threading.Thread(target=self._run, name=f"stdout-{proc.pid}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        assert self._proc.stdout is not None
        with open(self._copy_path, "ab") as copy:
            for raw in iter(self._proc.stdout.readline, b""):
                copy.write(raw)
                copy.flush()
                with self._cond:
                    self.lines.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
                    self._cond.notify_all()
        with self._cond:
            self._eof = True
            self._cond.notify_all()

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str] | None:
        """First stdout line fully matching ``pattern``; None on timeout or end of output."""
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                while seen < len(self.lines):
                    m = pattern.fullmatch(self.lines[seen])
                    seen += 1
                    if m:
                        return m
                remaining = deadline - time.monotonic()
                if self._eof or remaining <= 0:
                    return None
                self._cond.wait(min(remaining, 0.5))

    def join(self, timeout: float = 5.0) -> None:
        self._thread.join(timeout)


def _read_tail(path: Path, max_chars: int = 20_000) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        return f"<cannot read {path}: {e}>"
    if len(text) > max_chars:
        text = "...\n" + text[-max_chars:]
    return text


def _spawn(argv: Sequence[str], workdir: Path, name: str,
           env: Mapping[str, str] | None) -> tuple[subprocess.Popen[bytes], Path, Path]:
    """Start ``argv`` with stdout piped and stderr in ``workdir/<name>.stderr.log``."""
    log_path = workdir / f"{name}.stderr.log"
    stdout_path = workdir / f"{name}.stdout.log"
    full_env = dict(os.environ)
    full_env.setdefault("NO_COLOR", "1")
    if env:
        full_env.update(env)
    with open(log_path, "wb") as stderr:
        proc = subprocess.Popen(
            [str(a) for a in argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            cwd=workdir,
            env=full_env,
            # Own process group: on a forced kill we take down whatever it spawned too.
            start_new_session=True,
        )
    return proc, log_path, stdout_path


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _terminate(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """SIGTERM, wait up to ``timeout``; returns the exit code, or None if it had to be killed."""
    if proc.poll() is not None:
        return proc.returncode
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        return None


# --------------------------------------------------------------------------------------------
# The hub: `switchboard serve`
# --------------------------------------------------------------------------------------------


class Hub:
    """A running `switchboard serve`."""

    def __init__(self, proc: subprocess.Popen[bytes], pump: _StdoutPump, workdir: Path,
                 config_path: Path, log_path: Path, stdout_path: Path) -> None:
        self.proc = proc
        self.workdir = workdir
        self.config_path = config_path
        self.log_path = log_path  # the hub's stderr
        self.stdout_path = stdout_path
        self._pump = pump
        self.base = ""  # http://127.0.0.1:<port>
        self.url = ""  # http://127.0.0.1:<port>/mcp
        self.port = 0
        self._stopped = False

    @property
    def stdout_lines(self) -> list[str]:
        return list(self._pump.lines)

    def log(self) -> str:
        """The hub's stderr so far."""
        return _read_tail(self.log_path)

    def wait_stdout(self, pattern: str | re.Pattern[str], timeout: float = 10.0) -> re.Match[str] | None:
        """Wait for a stdout line fully matching ``pattern`` (searches from the first line)."""
        return self._pump.wait_for(re.compile(pattern) if isinstance(pattern, str) else pattern,
                                   timeout)

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int:
        """SIGTERM and wait; fails the test if it does not exit within ``timeout``."""
        if self._stopped:
            return self.proc.returncode
        self._stopped = True
        rc = _terminate(self.proc, timeout)
        self._pump.join()
        if rc is None:
            pytest.fail(f"switchboard (pid {self.proc.pid}) did not exit within {timeout:.0f}s "
                        f"of SIGTERM and was killed; stderr ({self.log_path}):\n{self.log()}",
                        pytrace=False)
        return rc

    def kill(self) -> None:
        """SIGKILL the hub and its process group (no graceful shutdown)."""
        self._stopped = True
        _kill_group(self.proc)
        self._pump.join()

    def __repr__(self) -> str:
        return f"<Hub pid={self.proc.pid} url={self.url!r}>"


def _write_config(workdir: Path, config: Mapping[str, Any] | str, name: str) -> Path:
    path = workdir / f"{name}.json"
    text = config if isinstance(config, str) else json.dumps(config, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def hub_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Hub]]:
    """Start `switchboard serve` on a config; every hub is stopped (SIGTERM) at teardown.

    ``hub_factory(config_dict, *, args=(), env=None, wait_ready=True)``: ``config_dict`` is
    written as JSON (a ``str`` is written as is, e.g. for invalid-config tests); ``args`` are
    appended to the command line; ``env`` overrides environment variables. With
    ``wait_ready=False`` it returns at once (``.url``/``.base`` are then empty).
    """
    hubs: list[Hub] = []

    def start(config: Mapping[str, Any] | str, *, args: Sequence[str] = (),
              env: Mapping[str, str] | None = None, wait_ready: bool = True) -> Hub:
        exe = switchboard_bin()
        workdir = tmp_path_factory.mktemp("hub")
        config_path = _write_config(workdir, config, "config")
        argv = [str(exe), "serve", "--config", str(config_path), "--listen", "127.0.0.1:0", *args]
        # Each hub keeps its warm catalog in its own folder, so tests never see
        # another test's (or the developer's) catalog.
        # Tests assert exact tool lists; Switchboard's own tools are tested in Rust.
        hub_env = {
            "SWITCHBOARD_CACHE_DIR": str(workdir / "cache"),
            "SWITCHBOARD_BUILTIN_TOOLS": "0",
            **(env or {}),
        }
        proc, log_path, stdout_path = _spawn(argv, workdir, "switchboard", hub_env)
        hub = Hub(proc, _StdoutPump(proc, stdout_path), workdir, config_path, log_path, stdout_path)
        hubs.append(hub)
        if not wait_ready:
            return hub
        m = hub._pump.wait_for(HUB_READY_RE, READY_TIMEOUT_S)
        if m is None:
            exited = proc.poll()
            state = (f"exited with code {exited}" if exited is not None
                     else f"no ready line within {READY_TIMEOUT_S:.0f}s")
            hub.kill()
            pytest.fail(
                f"switchboard serve {state}.\ncommand: {shlex.join(argv)}\n"
                f"stdout:\n{os.linesep.join(hub.stdout_lines)}\n"
                f"stderr ({log_path}):\n{hub.log()}",
                pytrace=False,
            )
        hub.base = m.group(1)
        hub.url = f"{hub.base}/mcp"
        hub.port = int(m.group(2))
        return hub

    yield start

    failures = []
    for hub in hubs:
        if hub._stopped:
            continue
        hub._stopped = True
        rc = _terminate(hub.proc, STOP_TIMEOUT_S)
        hub._pump.join()
        if rc is None:
            failures.append(f"switchboard (pid {hub.proc.pid}) did not exit within "
                            f"{STOP_TIMEOUT_S:.0f}s of SIGTERM and was killed; "
                            f"stderr ({hub.log_path}):\n{hub.log()}")
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)


# --------------------------------------------------------------------------------------------
# HTTP fixture servers: `switchboard-fixture --http 127.0.0.1:0 --tools ...`
# --------------------------------------------------------------------------------------------


class FixtureURL(str):
    """The fixture's MCP URL (a plain ``str``), with ``.proc``, ``.base`` and ``.log_path``."""

    proc: subprocess.Popen[bytes]
    base: str
    port: int
    log_path: Path

    def kill(self) -> None:
        """SIGKILL the fixture now (e.g. to test an upstream that dies)."""
        _kill_group(self.proc)


@pytest.fixture
def http_fixture_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., FixtureURL]]:
    """Start `switchboard-fixture --http 127.0.0.1:0 --tools TOOLS [args...]`; returns its URL.

    ``http_fixture_factory(tools, *args, env=None)``: ``tools`` is passed as the value of
    ``--tools`` (a list/tuple is joined with commas); ``args`` are appended. Killed at teardown.
    """
    procs: list[subprocess.Popen[bytes]] = []

    def start(tools: str | Sequence[str], *args: str,
              env: Mapping[str, str] | None = None) -> FixtureURL:
        exe = fixture_bin()
        workdir = tmp_path_factory.mktemp("fixture")
        tools_arg = tools if isinstance(tools, str) else ",".join(tools)
        argv = [str(exe), "--http", "127.0.0.1:0", "--tools", tools_arg, *args]
        proc, log_path, stdout_path = _spawn(argv, workdir, "switchboard-fixture", env)
        procs.append(proc)
        pump = _StdoutPump(proc, stdout_path)
        m = pump.wait_for(FIXTURE_READY_RE, READY_TIMEOUT_S)
        if m is None:
            exited = proc.poll()
            state = (f"exited with code {exited}" if exited is not None
                     else f"no ready line within {READY_TIMEOUT_S:.0f}s")
            _kill_group(proc)
            pytest.fail(
                f"switchboard-fixture {state}.\ncommand: {shlex.join(argv)}\n"
                f"stdout:\n{os.linesep.join(pump.lines)}\n"
                f"stderr ({log_path}):\n{_read_tail(log_path)}",
                pytrace=False,
            )
        url = FixtureURL(f"{m.group(1)}/mcp")
        url.proc = proc
        url.base = m.group(1)
        url.port = int(m.group(2))
        url.log_path = log_path
        return url

    yield start

    for proc in procs:
        _kill_group(proc)


# --------------------------------------------------------------------------------------------
# MCP client helpers (mcp SDK). Async tests use anyio's pytest plugin: @pytest.mark.anyio
# --------------------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    """Run @pytest.mark.anyio tests on asyncio only."""
    return "asyncio"


@contextlib.asynccontextmanager
async def mcp_client(url: str) -> AsyncIterator[Any]:
    """An initialized ``mcp.ClientSession`` over Streamable HTTP to ``url``."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(url) as (read, write, _get_session_id):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


@pytest.fixture
def mcp_connect() -> Callable[[str], contextlib.AbstractAsyncContextManager[Any]]:
    """``async with mcp_connect(hub.url) as session: ...`` (an initialized ClientSession)."""
    return mcp_client
