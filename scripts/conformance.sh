#!/usr/bin/env bash
# Run the official MCP conformance suite's server scenarios against an MCP endpoint.
#
#   scripts/conformance.sh URL [EXPECTED_COUNT]   run `--suite all` against URL (Streamable HTTP)
#   scripts/conformance.sh --direct [EXPECTED_COUNT]
#                                                 build and start switchboard-conformance-fixture
#                                                 on a free loopback port, run the suite against
#                                                 it, stop it (EXPECTED_COUNT defaults to 32)
#   scripts/conformance.sh --through [EXPECTED_COUNT]
#                                                 start `switchboard serve` with the fixture as its
#                                                 only (stdio) upstream, `"namespace": ""`, and run
#                                                 the suite through the pass-through route
#                                                 /servers/conf/mcp and through the merged /mcp
#                                                 (needs SWITCHBOARD_BIN_DIR or a cargo build)
#   scripts/conformance.sh --install              only install the suite (idempotent)
#   scripts/conformance.sh --client [SCENARIO...] run the suite's client scenarios (default: initialize,
#                                                 tools_call, elicitation-sep1034-client-defaults,
#                                                 sse-retry) with switchboard-conformance-client, an
#                                                 in-process hub whose only upstream is the scenario's
#                                                 test server (see the "Client scenarios" section)
#
# Exits non-zero unless every scenario passed (and, when given, exactly EXPECTED_COUNT ran).
# Installs Node 22 and the pinned suite into .tools/node22 when missing (the suite needs
# Node >= 22; the `node` npm package ships a real node binary). Only the npm registry is used.
#
# Environment: CONFORMANCE_TIMEOUT_SECS (whole suite run, default 600),
# CONFORMANCE_RESULTS_DIR (keep the suite's per-scenario checks.json there; default: a temp
# dir, removed), CONFORMANCE_FIXTURE_BIN (fixture binary for --direct; default: cargo build).
# Source this file to get the functions without running anything (conformance_install,
# conformance_run URL [N], conformance_direct [N]); they return non-zero on failure and
# change no shell options. conformance_direct sets EXIT/INT/TERM traps to stop the fixture.

# --- Pinned versions --------------------------------------------------------------------------
CONFORMANCE_SUITE_PKG="@modelcontextprotocol/conformance"
CONFORMANCE_SUITE_VERSION="0.1.16"
CONFORMANCE_NODE_VERSION="22.23.3"
# Scenarios in `--suite all` of the pinned suite version.
CONFORMANCE_DIRECT_EXPECTED=32
# ----------------------------------------------------------------------------------------------

CONFORMANCE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFORMANCE_PREFIX="$CONFORMANCE_ROOT/.tools/node22"
CONFORMANCE_NODE_BIN="$CONFORMANCE_PREFIX/node_modules/.bin"
CONFORMANCE_SUITE_PKG_JSON="$CONFORMANCE_PREFIX/node_modules/$CONFORMANCE_SUITE_PKG/package.json"

conformance_log() { echo "conformance: $*" >&2; }
conformance_die() {
    conformance_log "$*"
    return 1
}
conformance_node() { "$CONFORMANCE_NODE_BIN/node" "$@"; }

# The installed suite version, or nothing.
conformance_installed_suite() {
    [[ -x "$CONFORMANCE_NODE_BIN/node" && -f "$CONFORMANCE_SUITE_PKG_JSON" ]] || return 0
    "$CONFORMANCE_NODE_BIN/node" -p 'require(process.argv[1]).version' \
        "$CONFORMANCE_SUITE_PKG_JSON" 2>/dev/null || true
}

# The installed node version (without the leading v), or nothing.
conformance_installed_node() {
    [[ -x "$CONFORMANCE_NODE_BIN/node" ]] || return 0
    local version
    version="$("$CONFORMANCE_NODE_BIN/node" --version 2>/dev/null || true)"
    echo "${version#v}"
}

