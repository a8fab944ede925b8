#!/usr/bin/env bash
# The MCP conformance suite 0.2.x (pinned below) against the conformance repository's own
# TypeScript fixture (tests/conformance-fixture), directly and through Switchboard.
#
#   scripts/conformance2.sh [--gate | --report] [RUN...]
#                           run the suite directly against the fixture (HTTP) and through the three
#                           routes, compare per scenario, print the table and write it to
#                           $CONFORMANCE2_OUT/table.md (default target/conformance2/)
#   scripts/conformance2.sh --client [SCENARIO...]
#                           run the suite's non-auth client scenarios (CONFORMANCE2_CLIENT_SCENARIOS)
#                           with switchboard-conformance-client (Switchboard's upstream client as the
#                           client under test); fails when one in CONFORMANCE2_CLIENT_EXPECTED fails
#   scripts/conformance2.sh --install
#                           only install the suite and the fixture's npm dependencies (idempotent)
#   scripts/conformance2.sh --write-expected [RUN...]
#                           run, then write what passed (per run and route) to
#                           tests/conformance-fixture/expected-pass.txt
#
# RUN is one of: all (`server --suite all`), 2026-07-28 and 2025-11-25 (`server --requirements
# REV`); default: all three. The three routes (docs/conformance.md, "Suite 0.2.x"):
#   stdio-pass    /servers/conf/mcp, the fixture as a stdio upstream (`--stdio`)
#   stdio-merged  /mcp of the same hub, `"namespace": ""`
#   http-pass     /servers/conf/mcp of a second hub, the fixture as an HTTP upstream
# On the stdio routes the scenarios in CONFORMANCE2_STDIO_EXCLUDED are left out: they call
# tools (and a prompt) that only the fixture's HTTP layer has.
#
# --gate (default): exits non-zero when, for a run listed in CONFORMANCE2_STRICT_RUNS, a scenario
# that passed directly did not pass through a route (but for CONFORMANCE2_HTTP_KNOWN on
# http-pass); or when, in any run, a scenario listed in expected-pass.txt for that run and route
# (or for `direct`) did not pass. --report: prints the
# table, fails only when the harness itself cannot run (install, fixture or hub start).
#
# Environment: CONFORMANCE2_STRICT_RUNS (runs held to "every direct pass passes through every
# route"; default "all 2026-07-28 2025-11-25"), CONFORMANCE2_PREFIX (where the suite and the fixture's
# node_modules go; default .tools/conformance2), CONFORMANCE2_OUT (table and per-scenario
# checks.json; default target/conformance2), CONFORMANCE2_SCENARIO_TIMEOUT_MS (the suite's
# per-scenario timeout, default 20000), CONFORMANCE2_RUN_TIMEOUT_SECS (one suite run against
# one target, default 180; today each takes 1-5 s), SWITCHBOARD_BIN_DIR (the switchboard
# binary; default: a cargo build). Node 22 comes from .tools/node22 (scripts/conformance.sh
# installs it).

