#!/usr/bin/env bash
# Shared by scripts/test.sh, setup.sh and checks.sh (sourced, not run): where things are, the
# build environment, the step headers and the timing summary.
#
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file

[[ -n "${SWITCHBOARD_SCRIPTS_COMMON:-}" ]] && return 0
SWITCHBOARD_SCRIPTS_COMMON=1
SCRIPT_NAME="$(basename "$0")"

# The reference MCP server the end-to-end tests talk to over stdio.
SERVER_EVERYTHING_PKG="@modelcontextprotocol/server-everything"
SERVER_EVERYTHING_VERSION="2026.8.31"
# Its dist/index.js picks the transport from argv[1] (default "stdio"); we say it explicitly.
SERVER_EVERYTHING_ARGS="stdio"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

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
# Gemini CLI, a real AI client the Python suite points at the hub (tests/python/test_gemini_cli.py).
GEMINI_CLI_PKG="@google/gemini-cli"
GEMINI_CLI_VERSION="0.61.0"
GEMINI_PREFIX="$TOOLS/gemini"
GEMINI_CLI_BIN="$GEMINI_PREFIX/node_modules/.bin/gemini"
# The MCP Apps examples (ext-apps) that both name their UI ui://get-time/mcp-app.html: the e2e
# test tests/tests/suite/apps.rs and the browser test tests/ui/apps.test.mjs run them behind one hub.
EXT_APPS_PKGS=("@modelcontextprotocol/server-basic-vanillajs" "@modelcontextprotocol/server-basic-preact")
EXT_APPS_VERSION="2.0.3"
EXT_APPS_PREFIX="$TOOLS/ext-apps"
EXT_APPS_VANILLA_BIN="$EXT_APPS_PREFIX/node_modules/.bin/mcp-server-basic-vanillajs"
EXT_APPS_PREACT_BIN="$EXT_APPS_PREFIX/node_modules/.bin/mcp-server-basic-preact"
VENV="$TOOLS/venv"
VENV_PY="$VENV/bin/python"
REQUIREMENTS="$ROOT/tests/python/requirements.txt"
REQUIREMENTS_STAMP="$VENV/.requirements.sha256"
# FastMCP 4 for the task tests (tests/python/test_tasks.py), apart: it needs mcp 2.x.
TASKS_VENV="$TOOLS/venv-tasks"
TASKS_VENV_PY="$TASKS_VENV/bin/python"
TASKS_REQUIREMENTS="$ROOT/tests/python/requirements-tasks.txt"
UI_DIR="$ROOT/ui"

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

# Ends the current step as failed without stopping the script, for a script that goes on
# to its other checks and fails at the end (scripts/check-targets.sh).
fail_step() {
    if [[ -n "$CURRENT_STEP" ]]; then
        local took
        took="$(fmt_us $(($(now_us) - STEP_T0)))"
        printf '<== %s: FAILED (%s)\n' "$CURRENT_STEP" "$took" >&2
        SUMMARY+=("FAILED  $took  $CURRENT_STEP")
        CURRENT_STEP=""
    fi
}

print_summary() {
    local line
    printf '\n---- %s summary (total %s) ----\n' "$SCRIPT_NAME" "$(fmt_us $(($(now_us) - RUN_T0)))" >&2
    for line in "${SUMMARY[@]}"; do
        printf '  %s\n' "$line" >&2
    done
}

on_exit() {
    local rc=$?
    stop_jobs
    if [[ $rc -ne 0 ]]; then
        if [[ -n "$CURRENT_STEP" ]]; then
            local took
            took="$(fmt_us $(($(now_us) - STEP_T0)))"
            printf '<== %s: FAILED (exit %d, %s)\n' "$CURRENT_STEP" "$rc" "$took" >&2
            SUMMARY+=("FAILED  $took  $CURRENT_STEP")
        fi
        print_summary
        printf '%s: FAILED\n' "$SCRIPT_NAME" >&2
    fi
}
trap on_exit EXIT

# --- Steps in the background ------------------------------------------------------------------
# A step that mostly waits (network, disk, test servers) can run beside the foreground steps:
# `start_job NAME FUNCTION...` starts it with its output in a log, `wait_job NAME` waits for it,
# shows the log and adds it to the summary (a failure stops the script like a foreground one).
declare -A JOB_PID=() JOB_LOG=() JOB_T0=()

start_job() {
    local name="$1"
    shift
    JOB_LOG[$name]="$(mktemp "${TMPDIR:-/tmp}/switchboard-job.XXXXXX")"
    JOB_T0[$name]="$(now_us)"
    printf '\n==> [%s] %s (in the background)\n' "$(date +%H:%M:%S)" "$name" >&2
    # shellcheck disable=SC2064 # the log's name is fixed now
    (
        trap "now_us >'${JOB_LOG[$name]}.end'" EXIT
        "$@"
    ) >"${JOB_LOG[$name]}" 2>&1 &
    JOB_PID[$name]=$!
}

wait_job() {
    local name="$1" rc=0 took
    finish_step
    wait "${JOB_PID[$name]}" || rc=$?
    local end
    end="$(cat "${JOB_LOG[$name]}.end" 2>/dev/null || now_us)"
    took="$(fmt_us $((end - JOB_T0[$name])))"
    printf '\n---- %s (background) output ----\n' "$name" >&2
    cat "${JOB_LOG[$name]}" >&2
    rm -f "${JOB_LOG[$name]}" "${JOB_LOG[$name]}.end"
    unset "JOB_PID[$name]"
    if [[ $rc -ne 0 ]]; then
        printf '<== %s: FAILED (exit %d, %s)\n' "$name" "$rc" "$took" >&2
        SUMMARY+=("FAILED  $took  $name (background)")
        exit "$rc"
    fi
    printf '<== %s: ok (%s)\n' "$name" "$took" >&2
    SUMMARY+=("ok      $took  $name (background)")
}

# Background steps still running when the script stops (a foreground failure) are ended.
stop_jobs() {
    local pid
    for pid in "${JOB_PID[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
}

die() {
    echo "$SCRIPT_NAME: $*" >&2
    exit 1
}

export_tool_env() {
    if [[ -x "$SERVER_EVERYTHING_BIN" ]]; then
        export SWITCHBOARD_TEST_SERVER_EVERYTHING="$SERVER_EVERYTHING_BIN"
        export SWITCHBOARD_TEST_SERVER_EVERYTHING_ARGS="$SERVER_EVERYTHING_ARGS"
    fi
    if [[ -x "$VENV_PY" ]]; then
        export SWITCHBOARD_TEST_PYTHON="$VENV_PY"
    fi
    if [[ -x "$TASKS_VENV_PY" ]]; then
        export SWITCHBOARD_TEST_TASKS_PYTHON="$TASKS_VENV_PY"
    fi
    if [[ -x "$GEMINI_CLI_BIN" ]]; then
        export SWITCHBOARD_TEST_GEMINI="$GEMINI_CLI_BIN"
    fi
    if [[ -x "$EXT_APPS_VANILLA_BIN" && -x "$EXT_APPS_PREACT_BIN" ]]; then
        export SWITCHBOARD_TEST_APP_VANILLA="$EXT_APPS_VANILLA_BIN"
        export SWITCHBOARD_TEST_APP_PREACT="$EXT_APPS_PREACT_BIN"
    fi
}
