#!/usr/bin/env bash
# The checks that are not tests: the committed ui/dist and icons/ equal what their sources make,
# formatting, clippy, and the shell scripts (bash -n, shellcheck).
#
#   scripts/checks.sh    run them all (needs ui/node_modules: scripts/setup.sh)
#
# Sourced by scripts/test.sh for its check functions.
set -euo pipefail

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

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

# Every script parses, and shellcheck finds nothing.
scripts_check() {
    local script
    for script in "$ROOT"/scripts/*.sh "$ROOT"/tests/*.sh "$ROOT"/bench/run.sh; do
        bash -n "$script"
    done
    if command -v shellcheck >/dev/null 2>&1; then
        shellcheck -x "$ROOT"/scripts/*.sh "$ROOT"/tests/*.sh "$ROOT"/bench/run.sh
    else
        echo "shellcheck not installed (scripts/setup.sh installs it): skipped" >&2
    fi
}

# Formatting and lints of the whole workspace (the desktop app too).
rust_checks() {
    step "cargo fmt --check"
    cargo fmt --all -- --check
    step "cargo clippy"
    cargo clippy --workspace --all-targets -- -D warnings
}

ui_checks() {
    step "ui: build and compare with committed ui/dist"
    ui_build_and_check_dist
    step "icons: redraw and compare with committed icons/"
    icons_check
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    step "scripts: bash -n and shellcheck"
    scripts_check
    ui_checks
    rust_checks
    finish_step
    print_summary
fi
