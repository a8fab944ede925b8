#!/usr/bin/env bash
# Switchboard's whole test suite, in one command, on a fresh machine or a used one.
#
#   scripts/test.sh          install what is missing (scripts/setup.sh), then the checks
#                            (scripts/checks.sh: UI build, icons, fmt, clippy, scripts), build,
#                            browser, desktop-app and tray tests, the .deb, the Rust tests once,
#                            instrumented under cargo-nextest (scripts/coverage.sh), Python tests,
#                            conformance (0.1.16, 0.2.x), the macOS and Windows type-checks
#                            (scripts/check-targets.sh), the fuzzers' short run
#   scripts/test.sh --quick  skip the install step, coverage (the Rust tests run uninstrumented),
#                            the Python suite and the cross-target checks (for iterating)
#
# Idempotent: a second run installs nothing. Everything it installs for the project lives in
# .tools/ (gitignored) except Debian packages, which it installs with apt-get when run as root.
# Steps that mostly wait run beside others: the venv, npm and toolchain installs beside fmt,
# clippy and the build; the cross-target checks and the fuzzers, niced, from the build to the
# end (they use the CPU the browser, desktop and conformance steps leave idle); the coverage
# run's instrumented build, niced less, from the build to its tests; the Python suite beside
# the conformance runs.
set -euo pipefail

usage() {
    sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
}

QUICK=0
for arg in "$@"; do
    case "$arg" in
        --quick) QUICK=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "test.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
    esac
done

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=scripts/checks.sh
source "$(dirname "${BASH_SOURCE[0]}")/checks.sh"

# --- Tests beside the cargo ones (ui/, src-tauri/, tests/ui/) ---------------------------------
ui_unit_tests() {
    (cd "$UI_DIR" && npx --no-install vitest run)
}

ui_browser_tests() {
    node --test tests/ui/browser.test.mjs tests/ui/firstrun.test.mjs tests/ui/held.test.mjs \
        tests/ui/activity.test.mjs tests/ui/tools.test.mjs tests/ui/pending.test.mjs \
        tests/ui/apps.test.mjs tests/ui/overrides.test.mjs tests/ui/registry.test.mjs
}

# `node --test FILE` in a virtual X display with its own session bus. xvfb-run goes on when
# its X server did not start (seen once, right after another Xvfb exited: the test's first X
# client could not open the display); only then is the run tried once more, on a new display.
# Any other failure fails the step as it is.
under_xvfb() {
    local out rc=0
    out="$(mktemp)"
    xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- node --test "$1" 2>&1 \
        | tee "$out" || rc=$?
    if [[ $rc -ne 0 ]] && grep -q "cannot open display" "$out"; then
        echo "under_xvfb: the X server for $1 did not start; running it once more" >&2
        rc=0
        xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- node --test "$1" || rc=$?
    fi
    rm -f "$out"
    return "$rc"
}

# The real Tauri binary in a virtual X display with its own session bus.
desktop_tests() {
    under_xvfb tests/ui/desktop.test.mjs
}

# The tray icon in a real tray host (trayer) under Xvfb, its menu clicked with xdotool;
# the notifications of calls waiting for approval answered through dunst.
tray_tests() {
    under_xvfb tests/ui/tray.test.mjs
}

# The keyring tests (#[ignore]d in the plain run) against a real Secret Service and kernel
# keyring (scripts/keyring-session.sh). The full run has them in the instrumented run
# (scripts/coverage.sh); --quick runs them here.
keyring_tests() {
    scripts/keyring-session.sh cargo test -p switchboard-e2e --test all keyring:: -- --ignored
}

# --- Fuzzing (fuzz/, cargo-fuzz on nightly; docs/reliability.md#fuzzing) --------------------
FUZZ_TARGETS=(config_parse catalog_names fast_path_sniff)
# Seconds per target in the short run (CI: 2 cores, 90 minutes for everything).
FUZZ_SECONDS="${FUZZ_SECONDS:-20}"

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
# The same at the lowest CPU priority, for the background (beside the conformance runs).
fuzz_short_niced() {
    renice -n 19 -p "$BASHPID" >/dev/null
    fuzz_short
}