# Installs node and the suite into .tools/node22 unless the pinned versions are there.
conformance_install() {
    local node_have suite_have
    node_have="$(conformance_installed_node)"
    suite_have="$(conformance_installed_suite)"
    if [[ "$node_have" == "$CONFORMANCE_NODE_VERSION" && "$suite_have" == "$CONFORMANCE_SUITE_VERSION" ]]; then
        conformance_log "node $node_have and $CONFORMANCE_SUITE_PKG@$suite_have present in $CONFORMANCE_PREFIX"
        return 0
    fi
    command -v npm >/dev/null 2>&1 || conformance_die "npm not found (needed once, to install the suite)" || return 1
    conformance_log "installing node@$CONFORMANCE_NODE_VERSION and $CONFORMANCE_SUITE_PKG@$CONFORMANCE_SUITE_VERSION into $CONFORMANCE_PREFIX (found: node ${node_have:-none}, suite ${suite_have:-none})"
    mkdir -p "$CONFORMANCE_PREFIX"
    # The `node` package fetches its binary in a preinstall script: scripts must run.
    timeout 600 npm install --prefix "$CONFORMANCE_PREFIX" --save-exact --no-audit --no-fund \
        --no-update-notifier --loglevel=error --ignore-scripts=false \
        "node@$CONFORMANCE_NODE_VERSION" "$CONFORMANCE_SUITE_PKG@$CONFORMANCE_SUITE_VERSION" >&2 ||
        conformance_die "npm install failed" || return 1
    node_have="$(conformance_installed_node)"
    suite_have="$(conformance_installed_suite)"
    [[ "$node_have" == "$CONFORMANCE_NODE_VERSION" ]] ||
        conformance_die "node install failed (found: ${node_have:-none}; did npm skip the node package's preinstall script?)" ||
        return 1
    [[ "$suite_have" == "$CONFORMANCE_SUITE_VERSION" ]] ||
        conformance_die "suite install failed (found: ${suite_have:-none})" || return 1
    conformance_log "installed node $node_have and $CONFORMANCE_SUITE_PKG@$suite_have"
}

# Summarises a suite run: reads its stdout log (the `=== SUMMARY ===` lines are the list of
# scenarios that ran) and the checks.json files of the results dir (why a scenario failed).
# Prints a table and a last line `RESULT total=N passed=P failed=F`.
conformance_summarize() {
    local log="$1" results="$2"
    conformance_node - "$log" "$results" <<'JS'
const fs = require("fs");
const path = require("path");
const [log, results] = process.argv.slice(2);
const text = fs.readFileSync(log, "utf8");
const announced = /Running \S+ suite \((\d+) scenarios\)/.exec(text);
const summary = text.split("=== SUMMARY ===")[1] ?? "";
const scenarios = [];
for (const line of summary.split("\n")) {
  const m = /^([✓✗]) (\S+): (\d+) passed, (\d+) failed/.exec(line.trim());
  if (m) scenarios.push({ ok: m[1] === "✓", name: m[2], checksPassed: +m[3], checksFailed: +m[4] });
}
// Per-scenario checks: results/server-<scenario>-<timestamp>/checks.json.
const details = new Map();
if (fs.existsSync(results)) {
  for (const dir of fs.readdirSync(results)) {
    const file = path.join(results, dir, "checks.json");
    if (!fs.existsSync(file)) continue;
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(dir);
    if (!m) continue;
    try { details.set(m[1], JSON.parse(fs.readFileSync(file, "utf8"))); } catch {}
  }
}
let passed = 0;
const rows = [];
for (const s of scenarios) {
  const checks = details.get(s.name) ?? [];
  const failures = checks.filter((c) => c.status === "FAILURE");
  const warnings = checks.filter((c) => c.status === "WARNING");
  const ok = s.ok && failures.length === 0;
  if (ok) passed++;
  rows.push(`${ok ? "PASS" : "FAIL"}  ${s.name.padEnd(32)} checks ${s.checksPassed} passed, ${s.checksFailed} failed${warnings.length ? `, ${warnings.length} warnings` : ""}`);
  for (const c of [...failures, ...warnings]) rows.push(`        ${c.status}: ${c.name}: ${c.errorMessage ?? c.description}`);
}
console.log(rows.join("\n"));
const total = scenarios.length;
if (announced && +announced[1] !== total) {
  console.log(`the suite announced ${announced[1]} scenarios but summarised ${total}`);
}
console.log(`scenarios: ${passed}/${total} passed`);
console.log(`RESULT total=${total} passed=${passed} failed=${total - passed} announced=${announced ? announced[1] : "?"}`);
JS
}

