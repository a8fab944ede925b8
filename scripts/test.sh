#!/usr/bin/env bash
# Switchboard's whole test suite, in one command, on a fresh machine or a used one.
#
#   scripts/test.sh          install what is missing, then UI build check and unit tests, fmt, clippy,
#                            build, Rust tests, browser and desktop-app tests, Python tests
#   scripts/test.sh --quick  skip the install step and the Python suite (for iterating)
#
# Idempotent: a second run installs nothing. Everything it installs for the project lives in
# .tools/ (gitignored) except Debian packages, which it installs with apt-get when run as root.
set -euo pipefail

# --- Settings later work may extend ----------------------------------------------------------
# Debian packages the build and tests need (add Tauri/keyring/xvfb packages here).
APT_PACKAGES=(pkg-config procps)
# Access-control tests (tests/tests/suite/access.rs): run curl as user nobody with setpriv.
APT_PACKAGES+=(curl util-linux)
# The desktop app (src-tauri): WebKitGTK, GTK, the tray (appindicator), xdo, D-Bus.
APT_PACKAGES+=(libwebkit2gtk-4.1-dev libjavascriptcoregtk-4.1-dev libsoup-3.0-dev libgtk-3-dev
    libayatana-appindicator3-dev librsvg2-dev libxdo-dev libdbus-1-dev)
# UI tests: a real browser (Debian's Chromium, driven by playwright-core), a virtual X
# display and session bus for the desktop app, screenshots (ImageMagick), window lookup
# (xdotool) and a window manager's close request (python3-xlib, tests/ui/wm_close.py).
APT_PACKAGES+=(chromium fonts-dejavu-core xvfb xauth dbus gnome-keyring keyutils xdotool imagemagick
    python3-xlib)
# OAuth token store tests (tests/tests/suite/keyring.rs): a session bus, GNOME Keyring as the
# Secret Service, libsecret's secret-tool to look at what was stored, the kernel keyring.
APT_PACKAGES+=(dbus gnome-keyring libsecret-tools keyutils)
# The reference MCP server the end-to-end tests talk to over stdio.
SERVER_EVERYTHING_PKG="@modelcontextprotocol/server-everything"
SERVER_EVERYTHING_VERSION="2026.8.31"
# Its dist/index.js picks the transport from argv[1] (default "stdio"); we say it explicitly.
SERVER_EVERYTHING_ARGS="stdio"
# ----------------------------------------------------------------------------------------------

usage() {
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

QUICK=0
for arg in "$@"; do
    case "$arg" in
        --quick) QUICK=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "test.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
    esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=0
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard-target}"
export RUST_BACKTRACE=1
export SWITCHBOARD_BIN_DIR="$CARGO_TARGET_DIR/debug"
if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi

TOOLS="$ROOT/.tools"
NODE_PREFIX="$TOOLS/node"
SERVER_EVERYTHING_BIN="$NODE_PREFIX/node_modules/.bin/mcp-server-everything"
SERVER_EVERYTHING_PKG_JSON="$NODE_PREFIX/node_modules/$SERVER_EVERYTHING_PKG/package.json"
VENV="$TOOLS/venv"
VENV_PY="$VENV/bin/python"
REQUIREMENTS="$ROOT/tests/python/requirements.txt"
REQUIREMENTS_STAMP="$VENV/.requirements.sha256"

# --- Step headers and timing ------------------------------------------------------------------
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }
fmt_us() { awk -v us="$1" 'BEGIN { printf "%.1fs", us / 1000000 }'; }

RUN_T0="$(now_us)"
CURRENT_STEP=""
STEP_T0=0
SUMMARY=()

finish_step() {
    if [[ -n "$CURRENT_STEP" ]]; then
        local took
        took="$(fmt_us $(($(now_us) - STEP_T0)))"
        printf '<== %s: ok (%s)\n' "$CURRENT_STEP" "$took" >&2
        SUMMARY+=("ok      $took  $CURRENT_STEP")
        CURRENT_STEP=""
    fi
}

step() {
    finish_step
    CURRENT_STEP="$1"
    STEP_T0="$(now_us)"
    printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$1" >&2
}

print_summary() {
    local line
    printf '\n---- test.sh summary (total %s) ----\n' "$(fmt_us $(($(now_us) - RUN_T0)))" >&2
    for line in "${SUMMARY[@]}"; do
        printf '  %s\n' "$line" >&2
    done
}