pytest_suite() {
    local rc=0
    "$SWITCHBOARD_TEST_PYTHON" -m pytest -q -p no:cacheprovider tests/python \
        --ignore=tests/python/test_tasks.py || rc=$?
    if [[ $rc -eq 5 ]]; then
        die "pytest collected no tests in tests/python (exit 5): the Python suite must have tests"
    fi
    # Tasks (SEP-2663) with FastMCP 4, in its own venv (mcp 2.x; see requirements-tasks.txt).
    [[ $rc -eq 0 ]] || return "$rc"
    "${SWITCHBOARD_TEST_TASKS_PYTHON:?run scripts/setup.sh: no .tools/venv-tasks}" -m pytest -q \
        -p no:cacheprovider tests/python/test_tasks.py || rc=$?
    return "$rc"
}

# --- Conformance suite 0.2.x (scripts/conformance2.sh, docs/conformance.md "Suite 0.2.x") -----
# Every run is held to "every scenario that passes against the fixture directly passes through
# every route" (but for the named exceptions on http-pass, CONFORMANCE2_HTTP_KNOWN), and to
# tests/conformance-fixture/expected-pass.txt (what passes today, directly and per route).
CONFORMANCE2_STRICT_RUNS="${CONFORMANCE2_STRICT_RUNS:-all 2026-07-28 2025-11-25}"
export CONFORMANCE2_STRICT_RUNS

# --- Main -------------------------------------------------------------------------------------
if [[ $QUICK -eq 0 ]]; then
    step "install: system packages"
    install_system_packages
    # Network and disk: beside fmt, clippy and the build below.
    start_job "install: python venv (.tools/venv), $SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION (.tools/node)" \
        install_test_tools
    start_job "ui: npm ci" ui_install
    start_job "install: conformance suites and the TS fixture (scripts/conformance2.sh --install)" \
        scripts/conformance2.sh --install
    # rustup and cargo installs (no-ops once there), waited for where they are first needed.
    start_job "install: cargo-llvm-cov and llvm-tools" install_cargo_llvm_cov
    start_job "install: cargo-fuzz and the nightly toolchain" install_cargo_fuzz
    start_job "install: cross-target tools (rust targets, MinGW, zig, cargo-zigbuild)" install_cross_tools
    # Tests that need the tools above must fail, not skip, when they are missing.
    export SWITCHBOARD_REQUIRE_EXTERNAL=1
else
    echo "test.sh --quick: skipping installs, coverage and the Python suite" >&2
    if [[ ! -d "$UI_DIR/node_modules" ]]; then
        start_job "ui: npm ci" ui_install
    fi
fi
echo "CARGO_TARGET_DIR=$CARGO_TARGET_DIR" >&2

step "scripts: bash -n and shellcheck"
scripts_check
# ui/dist and icons/ are rebuilt before anything is compiled: the hub embeds ui/dist and the
# app the icons, so a rebuild after a compile would make the next cargo command compile again.
[[ -n "${JOB_PID["ui: npm ci"]:-}" ]] && wait_job "ui: npm ci"
ui_checks
rust_checks

step "cargo build --bins"
cargo build --workspace --bins

if [[ $QUICK -eq 0 ]]; then
    # The CPU-bound checks that no test waits for start here, at the lowest CPU priority: the
    # macOS and Windows type-checks (docs/platforms.md) and the fuzzers' build and short run,
    # each in a target dir of its own. They take what the tests below leave idle (browsers,
    # Xvfb, servers and conformance runs mostly wait), so the foreground gets the CPU first
    # and they are not left alone at the end of the run.
    wait_job "install: cross-target tools (rust targets, MinGW, zig, cargo-zigbuild)"
    start_job "check-targets: Windows and macOS (scripts/check-targets.sh)" \
        nice -n 19 scripts/check-targets.sh --no-install
    wait_job "install: cargo-fuzz and the nightly toolchain"
    start_job "fuzz: ${FUZZ_SECONDS}s per target (${FUZZ_TARGETS[*]})" fuzz_short_niced
    # The instrumented build of the one full Rust run (scripts/coverage.sh) starts here too, in
    # its own target dir, niced less than the two above (its tests wait for it in the middle
    # of the run, theirs are waited for only at the end) and more than the foreground: the
    # browser, desktop and package steps below mostly wait, and the build takes the CPU they
    # leave. Its tests run after them.
    wait_job "install: cargo-llvm-cov and llvm-tools"
    start_job "coverage: the instrumented build (scripts/coverage.sh --build-only)" \
        nice -n 10 scripts/coverage.sh --no-install --build-only
fi

