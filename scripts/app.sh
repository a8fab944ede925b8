#!/usr/bin/env bash
# Starts the Switchboard desktop app (tray icon and dashboard window) from this checkout, after
# installing what it needs on a fresh Debian/Ubuntu machine: the system libraries (WebKitGTK,
# GTK, the tray's appindicator; with apt-get, through sudo when not root) and a check that
# Rust and the libraries are found. Then `cargo run --release -p switchboard-app`.
#
#   scripts/app.sh [--check] [--debug] [-- APP ARGS...]
#
#   --check    install and check, then stop (no build, no window)
#   --debug    build with the dev profile (faster to build, slower to run)
#   APP ARGS   passed to the app, e.g. --hidden (start in the tray only)
#
# The hub inside the app listens on http://127.0.0.1:8420/mcp like `switchboard serve`.
set -euo pipefail

# The install steps and the package lists (APP_APT_PACKAGES).
# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

CHECK_ONLY=0
PROFILE_ARGS=(--release)
APP_ARGS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --check) CHECK_ONLY=1 ;;
        --debug) PROFILE_ARGS=() ;;
        --)
            shift
            APP_ARGS=("$@")
            break
            ;;
        -h | --help) usage; exit 0 ;;
        *)
            usage >&2
            echo "$SCRIPT_NAME: unknown argument: $1" >&2
            exit 2
            ;;
    esac
    shift
done

# What the build links against, as pkg-config names them.
APP_PKG_CONFIG_MODULES=(webkit2gtk-4.1 javascriptcoregtk-4.1 libsoup-3.0 gtk+-3.0 ayatana-appindicator3-0.1 dbus-1)

check_app_prerequisites() {
    local problems=()
    if ! command -v cargo >/dev/null 2>&1; then
        problems+=("Rust is not installed: get it from https://rustup.rs (rustup), then run this again")
    elif ! command -v rustup >/dev/null 2>&1; then
        # rust-toolchain.toml pins the toolchain; only rustup reads it.
        problems+=("cargo is there but rustup is not: install Rust with rustup (https://rustup.rs)")
    fi
    if ! command -v cc >/dev/null 2>&1; then
        problems+=("no C compiler (cc) for linking: install build-essential")
    fi
    if ! command -v pkg-config >/dev/null 2>&1; then
        problems+=("pkg-config is not installed")
    else
        local module
        for module in "${APP_PKG_CONFIG_MODULES[@]}"; do
            pkg-config --exists "$module" || problems+=("the library $module is not found by pkg-config")
        done
    fi
    if [[ ${#problems[@]} -gt 0 ]]; then
        printf '  - %s\n' "${problems[@]}" >&2
        echo "$SCRIPT_NAME: the desktop app cannot be built yet (the packages it needs: ${APP_APT_PACKAGES[*]})" >&2
        return 1
    fi
    echo "ready: Rust $(rustc --version 2>/dev/null | cut -d' ' -f2), ${APP_PKG_CONFIG_MODULES[*]}" >&2
}

step "app: system packages"
SWITCHBOARD_APT_SUDO=1 apt_install_missing "${APP_APT_PACKAGES[@]}"
step "app: check Rust and the libraries"
check_app_prerequisites || exit 1
finish_step
if [[ $CHECK_ONLY -eq 1 ]]; then
    exit 0
fi
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
    echo "$SCRIPT_NAME: no display (DISPLAY or WAYLAND_DISPLAY): the app needs a desktop session; 'switchboard serve' runs headless" >&2
    exit 1
fi
# The build goes where scripts/test.sh builds: $CARGO_TARGET_DIR (scripts/common.sh's default).
echo "starting the desktop app (cargo run ${PROFILE_ARGS[*]} -p switchboard-app)" >&2
# cargo run replaces itself with the app, so signals reach the app itself.
exec cargo run "${PROFILE_ARGS[@]}" -p switchboard-app -- "${APP_ARGS[@]}"