# Runs `--suite all` against URL; fails unless every scenario passed (and, if given, exactly
# EXPECTED scenarios ran).
conformance_run() {
    local url="$1" expected="${2:-}"
    [[ -z "$expected" || "$expected" =~ ^[0-9]+$ ]] || conformance_die "EXPECTED_COUNT must be a number: $expected" || return 1
    conformance_install || return 1
    local results keep=1 work log rc=0
    work="$(mktemp -d "${TMPDIR:-/tmp}/conformance.XXXXXX")"
    results="${CONFORMANCE_RESULTS_DIR:-}"
    if [[ -z "$results" ]]; then
        keep=0
        results="$work/results"
    fi
    mkdir -p "$results"
    log="$work/suite.log"
    local secs="${CONFORMANCE_TIMEOUT_SECS:-600}"
    conformance_log "running $CONFORMANCE_SUITE_PKG@$CONFORMANCE_SUITE_VERSION server --suite all against $url (timeout ${secs}s)"
    # Run from the work dir: the suite writes nothing elsewhere.
    (
        cd "$work"
        PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout --kill-after=10 "$secs" \
            "$CONFORMANCE_NODE_BIN/conformance" server --url "$url" --suite all -o "$results"
    ) >"$log" 2>&1 || rc=$?
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
        conformance_log "the suite timed out after ${secs}s; its output:"
        cat "$log" >&2
    fi
    local summary result
    summary="$(conformance_summarize "$log" "$results")" || {
        cat "$log" >&2
        rm -rf "$work"
        conformance_die "cannot summarise the suite output" || return 1
    }
    result="$(tail -n 1 <<<"$summary")"
    printf '%s\n' "$(sed '$d' <<<"$summary")"
    local total passed failed
    total="$(sed -n 's/.*total=\([0-9]*\).*/\1/p' <<<"$result")"
    passed="$(sed -n 's/.*passed=\([0-9]*\).*/\1/p' <<<"$result")"
    failed="$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' <<<"$result")"
    [[ $keep -eq 1 ]] && conformance_log "per-scenario checks kept in $results"
    local ok=1
    if [[ "${total:-0}" -eq 0 ]]; then
        conformance_log "no scenario results found; suite output:"
        cat "$log" >&2
        ok=0
    fi
    [[ "${failed:-1}" -eq 0 ]] || ok=0
    [[ $rc -eq 0 ]] || { conformance_log "the suite exited with status $rc"; ok=0; }
    if [[ -n "$expected" && "${total:-0}" -ne "$expected" ]]; then
        conformance_log "expected $expected scenarios, the suite ran ${total:-0}"
        ok=0
    fi
    rm -rf "$work"
    if [[ $ok -eq 1 ]]; then
        conformance_log "PASS: $passed/$total scenarios passed against $url"
        return 0
    fi
    conformance_log "FAIL: $passed/${total:-0} scenarios passed against $url"
    return 1
}