# --- Pinned versions and lists ----------------------------------------------------------------
CONFORMANCE2_SUITE_VERSION="0.2.0-alpha.12"
CONFORMANCE2_RUNS=(all 2026-07-28 2025-11-25)
# Scenarios that call tools only the fixture's HTTP layer (its stateless 2026-07-28 handler)
# serves: test_input_required_result_* (and the prompt test_input_required_result_prompt),
# test_missing_capability, test_streaming_elicitation, test_logging_tool,
# test_trigger_tool_change, test_trigger_prompt_change. Its `--stdio` server has none of them.
CONFORMANCE2_STDIO_EXCLUDED=(
    server-stateless
    input-required-result-basic-elicitation
    input-required-result-basic-sampling
    input-required-result-basic-list-roots
    input-required-result-request-state
    input-required-result-multiple-input-requests
    input-required-result-multi-round
    input-required-result-missing-input-response
    input-required-result-non-tool-request
    input-required-result-result-type
    input-required-result-tampered-state
    input-required-result-capability-check
    input-required-result-ignore-extra-params
    input-required-result-validate-input
)
# Scenarios that pass directly but not on http-pass, for a reason in the fixture's HTTP layer,
# as `scenario:reason` (docs/conformance.md, "Known exceptions on http-pass"). Strict runs do
# not count their failure on http-pass (and only there); the table marks them. Reasons:
#   speaks-2026  their tools send sampling/elicitation requests, which the fixture's stateless
#                2026-07-28 handler cannot send (the tool answers "Elicitation not supported or
#                error: MCP error -32601"); a 2025-11-25 session with the fixture, which the hub
#                does not open beside its 2026-07-28 one, is what they need.
#   ndjson       the fixture answers `test_streaming_elicitation` and `subscriptions/listen`
#                with several JSON-RPC messages, one per line, in one `application/json` body,
#                which no Streamable HTTP client reads (rmcp: "trailing characters at line 2");
#                the hub answers the call with a JSON-RPC error naming the server and that cause.
CONFORMANCE2_HTTP_KNOWN=(
    tools-call-sampling:speaks-2026 tools-call-elicitation:speaks-2026
    elicitation-sep1034-defaults:speaks-2026 elicitation-sep1330-enums:speaks-2026
    server-stateless:ndjson
)
# The suite's client scenarios run with the hub as the client (docs/conformance.md, "Client side"):
# every one not about OAuth and not an extension.
CONFORMANCE2_CLIENT_SCENARIOS=(
    initialize tools_call elicitation-sep1034-client-defaults sse-retry request-metadata
    sep-2322-client-request-state http-standard-headers http-custom-headers
    http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation
)
# Every one of them must pass (the gate): the list stays separate so that a scenario a new
# suite version adds can be run before it is held to.
CONFORMANCE2_CLIENT_EXPECTED=("${CONFORMANCE2_CLIENT_SCENARIOS[@]}")
# ----------------------------------------------------------------------------------------------

# shellcheck source=scripts/conformance.sh
source "$(dirname "${BASH_SOURCE[0]}")/conformance.sh"

CONFORMANCE2_FIXTURE_SRC="$CONFORMANCE_ROOT/tests/conformance-fixture"
CONFORMANCE2_EXPECTED="$CONFORMANCE2_FIXTURE_SRC/expected-pass.txt"
CONFORMANCE2_PREFIX="${CONFORMANCE2_PREFIX:-$CONFORMANCE_ROOT/.tools/conformance2}"
CONFORMANCE2_OUT="${CONFORMANCE2_OUT:-$CONFORMANCE_ROOT/target/conformance2}"
CONFORMANCE2_SUITE_BIN="$CONFORMANCE2_PREFIX/suite/node_modules/.bin/conformance"
CONFORMANCE2_FIXTURE_DIR="$CONFORMANCE2_PREFIX/fixture"
CONFORMANCE2_PIDS=()

conformance2_log() { echo "conformance2: $*" >&2; }
conformance2_die() {
    conformance2_log "$*"
    return 1
}

conformance2_suite_installed() {
    local pkg="$CONFORMANCE2_PREFIX/suite/node_modules/$CONFORMANCE_SUITE_PKG/package.json"
    [[ -f "$pkg" ]] || return 0
    conformance_node -p 'require(process.argv[1]).version' "$pkg" 2>/dev/null || true
}

