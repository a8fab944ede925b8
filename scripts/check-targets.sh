#!/usr/bin/env bash
# Type-checks Switchboard for the other desktop systems from Linux: cargo clippy (which runs
# cargo check) with -D warnings on the core, the CLI (switchboard) and the desktop app
# (switchboard-app) for each target in CROSS_TARGETS (Windows: x86_64-pc-windows-gnu with
# MinGW; macOS: aarch64-apple-darwin with zig as the C compiler, through cargo-zigbuild).
#
#   scripts/check-targets.sh            install what is missing, then check every target
#   scripts/check-targets.sh TARGET...  only these targets
#   scripts/check-targets.sh --no-install   use what is installed (fail if something is missing)
#
# Prints one summary line per target, e.g.
#   check-targets: aarch64-apple-darwin: ok (core, clients, cli, app; clippy ok)
# and exits 0 only when every piece that can be checked here passed. Nothing is linked or run:
# docs/platforms.md says what this proves and what it cannot. Its own target dir
# (${CARGO_TARGET_DIR}-cross) keeps the main build's artifacts untouched.
set -euo pipefail

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() {
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
}

INSTALL=1
targets=()
for arg in "$@"; do
    case "$arg" in
        --no-install) INSTALL=0 ;;
        -h | --help) usage; exit 0 ;;
        -*) echo "check-targets.sh: unknown option: $arg" >&2; usage >&2; exit 2 ;;
        *) targets+=("$arg") ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${CROSS_TARGETS[@]}")

export CARGO_TARGET_DIR="${SWITCHBOARD_CROSS_TARGET_DIR:-$CARGO_TARGET_DIR-cross}"

if [[ $INSTALL -eq 1 ]]; then
    step "check-targets: install (rust targets, MinGW, zig, cargo-zigbuild)"
    install_cross_tools
fi
finish_step

# The desktop app embeds the dashboard (tauri.conf.json's frontendDist): build it when missing.
if [[ ! -f "$UI_DIR/dist/index.html" ]]; then
    step "check-targets: ui build (the app embeds ui/dist)"
    [[ -d "$UI_DIR/node_modules" ]] || ui_install
    (cd "$UI_DIR" && npx --no-install vite build)
    finish_step
fi

# The cargo command for TARGET: cargo-zigbuild (zig as C compiler and linker) for Apple.
cargo_for() {
    case "$1" in
        *-apple-darwin)
            [[ -x "$CROSS_TOOLS/bin/cargo-zigbuild" ]] ||
                { echo "cargo-zigbuild missing in $CROSS_TOOLS (run without --no-install)"; return 1; }
            echo "$CROSS_TOOLS/bin/cargo-zigbuild"
            ;;
        *) echo cargo ;;
    esac
}

# Why TARGET cannot be checked at all here, if it cannot (printed in its summary line).
missing_for() {
    if ! rustup target list --installed | grep -qx "$1"; then
        echo "the Rust standard library for $1 is not installed (rustup target add $1)"
    elif [[ "$1" == *-windows-gnu ]] && ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1; then
        echo "x86_64-w64-mingw32-gcc is missing (Debian: gcc-mingw-w64-x86-64)"
    fi
}

SUMMARY_LINES=()
failed=0
export PATH="$CROSS_TOOLS/bin:$PATH"
for target in "${targets[@]}"; do
    step "check-targets: $target"
    why="$(missing_for "$target")"
    if [[ -n "$why" ]]; then
        SUMMARY_LINES+=("check-targets: $target: FAILED (not checked: $why)")
        failed=1
        fail_step
        continue
    fi
    if ! cargo_cmd="$(cargo_for "$target")"; then
        SUMMARY_LINES+=("check-targets: $target: FAILED (not checked: $cargo_cmd)")
        failed=1
        fail_step
        continue
    fi
    # One clippy run for the six crates: one feature set, so each dependency is checked once
    # per target (two runs checked tokio, rustls and the rest twice, with different features).
    if "$cargo_cmd" clippy --locked --target "$target" -p switchboard-util -p switchboard-config \
        -p switchboard-core -p switchboard -p switchboard-clients -p switchboard-app \
        -- -D warnings; then
        SUMMARY_LINES+=("check-targets: $target: ok (util, config, core, clients, cli, app; clippy ok)")
    else
        SUMMARY_LINES+=("check-targets: $target: FAILED (cargo clippy -p switchboard-util -p switchboard-config -p switchboard-core -p switchboard -p switchboard-clients -p switchboard-app failed, see above)")
        failed=1
        fail_step
    fi
done
finish_step

printf '\n' >&2
for line in "${SUMMARY_LINES[@]}"; do
    echo "$line"
done
exit "$failed"
