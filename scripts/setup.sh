#!/usr/bin/env bash
# Installs what the tests need, on a fresh machine or a used one: Debian packages (as root), the
# Python venv (.tools/venv), the reference MCP server (.tools/node), ui/node_modules, and the
# cargo tools (cargo-fuzz and nightly, cargo-llvm-cov), the cross-target tools (rust targets,
# MinGW, zig and cargo-zigbuild). Idempotent: a second run installs nothing.
#
#   scripts/setup.sh    run every install step (scripts/test.sh runs them itself)
#
# Sourced by scripts/test.sh for its install functions.
set -euo pipefail

# --- Settings later work may extend ----------------------------------------------------------
# Debian packages the build and tests need (add Tauri/keyring/xvfb packages here).
# Debian packages the build and tests need (add Tauri/keyring/xvfb packages here).
APT_PACKAGES=(pkg-config procps)
# Access-control tests (tests/tests/suite/access.rs): run curl as user nobody with setpriv.
APT_PACKAGES+=(curl util-linux)
# The desktop app (src-tauri): a C toolchain for the linker, WebKitGTK, GTK, the tray
# (appindicator), xdo, D-Bus. Also what scripts/app.sh installs to build and run the app.
APP_APT_PACKAGES=(pkg-config build-essential libwebkit2gtk-4.1-dev libjavascriptcoregtk-4.1-dev
    libsoup-3.0-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev libdbus-1-dev)
APT_PACKAGES+=("${APP_APT_PACKAGES[@]}")
# UI tests: a real browser (Debian's Chromium, driven by playwright-core), a virtual X
# display and session bus for the desktop app, screenshots (ImageMagick), window lookup
# (xdotool) and a window manager's close request (python3-xlib, tests/ui/wm_close.py).
APT_PACKAGES+=(chromium fonts-dejavu-core xvfb xauth dbus gnome-keyring keyutils xdotool imagemagick
    python3-xlib)