# Installs node (scripts/conformance.sh), the pinned 0.2.x suite and the fixture's locked
# dependencies (npm ci, redone when package-lock.json changes); copies the fixture's source.
conformance2_install() {
    conformance_install || return 1
    local have
    have="$(conformance2_suite_installed)"
    if [[ "$have" != "$CONFORMANCE2_SUITE_VERSION" ]]; then
        conformance2_log "installing $CONFORMANCE_SUITE_PKG@$CONFORMANCE2_SUITE_VERSION into $CONFORMANCE2_PREFIX/suite (found: ${have:-none})"
        mkdir -p "$CONFORMANCE2_PREFIX/suite"
        PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout 600 npm install --prefix "$CONFORMANCE2_PREFIX/suite" \
            --save-exact --no-audit --no-fund --no-update-notifier --loglevel=error \
            "$CONFORMANCE_SUITE_PKG@$CONFORMANCE2_SUITE_VERSION" >&2 ||
            conformance2_die "npm install of the suite failed" || return 1
        have="$(conformance2_suite_installed)"
        [[ "$have" == "$CONFORMANCE2_SUITE_VERSION" ]] ||
            conformance2_die "suite install failed (found: ${have:-none})" || return 1
    fi
    local dir="$CONFORMANCE2_FIXTURE_DIR" stamp want
    mkdir -p "$dir"
    want="$(cat "$CONFORMANCE2_FIXTURE_SRC/package.json" "$CONFORMANCE2_FIXTURE_SRC/package-lock.json" | sha256sum | cut -d' ' -f1)"
    stamp="$(cat "$dir/.lock.sha256" 2>/dev/null || true)"
    if [[ "$stamp" != "$want" || ! -f "$dir/node_modules/tsx/dist/cli.mjs" ]]; then
        conformance2_log "installing the fixture's dependencies (npm ci) into $dir"
        cp "$CONFORMANCE2_FIXTURE_SRC/package.json" "$CONFORMANCE2_FIXTURE_SRC/package-lock.json" "$dir/"
        (cd "$dir" && PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout 600 npm ci --no-audit --no-fund \
            --no-update-notifier --loglevel=error) >&2 ||
            conformance2_die "npm ci of the fixture failed" || return 1
        echo "$want" >"$dir/.lock.sha256"
    fi
    # The source next to its node_modules (ESM resolves packages from the file's folder).
    cp "$CONFORMANCE2_FIXTURE_SRC/everything-server.ts" "$dir/everything-server.ts"
    conformance2_log "suite $CONFORMANCE2_SUITE_VERSION and the fixture ready in $CONFORMANCE2_PREFIX"
}

# The command line that runs the fixture (node + tsx's CLI + the source), without the mode flag.
conformance2_fixture_cmd() {
    printf '%s\n' "$CONFORMANCE_NODE_BIN/node" "$CONFORMANCE2_FIXTURE_DIR/node_modules/tsx/dist/cli.mjs" \
        "$CONFORMANCE2_FIXTURE_DIR/everything-server.ts"
}

# Stops every process this script started (each its own process group: tsx runs a child node).
conformance2_stop_all() {
    local pid waited
    for pid in "${CONFORMANCE2_PIDS[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${CONFORMANCE2_PIDS[@]}"; do
        waited=0
        while kill -0 "$pid" 2>/dev/null && [[ $waited -lt 50 ]]; do
            sleep 0.1
            waited=$((waited + 1))
        done
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    CONFORMANCE2_PIDS=()
}

# Waits (bounded) until FILE has a line matching the sed expression; prints the match.
# Fails when PID exits first or after SECS seconds.
conformance2_wait_line() {
    local file="$1" expr="$2" pid="$3" secs="$4" what="$5" line="" waited=0
    while :; do
        # The file is missing until the background process's redirection ran (sed fails then).
        line="$(sed -n "$expr" "$file" 2>/dev/null | head -n 1)" || line=""
        [[ -n "$line" ]] && break
        kill -0 "$pid" 2>/dev/null || conformance2_die "$what exited before it was ready" || return 1
        [[ $waited -lt $((secs * 10)) ]] || conformance2_die "$what was not ready within ${secs}s" || return 1
        sleep 0.1
        waited=$((waited + 1))
    done
    echo "$line"
}

# Starts the fixture over HTTP on a free loopback port; sets CONFORMANCE2_FIXTURE_URL.
conformance2_start_fixture() {
    local work="$1" cmd=()
    mapfile -t cmd < <(conformance2_fixture_cmd)
    (cd "$CONFORMANCE2_FIXTURE_DIR" && exec setsid env HOST=127.0.0.1 PORT=0 "${cmd[@]}") \
        >"$work/fixture.out" 2>"$work/fixture.err" &
    CONFORMANCE2_PIDS+=($!)
    local port
    port="$(conformance2_wait_line "$work/fixture.out" 's/^ *- MCP endpoint: http:\/\/localhost:\([0-9]*\)\/mcp$/\1/p' \
        "$!" 60 "the fixture")" || { cat "$work/fixture.err" >&2; return 1; }
    CONFORMANCE2_FIXTURE_URL="http://127.0.0.1:$port/mcp"
    conformance2_log "fixture listening on $CONFORMANCE2_FIXTURE_URL"
}

