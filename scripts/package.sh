#!/usr/bin/env bash
# Builds the desktop app's Linux packages with the Tauri CLI: a .deb (Depends: WebKitGTK, GTK,
# the tray's appindicator; a .desktop entry; hicolor icons) and an .rpm. The AppImage is not
# built here: Tauri downloads linuxdeploy from GitHub for it (see docs/desktop.md).
#
#   scripts/package.sh [--debug] [--bundles deb,rpm] [--out DIR]
#
#   --debug      build the app with the dev profile (fast; what the test command uses)
#   --bundles    which bundles (default: deb,rpm)
#   --out DIR    copy the packages into DIR as well
#
# Installs the Tauri CLI (npm @tauri-apps/cli, pinned below) into .tools/tauri-cli once. The
# packages land in $CARGO_TARGET_DIR/<profile>/bundle/<type>/; their paths are printed last.
set -euo pipefail

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

TAURI_CLI_VERSION="2.12.5"
TAURI_CLI_PREFIX="$TOOLS/tauri-cli"
TAURI_CLI="$TAURI_CLI_PREFIX/node_modules/.bin/tauri"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

PROFILE=release
BUNDLES=deb,rpm
OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --debug) PROFILE=debug ;;
        --bundles)
            [[ $# -ge 2 ]] || { usage >&2; die "--bundles needs a value (deb, rpm or deb,rpm)"; }
            BUNDLES="$2"
            shift
            ;;
        --out)
            [[ $# -ge 2 ]] || { usage >&2; die "--out needs a directory"; }
            OUT="$2"
            shift
            ;;
        -h | --help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
    shift
done
IFS=, read -r -a bundle_list <<<"$BUNDLES"
for b in "${bundle_list[@]}"; do
    case "$b" in
        deb | rpm) ;;
        appimage) die "the AppImage needs linuxdeploy from GitHub, which this script does not fetch (docs/desktop.md)" ;;
        *) die "unknown bundle '$b' (deb or rpm)" ;;
    esac
done

install_tauri_cli() {
    command -v npm >/dev/null 2>&1 || die "npm not found (scripts/setup.sh installs it)"
    if [[ -x "$TAURI_CLI" ]] && [[ "$("$TAURI_CLI" --version 2>/dev/null)" == "tauri-cli $TAURI_CLI_VERSION" ]]; then
        echo "tauri-cli $TAURI_CLI_VERSION present" >&2
        return 0
    fi
    echo "installing @tauri-apps/cli@$TAURI_CLI_VERSION into $TAURI_CLI_PREFIX" >&2
    mkdir -p "$TAURI_CLI_PREFIX"
    npm install --prefix "$TAURI_CLI_PREFIX" --save-exact --no-audit --no-fund --no-update-notifier \
        --loglevel=error "@tauri-apps/cli@$TAURI_CLI_VERSION" >&2
    [[ "$("$TAURI_CLI" --version)" == "tauri-cli $TAURI_CLI_VERSION" ]] || die "the tauri-cli install failed"
}

step "package: the Tauri CLI"
install_tauri_cli

step "package: build the app ($PROFILE) and bundle $BUNDLES"
build_args=(build --bundles "$BUNDLES" --ci)
[[ "$PROFILE" == debug ]] && build_args+=(--debug)
# Built from src-tauri (tauri.conf.json); ui/dist is committed, so there is no frontend step.
started="$(now_us)"
# Its output goes to stderr: stdout is only the packages' paths (tests/package.test.sh reads them).
(cd "$ROOT/src-tauri" && "$TAURI_CLI" "${build_args[@]}") >&2
echo "built and bundled in $(fmt_us $(($(now_us) - started)))" >&2

finish_step
bundle_dir="$CARGO_TARGET_DIR/$PROFILE/bundle"
packages=()
for b in "${bundle_list[@]}"; do
    # The newest package of each type (older versions may lie beside it).
    newest="$(find "$bundle_dir/$b" -maxdepth 1 -type f -name "*.$b" -printf '%T@ %p\n' 2>/dev/null |
        sort -rn | head -n 1 | cut -d' ' -f2-)"
    [[ -n "$newest" ]] || die "no .$b under $bundle_dir/$b"
    packages+=("$newest")
done
if [[ -n "$OUT" ]]; then
    mkdir -p "$OUT"
    copied=()
    for p in "${packages[@]}"; do
        cp -- "$p" "$OUT/"
        copied+=("$OUT/$(basename -- "$p")")
    done
    packages=("${copied[@]}")
fi
printf '%s\n' "${packages[@]}"