on_exit() {
    local rc=$?
    if [[ $rc -ne 0 ]]; then
        if [[ -n "$CURRENT_STEP" ]]; then
            local took
            took="$(fmt_us $(($(now_us) - STEP_T0)))"
            printf '<== %s: FAILED (exit %d, %s)\n' "$CURRENT_STEP" "$rc" "$took" >&2
            SUMMARY+=("FAILED  $took  $CURRENT_STEP")
        fi
        print_summary
        printf 'test.sh: FAILED\n' >&2
    fi
}
trap on_exit EXIT

die() {
    echo "test.sh: $*" >&2
    exit 1
}

# --- Install steps ----------------------------------------------------------------------------
install_system_packages() {
    local wanted=("${APT_PACKAGES[@]}")
    # The pyenv CPython on our machines ships venv+ensurepip; Debian's python3 needs python3-venv.
    if ! command -v python3 >/dev/null 2>&1; then
        wanted+=(python3 python3-venv)
    elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        wanted+=(python3-venv)
    fi
    if ! command -v npm >/dev/null 2>&1; then
        wanted+=(nodejs npm)
    fi

    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "not a Debian/Ubuntu system; make sure these are installed: ${wanted[*]}" >&2
        return 0
    fi
    local missing=() pkg status
    for pkg in "${wanted[@]}"; do
        status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
        [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        echo "system packages present: ${wanted[*]}" >&2
        return 0
    fi
    if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" -eq 0 ]]; then
        echo "installing missing system packages: ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    else
        echo "WARNING: missing system packages (not root, not installing): ${missing[*]}" >&2
    fi
}

install_python_venv() {
    command -v python3 >/dev/null 2>&1 || die "python3 not found"
    local want_stamp
    want_stamp="$(
        {
            sha256sum <"$REQUIREMENTS"
            python3 -c 'import sys; print(sys.version)'
        } | sha256sum | cut -d' ' -f1
    )"
    if [[ -x "$VENV_PY" ]] && "$VENV_PY" -c 'import sys' >/dev/null 2>&1 &&
        [[ -f "$REQUIREMENTS_STAMP" && "$(cat "$REQUIREMENTS_STAMP")" == "$want_stamp" ]]; then
        echo "python venv up to date: $VENV" >&2
        return 0
    fi
    echo "creating python venv $VENV from $REQUIREMENTS" >&2
    rm -rf "$VENV"
    mkdir -p "$TOOLS"
    python3 -m venv "$VENV"
    "$VENV_PY" -m pip install --disable-pip-version-check --no-input -q -r "$REQUIREMENTS"
    echo "$want_stamp" >"$REQUIREMENTS_STAMP"
    "$VENV_PY" -m pip --disable-pip-version-check list 2>/dev/null | grep -Ei '^(mcp|pytest) ' >&2 || true
}

installed_server_everything_version() {
    [[ -f "$SERVER_EVERYTHING_PKG_JSON" && -x "$SERVER_EVERYTHING_BIN" ]] || return 0
    node -p "require(process.argv[1]).version" "$SERVER_EVERYTHING_PKG_JSON" 2>/dev/null || true
}

install_server_everything() {
    command -v node >/dev/null 2>&1 || die "node not found"
    command -v npm >/dev/null 2>&1 || die "npm not found"
    local have
    have="$(installed_server_everything_version)"
    if [[ "$have" == "$SERVER_EVERYTHING_VERSION" ]]; then
        echo "$SERVER_EVERYTHING_PKG@$have present" >&2
    else
        echo "installing $SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION (found: ${have:-none})" >&2
        mkdir -p "$NODE_PREFIX"
        npm install --prefix "$NODE_PREFIX" --save-exact --no-audit --no-fund --no-update-notifier \
            --loglevel=error "$SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION"
        have="$(installed_server_everything_version)"
        [[ "$have" == "$SERVER_EVERYTHING_VERSION" ]] ||
            die "$SERVER_EVERYTHING_PKG install failed (found: ${have:-none})"
    fi
}

# Send `initialize` over stdio and wait for the answer: proves node, the package and the args work.
smoke_server_everything() {
    "$VENV_PY" - "$SERVER_EVERYTHING_BIN" $SERVER_EVERYTHING_ARGS <<'PY'
import json, select, subprocess, sys, time

cmd = sys.argv[1:]
proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "switchboard-test-sh", "version": "0"}}}
proc.stdin.write((json.dumps(init) + "\n").encode())
proc.stdin.flush()
deadline = time.monotonic() + 30
buf = b""
ok = None
while ok is None and time.monotonic() < deadline:
    ready, _, _ = select.select([proc.stdout], [], [], 0.5)
    if not ready:
        if proc.poll() is not None:
            break
        continue
    chunk = proc.stdout.read1(65536)
    if not chunk:
        break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") == 1:  # it may send notifications before the response
            ok = msg