# Starts `switchboard serve` with DIR/config.json; waits until it listens and has started and
# listed its server `conf`; sets CONFORMANCE2_HUB_URL to its base URL (http://127.0.0.1:PORT).
# Runs in the calling shell (not in `$(...)`), so the pid is remembered for the cleanup.
conformance2_start_hub() {
    local bins="$1" dir="$2" url
    (exec setsid env PATH="$CONFORMANCE_NODE_BIN:$PATH" SWITCHBOARD_CACHE_DIR="$dir/cache" \
        "$bins/switchboard" serve --config "$dir/config.json" --listen 127.0.0.1:0) \
        >"$dir/stdout" 2>"$dir/stderr" &
    local pid=$!
    CONFORMANCE2_PIDS+=("$pid")
    url="$(conformance2_wait_line "$dir/stdout" 's/^Switchboard listening on \(http:.*\)\/mcp$/\1/p' \
        "$pid" 30 "switchboard ($dir)")" || { tail -n 40 "$dir/stderr" >&2; return 1; }
    # Start and list the upstream now (the control API's refresh waits for it), bounded.
    conformance_node - "$url/api/v1/servers/conf/refresh" "$dir/cache/control-token" <<'JS' ||
const fs = require("fs");
const [url, tokenFile] = process.argv.slice(2);
(async () => {
  const token = fs.readFileSync(tokenFile, "utf8").trim();
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(60000),
  });
  const body = await res.json();
  if (res.status !== 200 || !body.ok) {
    console.error(`conformance2: server conf did not start: ${res.status} ${body.error ?? ""}`);
    process.exit(1);
  }
})().catch((e) => {
  console.error(`conformance2: refreshing server conf failed: ${e}`);
  process.exit(1);
});
JS
        { tail -n 40 "$dir/stderr" >&2; return 1; }
    CONFORMANCE2_HUB_URL="$url"
}

# Runs the suite (RUN: all or a revision) against URL; writes DEST.txt (PASS/FAIL per scenario,
# from the suite's summary and checks.json) and keeps the checks in DEST.results/.
conformance2_suite() {
    local run="$1" url="$2" dest="$3" args=()
    case "$run" in
        all) args=(--suite all) ;;
        *) args=(--requirements "$run") ;;
    esac
    local secs="${CONFORMANCE2_RUN_TIMEOUT_SECS:-180}" ms="${CONFORMANCE2_SCENARIO_TIMEOUT_MS:-20000}" rc=0
    rm -rf "$dest.results" "$dest.log" "$dest.txt"
    mkdir -p "$dest.results"
    conformance2_log "server ${args[*]} against $url"
    (
        cd "$dest.results"
        PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout --kill-after=10 "$secs" \
            "$CONFORMANCE2_SUITE_BIN" server --url "$url" "${args[@]}" --timeout "$ms" -o "$dest.results"
    ) >"$dest.log" 2>&1 || rc=$?
    [[ $rc -eq 124 || $rc -eq 137 ]] && conformance2_log "the suite timed out after ${secs}s ($dest.log)"
    conformance_summarize "$dest.log" "$dest.results" >"$dest.txt" ||
        conformance2_die "cannot summarise $dest.log" || return 1
    # A scenario that threw (no checks.json) says why only in the log.
    sed -n 's/^\(Failed to run scenario .*\)$/        \1/p' "$dest.log" >>"$dest.txt"
    grep -q '^RESULT total=[1-9]' "$dest.txt" ||
        conformance2_die "no scenario results in $dest.log" || return 1
}