# Starts the fixture on a free port, runs the suite against it, stops it.
conformance_direct() {
    local expected="${1:-$CONFORMANCE_DIRECT_EXPECTED}"
    conformance_install || return 1
    local bin="${CONFORMANCE_FIXTURE_BIN:-}"
    if [[ -z "$bin" ]]; then
        if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
            PATH="$HOME/.cargo/bin:$PATH"
        fi
        conformance_log "building switchboard-conformance-fixture"
        (cd "$CONFORMANCE_ROOT" && cargo build --quiet -p switchboard-fixtures \
            --bin switchboard-conformance-fixture) >&2 || conformance_die "cargo build failed" || return 1
        local target
        target="$(cd "$CONFORMANCE_ROOT" && cargo metadata --format-version 1 --no-deps |
            conformance_node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')" ||
            conformance_die "cannot find cargo's target directory" || return 1
        bin="$target/debug/switchboard-conformance-fixture"
    fi
    [[ -x "$bin" ]] || conformance_die "fixture binary not found: $bin" || return 1

    local fixture_dir
    fixture_dir="$(mktemp -d "${TMPDIR:-/tmp}/conformance-fixture.XXXXXX")"
    local out="$fixture_dir/stdout" err="$fixture_dir/stderr"
    "$bin" --http 127.0.0.1:0 >"$out" 2>"$err" &
    CONFORMANCE_FIXTURE_PID=$!
    # Stop the fixture and remove its logs however this function or the script ends.
    trap 'conformance_stop_fixture; rm -rf "'"$fixture_dir"'"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    local url="" waited=0
    while [[ -z "$url" ]]; do
        # The file is missing until the background process's redirection ran (sed fails then).
        url="$(sed -n 's/^listening on \(http:.*\)$/\1/p' "$out" 2>/dev/null | head -n 1)" || url=""
        [[ -n "$url" ]] && break
        if ! kill -0 "$CONFORMANCE_FIXTURE_PID" 2>/dev/null; then
            cat "$err" >&2
            conformance_die "the fixture exited before announcing its address" || return 1
        fi
        if [[ $waited -ge 300 ]]; then
            cat "$err" >&2
            conformance_die "the fixture did not announce its address within 30s" || return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    conformance_log "fixture pid $CONFORMANCE_FIXTURE_PID listening on $url"
    local rc=0
    conformance_run "$url" "$expected" || rc=$?
    if [[ $rc -ne 0 && -s "$err" ]]; then
        conformance_log "fixture stderr (last 40 lines):"
        tail -n 40 "$err" >&2
    fi
    return $rc
}

# The folder with the built binaries: $SWITCHBOARD_BIN_DIR, else cargo's debug dir.
conformance_bin_dir() {
    if [[ -n "${SWITCHBOARD_BIN_DIR:-}" ]]; then
        echo "$SWITCHBOARD_BIN_DIR"
        return 0
    fi
    if ! command -v cargo >/dev/null 2>&1 && [[ -x "$HOME/.cargo/bin/cargo" ]]; then
        PATH="$HOME/.cargo/bin:$PATH"
    fi
    (cd "$CONFORMANCE_ROOT" && cargo build --quiet -p switchboard -p switchboard-fixtures) >&2 ||
        conformance_die "cargo build failed" || return 1
    local target
    target="$(cd "$CONFORMANCE_ROOT" && cargo metadata --format-version 1 --no-deps |
        conformance_node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')" ||
        conformance_die "cannot find cargo's target directory" || return 1
    echo "$target/debug"
}