for job in "install: python venv (.tools/venv), $SERVER_EVERYTHING_PKG@$SERVER_EVERYTHING_VERSION (.tools/node)" \
    "install: conformance suites and the TS fixture (scripts/conformance2.sh --install)"; do
    [[ -n "${JOB_PID[$job]:-}" ]] && wait_job "$job"
done
export_tool_env

step "ui: unit tests (vitest)"
ui_unit_tests

if [[ $QUICK -eq 0 ]]; then
    # The one full Rust run is the instrumented one (scripts/coverage.sh, below: every crate's
    # tests, the doc tests and the keyring tests) but for the desktop app's, which run here (its
    # instrumented build would be a second Tauri build).
    step "cargo test -p switchboard-app"
    cargo test -p switchboard-app --no-fail-fast
elif cargo nextest --version >/dev/null 2>&1; then
    step "cargo nextest run"
    cargo nextest run --workspace --no-fail-fast
    step "cargo test --doc"
    cargo test --workspace --doc
else
    step "cargo test"
    cargo test --workspace --no-fail-fast
fi

if [[ $QUICK -eq 1 ]]; then
    step "keyring: Secret Service tests under dbus-run-session (tests/tests/suite/keyring.rs)"
    keyring_tests
fi

step "ui: dashboard and an MCP App in Chromium (tests/ui/browser.test.mjs, firstrun, held, activity, tools, pending, apps, overrides, registry)"
ui_browser_tests

step "desktop: build the app (cargo build -p switchboard-app)"
cargo build -p switchboard-app
step "desktop: the app under Xvfb (tests/ui/desktop.test.mjs)"
desktop_tests
step "desktop: the tray menu in a tray host under Xvfb (tests/ui/tray.test.mjs)"
tray_tests
step "desktop: the README's first command (tests/app.test.sh: scripts/app.sh --check, then launched)"
xvfb-run -a -s '-screen 0 1280x800x24' dbus-run-session -- tests/app.test.sh
step "package: .deb and .rpm from the dev profile (scripts/package.sh --debug; tests/package.test.sh)"
tests/package.test.sh

# The benchmark is not pass/fail on speed; this only checks that it still runs
# end to end (every answer checked) with the debug builds made above.
step "bench: smoke run (bench/run.sh --smoke --debug --no-peers)"
bench/run.sh --smoke --debug --no-peers

if [[ $QUICK -eq 1 ]] && cargo fuzz --version >/dev/null 2>&1; then
    step "fuzz: ${FUZZ_SECONDS}s per target (${FUZZ_TARGETS[*]})"
    fuzz_short
fi

if [[ $QUICK -eq 0 ]]; then
    wait_job "coverage: the instrumented build (scripts/coverage.sh --build-only)"
    # Every Rust test but the app's (the one full Rust run), instrumented, in a target dir of
    # its own, with the keyring tests in their own session bus; the engine's line coverage
    # from it fails below 80%.
    step "coverage: scripts/coverage.sh --built (switchboard-core lines, at least 80%)"
    scripts/coverage.sh --no-install --built
fi

if [[ $QUICK -eq 0 ]]; then
    # Both mostly wait on the servers they start: the Python suite runs beside the
    # official MCP conformance suite (npm, needs Node 22: installed into .tools/node22
    # by the script; each run fails unless every scenario passes). Not beside the
    # browser and desktop steps: its scripts that loop until their deadline (code mode's
    # limits) compete with the windows those steps wait on.
    finish_step
    start_job "pytest tests/python" pytest_suite
    step "conformance: the fixture server directly (32 scenarios)"
    scripts/conformance.sh --direct
    step "conformance: through Switchboard, /servers/conf/mcp and merged /mcp"
    scripts/conformance.sh --through
    step "conformance: Switchboard's upstream client (client scenarios)"
    scripts/conformance.sh --client
    step "conformance 0.2.x: TS fixture directly and through 3 routes (strict: $CONFORMANCE2_STRICT_RUNS)"
    scripts/conformance2.sh --gate
    step "conformance 0.2.x: Switchboard's upstream client (client scenarios)"
    scripts/conformance2.sh --client
    step "conformance: Switchboard's OAuth client (auth/* client scenarios, strict: tests/conformance-auth/expected-pass.txt)"
    scripts/conformance-auth.sh
    wait_job "pytest tests/python"
    wait_job "check-targets: Windows and macOS (scripts/check-targets.sh)"
    wait_job "fuzz: ${FUZZ_SECONDS}s per target (${FUZZ_TARGETS[*]})"
fi

finish_step
print_summary
echo "test.sh: all steps passed" >&2