# Builds the table from OUT/<run>/<target>.txt and judges it; exits 1 on a gated failure.
conformance2_table() {
    local mode="$1"
    shift
    conformance_node - "$CONFORMANCE2_OUT" "$mode" "${CONFORMANCE2_STRICT_RUNS-all 2026-07-28 2025-11-25}" \
        "$CONFORMANCE2_EXPECTED" "${CONFORMANCE2_STDIO_EXCLUDED[*]}" "$*" \
        "${CONFORMANCE2_HTTP_KNOWN[*]}" <<'JS'
const fs = require("fs");
const path = require("path");
const [out, mode, strictRuns, expectedFile, excludedList, runList, httpKnownList] = process.argv.slice(2);
// scenario -> why it may fail on http-pass (CONFORMANCE2_HTTP_KNOWN)
const httpKnown = new Map((httpKnownList || "").split(/\s+/).filter(Boolean).map((e) => e.split(":")));
const knownWhy = {
  "speaks-2026": "known: http-pass speaks 2026-07-28",
  ndjson: "known: the fixture's line-delimited JSON answers",
};
const strict = new Set(strictRuns.split(/\s+/).filter(Boolean));
const excluded = new Set(excludedList.split(/\s+/).filter(Boolean));
const runs = runList.split(/\s+/).filter(Boolean);
const targets = ["direct", "stdio-pass", "stdio-merged", "http-pass"];
const expected = new Map(); // "run target" -> Set(scenario)
if (fs.existsSync(expectedFile)) {
  for (const line of fs.readFileSync(expectedFile, "utf8").split("\n")) {
    const t = line.trim();
    if (!t || t.startsWith("#")) continue;
    const [run, target, scenario] = t.split(/\s+/);
    const key = `${run} ${target}`;
    if (!expected.has(key)) expected.set(key, new Set());
    expected.get(key).add(scenario);
  }
}
const md = [];
const problems = [];
const passedLists = [];
for (const run of runs) {
  const res = {};
  const order = [];
  for (const t of targets) {
    res[t] = new Map();
    const file = path.join(out, run, `${t}.txt`);
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      const m = /^(PASS|FAIL)\s+(\S+)/.exec(line);
      if (!m) continue;
      res[t].set(m[2], m[1] === "PASS");
      if (!order.includes(m[2])) order.push(m[2]);
    }
  }
  const cell = (t, s) => {
    if (t !== "direct" && t !== "http-pass" && excluded.has(s)) return "n/a";
    if (!res[t].has(s)) return "—";
    return res[t].get(s) ? "pass" : "FAIL";
  };
  const totals = {};
  for (const t of targets) {
    const applicable = order.filter((s) => cell(t, s) !== "n/a");
    totals[t] = `${applicable.filter((s) => cell(t, s) === "pass").length}/${applicable.length}`;
  }
  const label = run === "all" ? "`server --suite all`" : `\`server --requirements ${run}\``;
  md.push(`### ${label}: ${order.length} scenarios`, "");
  md.push(`| scenario | ${targets.join(" | ")} |`, `|---|${targets.map(() => "---|").join("")}`);
  for (const s of order) {
    const cells = targets.map((t) => cell(t, s));
    const regress = res.direct.get(s) === true && cells.slice(1).some((c) => c !== "pass" && c !== "n/a");
    const known = httpKnown.has(s) && cell("http-pass", s) === "FAIL";
    const why = known ? ` (${knownWhy[httpKnown.get(s)] || `known: ${httpKnown.get(s)}`})` : " **(regression)**";
    md.push(`| ${s}${regress ? why : ""} | ${cells.join(" | ")} |`);
  }
  md.push(`| **passed** | ${targets.map((t) => totals[t]).join(" | ")} |`, "");
  for (const t of targets) {
    for (const s of order) if (cell(t, s) === "pass") passedLists.push(`${run} ${t} ${s}`);
  }
  // Judge.
  if (strict.has(run)) {
    for (const s of order) {
      if (res.direct.get(s) !== true) continue;
      for (const t of targets.slice(1)) {
        const c = cell(t, s);
        if (t === "http-pass" && httpKnown.has(s)) continue;
        if (c !== "pass" && c !== "n/a") problems.push(`${run}: ${s} passes directly but is ${c} on ${t}`);
      }
    }
  }
  for (const t of targets) {
    const want = expected.get(`${run} ${t}`);
    if (!want) continue;
    for (const s of want) {
      const c = cell(t, s);
      if (c !== "pass") problems.push(`${run}: ${s} is expected to pass on ${t} (expected-pass.txt) but is ${c}`);
    }
  }
}
fs.writeFileSync(path.join(out, "table.md"), md.join("\n"));
fs.writeFileSync(path.join(out, "passed.txt"), passedLists.join("\n") + "\n");
console.log(md.join("\n"));
if (problems.length) {
  console.log(`${mode === "gate" ? "FAILED" : "would fail in gate mode"}: ${problems.length} problem(s)`);
  for (const p of problems) console.log(`  ${p}`);
  process.exit(mode === "gate" ? 1 : 0);
}
console.log(`no regressions (strict runs: ${[...strict].join(" ") || "none"}; every run also against expected-pass.txt)`);
JS
}