# Runs the suite through Switchboard: the fixture is the hub's only upstream
# (stdio, namespace ""), reached once through /servers/conf/mcp and once
# through the merged /mcp.
conformance_through() {
    local expected="${1:-$CONFORMANCE_DIRECT_EXPECTED}"
    conformance_install || return 1
    local bins
    bins="$(conformance_bin_dir)" || return 1
    [[ -x "$bins/switchboard" && -x "$bins/switchboard-conformance-fixture" ]] ||
        conformance_die "switchboard or switchboard-conformance-fixture missing in $bins" || return 1
    local hub_dir
    hub_dir="$(mktemp -d "${TMPDIR:-/tmp}/conformance-hub.XXXXXX")"
    printf '{"mcpServers": {"conf": {"command": "%s", "namespace": ""}}}\n' \
        "$bins/switchboard-conformance-fixture" >"$hub_dir/config.json"
    local out="$hub_dir/stdout" err="$hub_dir/stderr"
    SWITCHBOARD_CACHE_DIR="$hub_dir/cache" "$bins/switchboard" serve \
        --config "$hub_dir/config.json" --listen 127.0.0.1:0 >"$out" 2>"$err" &
    CONFORMANCE_FIXTURE_PID=$!
    trap 'conformance_stop_fixture; rm -rf "'"$hub_dir"'"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    local url="" waited=0
    while [[ -z "$url" ]]; do
        # Missing until the hub's redirection ran (see conformance_direct).
        url="$(sed -n 's/^Switchboard listening on \(http:.*\)$/\1/p' "$out" 2>/dev/null | head -n 1)" || url=""
        [[ -n "$url" ]] && break
        if ! kill -0 "$CONFORMANCE_FIXTURE_PID" 2>/dev/null; then
            cat "$err" >&2
            conformance_die "switchboard exited before listening" || return 1
        fi
        if [[ $waited -ge 300 ]]; then
            conformance_die "switchboard did not listen within 30s" || return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    local base="${url%/mcp}" rc=0
    conformance_log "switchboard pid $CONFORMANCE_FIXTURE_PID listening on $url"
    conformance_run "$base/servers/conf/mcp" "$expected" || rc=$?
    conformance_run "$url" "$expected" || rc=$?
    if [[ $rc -ne 0 ]]; then
        conformance_log "switchboard stderr (last 60 lines):"
        tail -n 60 "$err" >&2
    fi
    return $rc
}