# The tray test (tests/ui/tray.test.mjs): an XEmbed tray host and OCR to find the menu's items.
APT_PACKAGES+=(trayer tesseract-ocr tesseract-ocr-eng)
# ... and a notification daemon with actions (dunst), answering the app's Allow / Deny
# notifications through its context menu.
APT_PACKAGES+=(dunst)
# The package test (tests/package.test.sh): the .desktop entry's validator.
APT_PACKAGES+=(desktop-file-utils)
# OAuth token store tests (tests/tests/suite/keyring.rs): a session bus, GNOME Keyring as the
# Secret Service, libsecret's secret-tool to look at what was stored, the kernel keyring.
APT_PACKAGES+=(dbus gnome-keyring libsecret-tools keyutils)
# Shell script checks (scripts/checks.sh).
APT_PACKAGES+=(shellcheck)
# Cross-target checks (scripts/check-targets.sh): the MinGW C compiler and windres for the
# Windows build scripts (aws-lc-sys, mimalloc, the app's resources).
CROSS_APT_PACKAGES=(gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64)
APT_PACKAGES+=("${CROSS_APT_PACKAGES[@]}")
# ----------------------------------------------------------------------------------------------

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# --- Install steps ----------------------------------------------------------------------------
# Installs the missing ones of APT_PACKAGES, or of the packages given.
install_system_packages() {
    local wanted=("${APT_PACKAGES[@]}")
    [[ $# -gt 0 ]] && wanted=("$@")
    # The pyenv CPython on our machines ships venv+ensurepip; Debian's python3 needs python3-venv.
    if ! command -v python3 >/dev/null 2>&1; then
        wanted+=(python3 python3-venv)
    elif ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        wanted+=(python3-venv)
    fi
    if ! command -v npm >/dev/null 2>&1; then
        wanted+=(nodejs npm)
    fi

    apt_install_missing "${wanted[@]}"
}

# Installs the Debian packages named that are not installed yet: with apt-get as root, with sudo
# when SWITCHBOARD_APT_SUDO=1 (scripts/app.sh), else a warning that lists them.
apt_install_missing() {
    local wanted=("$@")
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
    elif command -v apt-get >/dev/null 2>&1 && [[ "${SWITCHBOARD_APT_SUDO:-0}" == 1 ]] &&
        command -v sudo >/dev/null 2>&1; then
        echo "installing missing system packages with sudo: ${missing[*]}" >&2
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
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

# The task tests' venv (FastMCP 4, mcp 2.x), kept apart from .tools/venv's pinned mcp.
install_tasks_venv() {
    local want_stamp stamp="$TASKS_VENV/.requirements.sha256"
    want_stamp="$({ sha256sum <"$TASKS_REQUIREMENTS"; python3 -c 'import sys; print(sys.version)'; } |
        sha256sum | cut -d' ' -f1)"
    if [[ -x "$TASKS_VENV_PY" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]]; then
        echo "python task venv up to date: $TASKS_VENV" >&2
        return 0
    fi
    echo "creating python venv $TASKS_VENV from $TASKS_REQUIREMENTS" >&2
    rm -rf "$TASKS_VENV"
    python3 -m venv "$TASKS_VENV"
    "$TASKS_VENV_PY" -m pip install --disable-pip-version-check --no-input -q -r "$TASKS_REQUIREMENTS"
    echo "$want_stamp" >"$stamp"
}

# uv and uvx (.tools/uv/bin), for the registry tests' PyPI installs (`uvx <pkg>==<version>`,
# tests/tests/suite/registry.rs): the PyPI `uv` wheel in a venv of its own.
UV_VERSION=0.13.9
UV_VENV="$TOOLS/uv"
install_uv() {
    if [[ -x "$UV_VENV/bin/uv" ]] && [[ "$("$UV_VENV/bin/uv" --version 2>/dev/null)" == "uv $UV_VERSION"* ]]; then
        echo "uv up to date: $UV_VENV" >&2
        return 0
    fi
    echo "installing uv $UV_VERSION into $UV_VENV" >&2
    rm -rf "$UV_VENV"
    python3 -m venv "$UV_VENV"
    "$UV_VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q "uv==$UV_VERSION"
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

# `npm ci` in ui/ when the lockfile changed since the last install (or nothing is installed).
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

install_cargo_fuzz() {
    if ! rustup toolchain list | grep -q '^nightly'; then
        rustup toolchain install nightly --profile minimal
    fi
    if ! cargo fuzz --version >/dev/null 2>&1; then
        cargo +stable install cargo-fuzz --locked
    fi
    cargo fuzz --version >&2
}

# rustup's component install is not atomic: a run stopped in the middle of one (a failed step
# ends the background jobs) can leave the component's files and manifest without its entry in
# rustup's own list, and every later `component add` then fails with "detected conflict". Such
# a leftover is removed (the files its manifest names) and the add tried once more.
rustup_component_add() {
    local component="$1" out rc=0
    out="$(rustup component add "$component" 2>&1)" || rc=$?
    printf '%s\n' "$out" >&2
    [[ $rc -eq 0 ]] && return 0
    grep -q "detected conflict" <<<"$out" || return "$rc"
    local sysroot host manifest line
    sysroot="$(rustc --print sysroot)"
    host="$(rustc -vV | sed -n 's/^host: //p')"
    manifest="$sysroot/lib/rustlib/manifest-$component-$host"
    [[ -f "$manifest" ]] || return "$rc"
    echo "rustup: removing what an interrupted install of $component left ($manifest)" >&2
    while IFS= read -r line; do
        case "$line" in
            file:*) rm -f "$sysroot/${line#file:}" ;;
            dir:*) rm -rf "${sysroot:?}/${line#dir:}" ;;
        esac
    done <"$manifest"
    rm -f "$manifest"
    sed -i "/^$component-$host\$/d" "$sysroot/lib/rustlib/components"
    rustup component add "$component"
}

# What scripts/coverage.sh needs: rustup's llvm-tools and cargo-llvm-cov.
install_cargo_llvm_cov() {
    rustup_component_add llvm-tools-preview
    if ! cargo llvm-cov --version >/dev/null 2>&1; then
        cargo install cargo-llvm-cov --locked
    fi
    cargo llvm-cov --version >&2
}

# What scripts/check-targets.sh needs: the Rust standard library of each cross target, and zig
# (PyPI's ziglang) with cargo-zigbuild (PyPI's prebuilt wheel of the crates.io tool: no
# 5-minute compile on CI) in a venv of their own, as the C compiler for the Apple target.
CROSS_TARGETS=(x86_64-pc-windows-gnu aarch64-apple-darwin)
CROSS_TOOLS="${SWITCHBOARD_CROSS_TOOLS:-$TOOLS/cross}"
ZIGLANG_VERSION="0.15.2"
CARGO_ZIGBUILD_VERSION="0.24.1"

install_cross_tools() {
    local installed target missing=()
    installed="$(rustup target list --installed)"
    for target in "${CROSS_TARGETS[@]}"; do
        grep -qx "$target" <<<"$installed" || missing+=("$target")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        rustup target add "${missing[@]}"
    else
        echo "rust targets present: ${CROSS_TARGETS[*]}" >&2
    fi
    install_system_packages "${CROSS_APT_PACKAGES[@]}"
    local want="ziglang==$ZIGLANG_VERSION cargo-zigbuild==$CARGO_ZIGBUILD_VERSION"
    if [[ -x "$CROSS_TOOLS/bin/zig" && -x "$CROSS_TOOLS/bin/cargo-zigbuild" &&
        "$(cat "$CROSS_TOOLS/.versions" 2>/dev/null)" == "$want" ]]; then
        echo "zig and cargo-zigbuild present: $CROSS_TOOLS ($want)" >&2
        return 0
    fi
    command -v python3 >/dev/null 2>&1 || die "python3 not found"
    echo "installing $want into $CROSS_TOOLS" >&2
    rm -rf "$CROSS_TOOLS"
    mkdir -p "$(dirname "$CROSS_TOOLS")"
    python3 -m venv "$CROSS_TOOLS"
    # shellcheck disable=SC2086 # two requirement words
    "$CROSS_TOOLS/bin/python" -m pip install --disable-pip-version-check --no-input -q $want
    local zig_dir
    zig_dir="$("$CROSS_TOOLS/bin/python" -c 'import os, ziglang; print(os.path.dirname(ziglang.__file__))')"
    ln -sf "$zig_dir/zig" "$CROSS_TOOLS/bin/zig"
    "$CROSS_TOOLS/bin/zig" version >/dev/null
    echo "$want" >"$CROSS_TOOLS/.versions"
}

# Venv, the reference server and its smoke check: network and disk, little CPU (scripts/test.sh
# runs this beside the first cargo build).
# Gemini CLI at its pinned version, in a prefix of its own.
install_gemini_cli() {
    local pkg="$GEMINI_PREFIX/node_modules/$GEMINI_CLI_PKG/package.json" have=""
    [[ -f "$pkg" && -x "$GEMINI_CLI_BIN" ]] && have="$(node -p "require(process.argv[1]).version" "$pkg" 2>/dev/null || true)"
    if [[ "$have" == "$GEMINI_CLI_VERSION" ]]; then
        echo "$GEMINI_CLI_PKG@$have present" >&2
        return 0
    fi
    echo "installing $GEMINI_CLI_PKG@$GEMINI_CLI_VERSION (found: ${have:-none})" >&2
    mkdir -p "$GEMINI_PREFIX"
    npm install --prefix "$GEMINI_PREFIX" --save-exact --no-audit --no-fund --no-update-notifier \
        --loglevel=error "$GEMINI_CLI_PKG@$GEMINI_CLI_VERSION"
    [[ -x "$GEMINI_CLI_BIN" ]] || die "$GEMINI_CLI_PKG install failed"
}

# The ext-apps example servers, each package at EXT_APPS_VERSION, into a prefix of their own.
installed_ext_apps_ok() {
    local pkg have
    for pkg in "${EXT_APPS_PKGS[@]}"; do
        have="$(node -p "require(process.argv[1]).version" \
            "$EXT_APPS_PREFIX/node_modules/$pkg/package.json" 2>/dev/null || true)"
        [[ "$have" == "$EXT_APPS_VERSION" ]] || return 1
    done
    [[ -x "$EXT_APPS_VANILLA_BIN" && -x "$EXT_APPS_PREACT_BIN" ]]
}

install_ext_apps() {
    if installed_ext_apps_ok; then
        echo "${EXT_APPS_PKGS[*]} @$EXT_APPS_VERSION present" >&2
        return 0
    fi
    local specs=() pkg
    for pkg in "${EXT_APPS_PKGS[@]}"; do
        specs+=("$pkg@$EXT_APPS_VERSION")
    done
    echo "installing ${specs[*]} into $EXT_APPS_PREFIX" >&2
    mkdir -p "$EXT_APPS_PREFIX"
    npm install --prefix "$EXT_APPS_PREFIX" --save-exact --no-audit --no-fund --no-update-notifier \
        --loglevel=error "${specs[@]}"
    installed_ext_apps_ok || die "ext-apps examples install failed (${specs[*]})"
}

install_test_tools() {
    install_python_venv
    install_tasks_venv
    install_uv
    install_server_everything
    smoke_server_everything
    install_gemini_cli
    install_ext_apps
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    step "install: system packages"
    install_system_packages
    step "install: python venv, $SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION"
    install_test_tools
    step "ui: npm ci"
    ui_install
    step "install: cargo-fuzz and the nightly toolchain"
    install_cargo_fuzz
    step "install: llvm-tools-preview and cargo-llvm-cov"
    install_cargo_llvm_cov
    step "install: cross targets, zig and cargo-zigbuild (scripts/check-targets.sh)"
    install_cross_tools
    finish_step
    print_summary
fi