# Installs, starts the fixture and two hubs, runs every RUN against direct and the three
# routes, then judges the table (MODE gate or report).
conformance2_main_run() {
    local mode="$1"
    shift
    local runs=("$@") run
    [[ ${#runs[@]} -gt 0 ]] || runs=("${CONFORMANCE2_RUNS[@]}")
    for run in "${runs[@]}"; do
        [[ " ${CONFORMANCE2_RUNS[*]} " == *" $run "* ]] ||
            conformance2_die "unknown run: $run (one of: ${CONFORMANCE2_RUNS[*]})" || return 2
    done
    conformance2_install || return 1
    local bins
    bins="$(conformance_bin_dir)" || return 1
    [[ -x "$bins/switchboard" ]] || conformance2_die "switchboard missing in $bins" || return 1
    local work
    work="$(mktemp -d "${TMPDIR:-/tmp}/conformance2.XXXXXX")"
    trap 'conformance2_stop_all; rm -rf "'"$work"'"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    conformance2_start_fixture "$work" || return 1
    local cmd=()
    mapfile -t cmd < <(conformance2_fixture_cmd)
    mkdir -p "$work/hub-stdio" "$work/hub-http"
    # The two hubs' configs (JSON.stringify: paths may hold any character).
    conformance_node - "$work" "$CONFORMANCE2_FIXTURE_URL" "${cmd[@]}" <<'JS' ||
const fs = require("fs");
const [work, url, command, ...args] = process.argv.slice(2);
const write = (dir, conf) =>
  fs.writeFileSync(`${work}/${dir}/config.json`, JSON.stringify({ mcpServers: { conf } }, null, 2) + "\n");
write("hub-stdio", { command, args: [...args, "--stdio"], namespace: "" });
write("hub-http", { url, namespace: "" });
JS
        conformance2_die "cannot write the hubs' configs" || return 1
    local stdio_hub http_hub
    conformance2_start_hub "$bins" "$work/hub-stdio" || return 1
    stdio_hub="$CONFORMANCE2_HUB_URL"
    conformance2_start_hub "$bins" "$work/hub-http" || return 1
    http_hub="$CONFORMANCE2_HUB_URL"
    conformance2_log "hubs: stdio upstream at $stdio_hub, HTTP upstream at $http_hub"

    rm -rf "$CONFORMANCE2_OUT"
    for run in "${runs[@]}"; do
        mkdir -p "$CONFORMANCE2_OUT/$run"
        conformance2_suite "$run" "$CONFORMANCE2_FIXTURE_URL" "$CONFORMANCE2_OUT/$run/direct" || return 1
        conformance2_suite "$run" "$stdio_hub/servers/conf/mcp" "$CONFORMANCE2_OUT/$run/stdio-pass" || return 1
        conformance2_suite "$run" "$stdio_hub/mcp" "$CONFORMANCE2_OUT/$run/stdio-merged" || return 1
        conformance2_suite "$run" "$http_hub/servers/conf/mcp" "$CONFORMANCE2_OUT/$run/http-pass" || return 1
    done
    # The hubs' logs stay with the results.
    cp "$work/hub-stdio/stderr" "$CONFORMANCE2_OUT/hub-stdio.stderr" 2>/dev/null || true
    cp "$work/hub-http/stderr" "$CONFORMANCE2_OUT/hub-http.stderr" 2>/dev/null || true
    cp "$work/fixture.err" "$CONFORMANCE2_OUT/fixture.stderr" 2>/dev/null || true
    conformance2_stop_all
    local rc=0
    conformance2_table "$mode" "${runs[@]}" || rc=$?
    conformance2_log "table in $CONFORMANCE2_OUT/table.md, per-scenario checks in $CONFORMANCE2_OUT/<run>/<route>.results"
    return $rc
}

# Runs the given client scenarios (default: CONFORMANCE2_CLIENT_SCENARIOS) one at a time with the
# pinned 0.2.x suite against switchboard-conformance-client (each bounded by the suite's timeout
# and CONFORMANCE2_RUN_TIMEOUT_SECS); prints PASS/FAIL per scenario and fails when one listed in
# CONFORMANCE2_CLIENT_EXPECTED did not pass.
conformance2_client() {
    local scenarios=("$@")
    [[ ${#scenarios[@]} -gt 0 ]] || scenarios=("${CONFORMANCE2_CLIENT_SCENARIOS[@]}")
    conformance2_install || return 1
    local bins client
    bins="$(conformance_bin_dir)" || return 1
    client="$bins/switchboard-conformance-client"
    [[ -x "$client" ]] || conformance2_die "switchboard-conformance-client not found at $client" || return 1
    local work="$CONFORMANCE2_OUT/client" scenario rc passed=0 failed_expected=()
    rm -rf "$work"
    mkdir -p "$work"
    for scenario in "${scenarios[@]}"; do
        rc=0
        (
            cd "$work"
            PATH="$CONFORMANCE_NODE_BIN:$PATH" timeout --kill-after=10 "${CONFORMANCE2_RUN_TIMEOUT_SECS:-180}" \
                "$CONFORMANCE2_SUITE_BIN" client --command "$client" --scenario "$scenario" \
                --timeout 30000 -o "$work/results"
        ) >"$work/$(tr '/' '_' <<<"$scenario").log" 2>&1 || rc=$?
        if [[ $rc -eq 0 ]]; then
            passed=$((passed + 1))
            printf 'PASS  %s\n' "$scenario"
        else
            printf 'FAIL  %s\n' "$scenario"
            if [[ " ${CONFORMANCE2_CLIENT_EXPECTED[*]} " == *" $scenario "* ]]; then
                failed_expected+=("$scenario")
                cat "$work/$(tr '/' '_' <<<"$scenario").log" >&2
            fi
        fi
    done
    echo "client scenarios (suite $CONFORMANCE2_SUITE_VERSION): $passed/${#scenarios[@]} passed"
    if [[ ${#failed_expected[@]} -gt 0 ]]; then
        conformance2_log "FAIL: expected to pass but did not: ${failed_expected[*]} (logs in $work)"
        return 1
    fi
    return 0
}

conformance2_main() {
    local mode=gate
    case "${1:-}" in
        -h | --help)
            sed -n '2,39p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            return 0
            ;;
        --install)
            conformance2_install
            return
            ;;
        --write-expected)
            shift
            local rc=0
            conformance2_main_run report "$@" || rc=$?
            [[ $rc -eq 0 ]] || return $rc
            {
                echo "# Scenarios that pass today, per run and route (scripts/conformance2.sh --write-expected)."
                echo "# Gated in every run: none of these may stop passing (on top of the strict runs' rule)."
                cat "$CONFORMANCE2_OUT/passed.txt"
            } >"$CONFORMANCE2_EXPECTED"
            conformance2_log "wrote $CONFORMANCE2_EXPECTED"
            return 0
            ;;
        --client)
            shift
            conformance2_client "$@"
            return
            ;;
        --gate) mode=gate; shift ;;
        --report) mode=report; shift ;;
        -*) conformance2_log "unknown option: $1"; return 2 ;;
    esac
    conformance2_main_run "$mode" "$@"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    conformance2_main "$@"
fi