conformance_stop_fixture() {
    local pid="${CONFORMANCE_FIXTURE_PID:-}"
    [[ -n "$pid" ]] || return 0
    CONFORMANCE_FIXTURE_PID=""
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null && [[ $waited -lt 50 ]]; do
        sleep 0.1
        waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

conformance_usage() {
    sed -n '2,32p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

conformance_main() {
    if [[ $# -lt 1 ]]; then
        conformance_usage >&2
        return 2
    fi
    case "$1" in
        -h | --help) conformance_usage ;;
        --install) conformance_install ;;
        --direct)
            [[ $# -le 2 ]] || { conformance_usage >&2; return 2; }
            conformance_direct "${2:-}"
            ;;
        --through)
            [[ $# -le 2 ]] || { conformance_usage >&2; return 2; }
            conformance_through "${2:-}"
            ;;
        --client)
            shift
            conformance_client "$@"
            ;;
        -*) conformance_log "unknown option: $1"; conformance_usage >&2; return 2 ;;
        *)
            [[ $# -le 2 ]] || { conformance_usage >&2; return 2; }
            conformance_run "$1" "${2:-}"
            ;;
    esac
}

# --- Client scenarios (--client) --------------------------------------------------------------
# The suite's client scenarios run a client command against a test MCP server the suite starts
# per scenario (`conformance client --command CMD --scenario NAME`; it appends the server URL to
# CMD and sets MCP_CONFORMANCE_SCENARIO). CMD is switchboard-conformance-client: an in-process
# Switchboard hub whose only upstream is that server, so the suite observes Switchboard's own
# upstream client (docs/conformance.md, "Client side"). A scenario passes when the suite exits 0
# for it: no FAILURE and no WARNING check, the client exited 0 and did not time out (the suite's
# own rule for a single client scenario). Environment: CONFORMANCE_CLIENT_BIN (the driver;
# default: SWITCHBOARD_BIN_DIR or a cargo build), CONFORMANCE_CLIENT_TIMEOUT_MS (per scenario,
# passed to the suite, default 30000), CONFORMANCE_RESULTS_DIR (keep checks.json, stdout.txt and
# stderr.txt per scenario), CONFORMANCE_TIMEOUT_SECS (per suite run, default 600).

# Every client scenario of the pinned suite that is not about OAuth (the `core` suite minus auth/*).
CONFORMANCE_CLIENT_SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)

# Summarises one client scenario's newest results dir: prints `checks S passed, F failed, W warnings`
# and, indented, each FAILURE or WARNING; exits non-zero when no checks.json is found or no check
# succeeded.
conformance_client_summarize() {
    local results="$1" scenario="$2"
    conformance_node - "$results" "$scenario" <<'JS'
const fs = require("fs");
const path = require("path");
const [results, scenario] = process.argv.slice(2);
// The suite writes RESULTS/<scenario>-<ISO timestamp with - for : and .>/checks.json
// (a scenario like auth/x makes RESULTS/auth/x-<ts>).
const parent = path.join(results, path.dirname(scenario));
const base = path.basename(scenario);
const re = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z$`);
const dirs = fs.existsSync(parent) ? fs.readdirSync(parent).filter((d) => re.test(d)).sort() : [];
const file = dirs.length ? path.join(parent, dirs[dirs.length - 1], "checks.json") : null;
if (!file || !fs.existsSync(file)) {
  console.log("no checks.json written");
  process.exit(1);
}
const checks = JSON.parse(fs.readFileSync(file, "utf8"));
const count = (s) => checks.filter((c) => c.status === s).length;
const lines = [`checks ${count("SUCCESS")} passed, ${count("FAILURE")} failed, ${count("WARNING")} warnings`];
for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")) {
  lines.push(`        ${c.status}: ${c.name}: ${c.errorMessage ?? c.description}`);
}
console.log(lines.join("\n"));
process.exit(count("SUCCESS") > 0 && count("FAILURE") === 0 && count("WARNING") === 0 ? 0 : 1);
JS
}

# Runs the given client scenarios (default: CONFORMANCE_CLIENT_SCENARIOS) one at a time against
# switchboard-conformance-client; fails unless every one passed.
conformance_client() {
    local scenarios=("$@")
    [[ ${#scenarios[@]} -gt 0 ]] || scenarios=("${CONFORMANCE_CLIENT_SCENARIOS[@]}")
    conformance_install || return 1
    local client="${CONFORMANCE_CLIENT_BIN:-}"
    if [[ -z "$client" ]]; then
        local bins
        bins="$(conformance_bin_dir)" || return 1
        client="$bins/switchboard-conformance-client"
    fi
    [[ -x "$client" ]] || conformance_die "switchboard-conformance-client not found at $client" || return 1
    local work results keep=1
    work="$(mktemp -d "${TMPDIR:-/tmp}/conformance-client.XXXXXX")"
    results="${CONFORMANCE_RESULTS_DIR:-}"
    if [[ -z "$results" ]]; then
        keep=0
        results="$work/results"
    fi
    mkdir -p "$results"
    local secs="${CONFORMANCE_TIMEOUT_SECS:-600}" ms="${CONFORMANCE_CLIENT_TIMEOUT_MS:-30000}"
    local scenario passed=0 total=0 rc log summary ok
    for scenario in "${scenarios[@]}"; do
        total=$((total + 1))
        log="$work/$(tr '/' '_' <<<"$scenario").log"
        conformance_log "client scenario $scenario: conformance client --command $client --scenario $scenario"
        rc=0
        (
            cd "$work"
            PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout --kill-after=10 "$secs" \
                "$CONFORMANCE_NODE_BIN/conformance" client --command "$client" \
                --scenario "$scenario" --timeout "$ms" -o "$results"
        ) >"$log" 2>&1 || rc=$?
        ok=1
        summary="$(conformance_client_summarize "$results" "$scenario")" || ok=0
        [[ $rc -eq 0 ]] || ok=0
        if [[ $ok -eq 1 ]]; then
            passed=$((passed + 1))
            printf 'PASS  %-40s %s\n' "$scenario" "$summary"
        else
            printf 'FAIL  %-40s %s\n' "$scenario" "$summary"
            conformance_log "the suite exited with status $rc for $scenario; its output:"
            cat "$log" >&2
        fi
    done
    rm -rf "$work"
    [[ $keep -eq 1 ]] && conformance_log "per-scenario results kept in $results"
    echo "client scenarios: $passed/$total passed"
    if [[ $passed -eq $total ]]; then
        conformance_log "PASS: $passed/$total client scenarios passed against $client"
        return 0
    fi
    conformance_log "FAIL: $passed/$total client scenarios passed against $client"
    return 1
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    conformance_main "$@"
fi