proc.stdin.close()
try:
    proc.wait(timeout=10)
except subprocess.TimeoutExpired:
    proc.kill()
    proc.wait()
if not ok or "result" not in ok:
    err = proc.stderr.read().decode(errors="replace")
    sys.exit(f"server-everything did not answer initialize: {ok!r}\nstderr:\n{err}")
info = ok["result"].get("serverInfo", {})
print(f"server-everything answered initialize: {info.get('name')} {info.get('version')}, "
      f"protocol {ok['result'].get('protocolVersion')}", file=sys.stderr)
PY
}

# --- UI and desktop app (ui/, icons/, src-tauri/, tests/ui/) ----------------------------------
UI_DIR="$ROOT/ui"
UI_LOCK_STAMP="$UI_DIR/node_modules/.switchboard-lock.sha256"

# `npm ci` in ui/ when the lockfile changed since the last install (or nothing is installed).
ui_install() {
    command -v npm >/dev/null 2>&1 || die "npm not found"
    local want
    want="$(sha256sum <"$UI_DIR/package-lock.json" | cut -d' ' -f1)"
    if [[ -f "$UI_LOCK_STAMP" && "$(cat "$UI_LOCK_STAMP")" == "$want" ]]; then
        echo "ui/node_modules up to date" >&2
        return 0
    fi
    (cd "$UI_DIR" && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error)
    echo "$want" >"$UI_LOCK_STAMP"
}

# Fails when files under $1 differ from the commit (changed, deleted or new).
check_committed() {
    local path="$1" what="$2"
    if ! git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
        echo "not a git checkout; cannot compare $path with the commit" >&2
        return 0
    fi
    local changes
    changes="$(git -C "$ROOT" status --porcelain --untracked-files=all -- "$path")"
    if [[ -n "$changes" ]]; then
        git -C "$ROOT" --no-pager diff --stat -- "$path" >&2 || true
        echo "$changes" >&2
        die "$path differs from the commit: $what"
    fi
}

# Rebuild ui/dist from ui/src and require it to equal the committed (embedded) copy.
ui_build_and_check_dist() {
    (cd "$UI_DIR" && npm run --silent build)
    check_committed ui/dist "run 'cd ui && npm run build' and commit ui/dist with the sources"
}

# Redraw icons/ and require them to equal the committed ones.
icons_check() {
    node "$ROOT/icons/generate.mjs"
    check_committed icons "run 'node icons/generate.mjs' and commit icons/"
}

ui_unit_tests() {
    (cd "$UI_DIR" && npx --no-install vitest run)
}

ui_browser_tests() {
    node --test tests/ui/browser.test.mjs
}

# The real Tauri binary in a virtual X display with its own session bus.
desktop_tests() {
    xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- \
        node --test tests/ui/desktop.test.mjs
}

# The keyring tests (#[ignore]d in the plain run) against a real Secret Service: a private
# session bus with GNOME Keyring unlocked, its keyrings in a temporary XDG_DATA_HOME, and
# the kernel keyring in a session keyring of the test's own.
keyring_tests() {
    local data rc=0
    data="$(mktemp -d)"
    # `keyctl session -`: a fresh session keyring for the keyutils test (the inherited one
    # may belong to another user and refuse access).
    XDG_DATA_HOME="$data" keyctl session - dbus-run-session -- bash -c \
        'echo -n ci | gnome-keyring-daemon --unlock --components=secrets >/dev/null;
         cargo test -p switchboard-e2e --test all keyring:: -- --ignored' || rc=$?
    rm -rf "$data"
    return "$rc"
}

# --- Fuzzing (fuzz/, cargo-fuzz on nightly; docs/reliability.md#fuzzing) --------------------
FUZZ_TARGETS=(config_parse catalog_names fast_path_sniff)
# Seconds per target in the short run (CI: 2 cores, 90 minutes for everything).
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"

install_cargo_fuzz() {
    if ! rustup toolchain list | grep -q '^nightly'; then
        rustup toolchain install nightly --profile minimal
    fi
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo +stable install cargo-fuzz --locked
    fi
    cargo fuzz --version >&2
}

# Builds the targets (nightly, sanitizers: its own target dir) and runs each for
# $FUZZ_SECONDS from the committed seeds; a crash fails the step and leaves the
# input under fuzz/artifacts/<target>/.
fuzz_short() {
    local target
    for target in "${FUZZ_TARGETS[@]}"; do
        mkdir -p "fuzz/corpus/$target"
        local seeds=()
        [[ -d "fuzz/seeds/$target" ]] && seeds=("seeds/$target")
        local dict=()
        [[ "$target" == config_parse ]] && dict=(-dict=dict/config.dict)
        (cd fuzz && CARGO_TARGET_DIR="$CARGO_TARGET_DIR-fuzz" cargo +nightly fuzz run -O "$target" \
            "corpus/$target" "${seeds[@]}" -- -max_total_time="$FUZZ_SECONDS" "${dict[@]}" \
            -print_final_stats=1)
    done
}

export_tool_env() {
    if [[ -x "$SERVER_EVERYTHING_BIN" ]]; then
        export SWITCHBOARD_TEST_SERVER_EVERYTHING="$SERVER_EVERYTHING_BIN"
        export SWITCHBOARD_TEST_SERVER_EVERYTHING_ARGS="$SERVER_EVERYTHING_ARGS"
    fi
    if [[ -x "$VENV_PY" ]]; then
        export SWITCHBOARD_TEST_PYTHON="$VENV_PY"
    fi
}

# --- Main -------------------------------------------------------------------------------------
if [[ $QUICK -eq 0 ]]; then
    step "install: system packages"
    install_system_packages
    step "install: python venv (.tools/venv)"
    install_python_venv
    step "install: $SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION (.tools/node)"
    install_server_everything
    smoke_server_everything
    export_tool_env
    # Tests that need the tools above must fail, not skip, when they are missing.
    export SWITCHBOARD_REQUIRE_EXTERNAL=1
else
    echo "test.sh --quick: skipping installs and the Python suite" >&2
    export_tool_env
fi
echo "CARGO_TARGET_DIR=$CARGO_TARGET_DIR" >&2

if [[ $QUICK -eq 0 || ! -d "$UI_DIR/node_modules" ]]; then
    step "ui: npm ci"
    ui_install
fi
step "ui: build and compare with committed ui/dist"
ui_build_and_check_dist
step "icons: redraw and compare with committed icons/"
icons_check
step "ui: unit tests (vitest)"
ui_unit_tests

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo build --bins"
cargo build --workspace --bins

if cargo nextest --version >/dev/null 2>&1; then
    step "cargo nextest run"
    cargo nextest run --workspace --no-fail-fast
    step "cargo test --doc"
    cargo test --workspace --doc
else
    step "cargo test"
    cargo test --workspace --no-fail-fast
fi

step "keyring: Secret Service tests under dbus-run-session (tests/tests/suite/keyring.rs)"
keyring_tests

step "ui: dashboard in Chromium (tests/ui/browser.test.mjs)"
ui_browser_tests

step "desktop: build the app (cargo build -p switchboard-app)"
cargo build -p switchboard-app
step "desktop: the app under Xvfb (tests/ui/desktop.test.mjs)"
desktop_tests

# The benchmark is not pass/fail on speed; this only checks that it still runs
# end to end (every answer checked) with the debug builds made above.
step "bench: smoke run (bench/run.sh --smoke --debug --no-peers)"
bench/run.sh --smoke --debug --no-peers

if [[ $QUICK -eq 0 ]]; then
    step "install: cargo-fuzz and the nightly toolchain"
    install_cargo_fuzz
fi
if cargo fuzz --version >/dev/null 2>&1; then
    step "fuzz: ${FUZZ_SECONDS}s per target (${FUZZ_TARGETS[*]})"
    fuzz_short
fi

if [[ $QUICK -eq 0 ]]; then
    step "pytest tests/python"
    pytest_rc=0
    "$SWITCHBOARD_TEST_PYTHON" -m pytest -q -p no:cacheprovider tests/python || pytest_rc=$?
    if [[ $pytest_rc -eq 5 ]]; then
        die "pytest collected no tests in tests/python (exit 5): the Python suite must have tests"
    elif [[ $pytest_rc -ne 0 ]]; then
        exit "$pytest_rc"
    fi
fi

if [[ $QUICK -eq 0 ]]; then
    # The official MCP conformance suite (npm, needs Node 22: installed into
    # .tools/node22 by the script). Each run fails unless every scenario passes.
    step "conformance: the fixture server directly (32 scenarios)"
    scripts/conformance.sh --direct
    step "conformance: through Switchboard, /servers/conf/mcp and merged /mcp"
    scripts/conformance.sh --through
    step "conformance: Switchboard's upstream client (client scenarios)"
    scripts/conformance.sh --client
fi

finish_step
print_summary
echo "test.sh: all steps passed" >&2
