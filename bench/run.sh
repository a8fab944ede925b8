#!/usr/bin/env bash
# Switchboard benchmarks: the same tools/call load directly against an
# upstream, through Switchboard (HTTP and stdio upstreams, pass-through route)
# and through peer proxies, plus tools/list, start-up and memory. Writes
# docs/benchmarks.md.
#
#   bench/run.sh                 full run (under 10 minutes), writes docs/benchmarks.md
#   bench/run.sh --smoke         pipeline check for CI (under a minute after the build);
#                                tiny counts, every answer checked, exits non-zero on failure
#   bench/run.sh --smoke --debug the same with debug builds (what scripts/test.sh runs: the
#                                test suite has built them already; the figures mean nothing)
#   bench/run.sh --baseline bench/results/2026-11-30-370c0ed.jsonl
#                                full run whose report also compares the key figures with
#                                that earlier run ("Before and after")
#
# Options: --rounds N (2), --duration S per measurement (2), --no-build,
#          --no-peers, --out FILE (docs/benchmarks.md; smoke: a temp file),
#          --quiet CORES (0.3) --quiet-wait S (8): before each target, wait up to
#          S seconds for the machine's other work to drop below CORES busy cores,
#          --baseline FILE: an earlier run's results to compare with.
# A full run keeps its raw results as bench/results/<date>-<short commit>.jsonl
# (-2, -3… if taken already), ready to be the next run's --baseline.
# Peers are installed on first use into .tools/bench/ (gitignored): supergateway
# (npm), mcp-proxy (PyPI, with mcp<2) and fastmcp (PyPI), each in its own place.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMAND_LINE="bench/run.sh${*:+ $*}"
SMOKE=0 ROUNDS=2 DURATION=2 WARMUP=0.5 BUILD=1 PEERS=1 OUT="" QUIET=0.3 QUIET_WAIT=8 BASELINE="" PROFILE=release
while [[ $# -gt 0 ]]; do
    case "$1" in
        --smoke) SMOKE=1 ;;
        --rounds) ROUNDS=$2; shift ;;
        --duration) DURATION=$2; shift ;;
        --no-build) BUILD=0 ;;
        --no-peers) PEERS=0 ;;
        --out) OUT=$2; shift ;;
        --quiet) QUIET=$2; shift ;;
        --quiet-wait) QUIET_WAIT=$2; shift ;;
        --baseline) BASELINE=$2; shift ;;
        --debug) PROFILE=debug ;;
        -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
if [[ $PROFILE == debug && $SMOKE == 0 ]]; then
    echo "--debug is for --smoke only: debug builds are not worth measuring" >&2; exit 2
fi
# Checked now rather than after the run it would be compared with.
if [[ -n $BASELINE && ! -r $BASELINE ]]; then
    echo "--baseline $BASELINE: no such readable file" >&2; exit 2
fi

export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export FASTMCP_CHECK_FOR_UPDATES=off
REL=$CARGO_TARGET_DIR/$PROFILE
HUB=$REL/switchboard
FIXTURE=$REL/switchboard-fixture
BENCH=$REL/switchboard-bench
TOOLS=$ROOT/.tools/bench
EVERYTHING=$ROOT/.tools/node/node_modules/.bin/mcp-server-everything
WORK=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-bench.XXXXXX")
RESULTS=$WORK/results.jsonl
# The hub keeps a warm catalog on disk; never touch the user's, and give each
# hub start its own unless a test wants the warm start.
export SWITCHBOARD_CACHE_DIR=$WORK/cache
FAILED=0
STARTED=()

log() { printf '%s\n' "$*" >&2; }

cleanup() {
    trap '' PIPE # stderr may be a pipe whose reader is gone; finish the cleanup anyway
    local pid
    for pid in "${STARTED[@]}"; do stop "$pid"; done
    if [[ $SMOKE == 1 && $FAILED == 0 ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD... — runs CMD in its own session (so its whole process group
# can be stopped), output in $WORK/NAME.{out,err}; sets PID.
start() {
    local name=$1; shift
    # Remove old output first: the redirections below happen in the background,
    # and url_from must never read a previous process's address.
    rm -f "$WORK/$name.out" "$WORK/$name.err"
    setsid "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
    PID=$!
    STARTED+=("$PID")
}

# stop PID — SIGTERM to the process group started by `start`, SIGKILL after 5 s.
stop() {
    local pid=$1 i
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || return 0
    for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
        sleep 0.1
    done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

stop_all() {
    local pid
    for pid in "${STARTED[@]}"; do stop "$pid"; done
    STARTED=()
}

# url_from NAME PREFIX — waits for "PREFIX<url>" on NAME's stdout; sets URL.
url_from() {
    local name=$1 prefix=$2 i
    for i in $(seq 200); do
        # Missing until the background process's redirection ran (sed fails then).
        URL=$(sed -n "s|^$prefix||p" "$WORK/$name.out" 2>/dev/null | head -n1) || URL=""
        [[ -n $URL ]] && return 0
        sleep 0.05
    done
    log "$name printed no address; stderr:"; tail -n 20 "$WORK/$name.err" >&2
    return 1
}

record() { "$BENCH" note "$@" >>"$RESULTS"; }
skip() { log "  skipped $1 ($2): $3"; record --kind skip --target "$1" --upstream "$2" --value "$3"; }
describe() { record --kind describe --key "$1" --target "$2" --value "$3"; }

# hub_with NAME CONFIG_JSON [CACHE_DIR] — writes the config and starts the hub
# (with a fresh state directory unless one is given); sets HUB_PID, HUB_URL.
HUB_STARTS=0
hub_with() {
    HUB_STARTS=$((HUB_STARTS + 1))
    local cache=${3:-$WORK/cache-$HUB_STARTS}
    printf '%s\n' "$2" >"$WORK/$1.json"
    start "$1" env RUST_LOG=warn SWITCHBOARD_CACHE_DIR="$cache" "$HUB" serve --config "$WORK/$1.json" --listen 127.0.0.1:0
    HUB_PID=$PID
    url_from "$1" "Switchboard listening on " || return 1
    HUB_URL=$URL
}

# quiet — waits (bounded) for other work on the machine to calm down.
quiet() {
    [[ $SMOKE == 1 ]] && return 0
    local busy
    if ! busy=$("$BENCH" quiet --max-cores "$QUIET" --timeout "$QUIET_WAIT"); then
        log "  (machine still busy: $busy cores in use by others after ${QUIET_WAIT}s; measuring anyway)"
    fi
}

json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

# ---------------------------------------------------------------- build and peers
BUILD_NOTE=""
if [[ $BUILD == 1 ]]; then
    log "building ($PROFILE)…"
    PROFILE_FLAG=()
    [[ $PROFILE == release ]] && PROFILE_FLAG=(--release)
    (cd "$ROOT/bench" && cargo build "${PROFILE_FLAG[@]}" -q)
    if ! (cd "$ROOT" && cargo build "${PROFILE_FLAG[@]}" -q -p switchboard -p switchboard-fixtures); then
        # A full run measures the last good binaries (and says so) rather than
        # nothing when the tree is mid-edit; the CI smoke run must build.
        [[ $SMOKE == 1 ]] && exit 1
        BUILD_NOTE="the release build of the working tree failed; the last good binaries were measured"
        log "WARNING: $BUILD_NOTE"
    fi
fi
for bin in "$HUB" "$FIXTURE" "$BENCH"; do
    [[ -x $bin ]] || { log "missing $bin (run without --no-build)"; exit 1; }
done
# Measure copies, so a rebuild by someone else mid-run cannot mix versions.
mkdir -p "$WORK/bin"
cp "$HUB" "$FIXTURE" "$BENCH" "$WORK/bin/"
HUB=$WORK/bin/switchboard FIXTURE=$WORK/bin/switchboard-fixture BENCH=$WORK/bin/switchboard-bench

HAVE_SUPERGATEWAY=0 HAVE_MCP_PROXY=0 HAVE_FASTMCP=0
install_peers() {
    mkdir -p "$TOOLS"
    if [[ ! -x $TOOLS/node/node_modules/.bin/supergateway ]] && command -v npm >/dev/null; then
        log "installing supergateway into $TOOLS/node…"
        mkdir -p "$TOOLS/node"
        [[ -f $TOOLS/node/package.json ]] || echo '{"private":true}' >"$TOOLS/node/package.json"
        (cd "$TOOLS/node" && npm install --no-audit --no-fund --silent supergateway >&2) || true
    fi
    [[ -x $TOOLS/node/node_modules/.bin/supergateway ]] && HAVE_SUPERGATEWAY=1
    if [[ ! -x $TOOLS/mcp-proxy-venv/bin/mcp-proxy ]]; then
        log "installing mcp-proxy into $TOOLS/mcp-proxy-venv…"
        { python3 -m venv "$TOOLS/mcp-proxy-venv" &&
            "$TOOLS/mcp-proxy-venv/bin/pip" install -q mcp-proxy 'mcp<2' >&2; } || true
    fi
    [[ -x $TOOLS/mcp-proxy-venv/bin/mcp-proxy ]] && HAVE_MCP_PROXY=1
    if [[ ! -x $TOOLS/fastmcp-venv/bin/fastmcp ]]; then
        log "installing fastmcp into $TOOLS/fastmcp-venv…"
        { python3 -m venv "$TOOLS/fastmcp-venv" &&
            "$TOOLS/fastmcp-venv/bin/pip" install -q fastmcp >&2; } || true
    fi
    [[ -x $TOOLS/fastmcp-venv/bin/fastmcp ]] && HAVE_FASTMCP=1
    return 0
}
[[ $PEERS == 1 && $SMOKE == 0 ]] && install_peers

pip_version() { "$1/bin/python" -c "import importlib.metadata as m; print(m.version('$2'))" 2>/dev/null || echo "?"; }
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
SHORT_COMMIT=$commit RUN_DAY=$(date -u '+%Y-%m-%d')
[[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no -- crates 2>/dev/null) ]] && commit+=" + uncommitted changes in crates/"
versions="switchboard $("$HUB" --version | awk '{print $2}') (built from $commit, binary of $(date -u -r "$REL/switchboard" '+%H:%M UTC')), rustc $(rustc --version | awk '{print $2}'), node $(node --version 2>/dev/null || echo none)"
[[ -x $EVERYTHING ]] && versions+=", server-everything $(node -p "require('$ROOT/.tools/node/node_modules/@modelcontextprotocol/server-everything/package.json').version" 2>/dev/null)"
[[ $HAVE_SUPERGATEWAY == 1 ]] && versions+=", supergateway $(node -p "require('$TOOLS/node/node_modules/supergateway/package.json').version")"
[[ $HAVE_MCP_PROXY == 1 ]] && versions+=", mcp-proxy $(pip_version "$TOOLS/mcp-proxy-venv" mcp-proxy) (mcp $(pip_version "$TOOLS/mcp-proxy-venv" mcp))"
[[ $HAVE_FASTMCP == 1 ]] && versions+=", fastmcp $(pip_version "$TOOLS/fastmcp-venv" fastmcp) (mcp $(pip_version "$TOOLS/fastmcp-venv" mcp)), python $(python3 --version | awk '{print $2}')"
[[ -n $BUILD_NOTE ]] && versions+=" ($BUILD_NOTE)"
record --kind info --key versions --value "$versions"
record --kind info --key date --value "$(date -u '+%Y-%m-%d %H:%M UTC')"
record --kind info --key load_start --value "$(cut -d' ' -f1-3 /proc/loadavg)"

describe upstream fixture "Upstream: switchboard-fixture (Rust, rmcp), echo tool"
describe upstream everything "Upstream: @modelcontextprotocol/server-everything (Node), echo tool"
describe upstream-note fixture "The fixture answers in microseconds, so this table shows the cost of each proxy itself: with 2 cores shared by generator, proxy and upstream, a proxy that does a server's and a client's work per call cannot reach the direct rate; the CPU columns say how much each one spends per call."
describe upstream-note everything "server-everything's own Streamable HTTP transport is much costlier per call than its stdio transport, so every path that talks to its stdio form (Switchboard over stdio, the peers) can beat \"direct\"; compare the stdio paths with each other."
describe target direct "direct (client → upstream over HTTP)"
describe target hub-http "Switchboard /mcp, upstream over HTTP"
describe target hub-stdio "Switchboard /mcp, upstream over stdio"
describe target hub-passthrough "Switchboard /servers/&lt;id&gt;/mcp pass-through"
describe target hub-stdio-2026 "Switchboard /mcp, upstream over stdio, 2026-07-28 client (stateless)"
describe target supergateway "supergateway --stateful (stdio upstream)"
describe target mcp-proxy "mcp-proxy (stdio upstream)"
describe target fastmcp "FastMCP create_proxy (stdio upstream)"

# ---------------------------------------------------------------- call overhead
# Each target: start fresh processes, then measure 1, 16 and 64 sessions.
# Sets for `measure`: URL TOOL ARG PREFIX WATCH (array).
CONCURRENCY=(1 16 64)
COUNT_ARGS=(--duration "$DURATION" --warmup "$WARMUP")
if [[ $SMOKE == 1 ]]; then
    CONCURRENCY=(1 4)
    COUNT_ARGS=(--count 100 --warmup 0)
fi

measure() { # measure UPSTREAM TARGET ROUND
    local c
    for c in "${CONCURRENCY[@]}"; do
        if ! "$BENCH" call --url "$URL" --tool "$TOOL" --arg "$ARG" --expect-prefix "$PREFIX" \
            --sessions "$c" "${COUNT_ARGS[@]}" "${WATCH[@]}" "${PROTOCOL_ARGS[@]}" \
            --target "$2" --upstream "$1" --round "$3" >>"$RESULTS"; then
            FAILED=1
            log "  FAILED: $2 ($1) with $c sessions"
        fi
    done
}

# upstream_http UPSTREAM — starts the upstream over HTTP; sets UP_PID, UP_URL.
upstream_http() {
    case "$1" in
        fixture)
            start fixture "$FIXTURE" --http 127.0.0.1:0 --tools echo
            UP_PID=$PID
            url_from fixture "listening on " || return 1
            UP_URL=$URL ;;
        everything)
            # server-everything takes a port number, not 0: a port picked free can be taken
            # by another process before node binds it, so a start that exits is tried again
            # once on a new port.
            local port attempt
            for attempt in 1 2; do
                port=$("$BENCH" free-port)
                start everything env PORT="$port" "$EVERYTHING" streamableHttp
                UP_PID=$PID
                UP_URL=http://127.0.0.1:$port/mcp
                "$BENCH" wait --url "$UP_URL" --timeout 30 && return 0
                log "  server-everything (HTTP) did not answer on port $port (attempt $attempt); stderr:"
                tail -n 5 "$WORK/everything.err" >&2 2>/dev/null || true
                stop "$UP_PID"
            done
            return 1 ;;
    esac
}

# upstream_cmd UPSTREAM — the stdio command line as a bash array UP_CMD.
upstream_cmd() {
    case "$1" in
        fixture) UP_CMD=("$FIXTURE" --tools echo) ;;
        everything) UP_CMD=("$EVERYTHING" stdio) ;;
    esac
}

run_target() { # run_target UPSTREAM TARGET ROUND
    local upstream=$1 target=$2 round=$3 cmd_json
    TOOL=echo ARG=text PREFIX="" PROTOCOL_ARGS=()
    if [[ $upstream == everything ]]; then ARG=message PREFIX="Echo: "; fi
    upstream_cmd "$upstream"
    cmd_json="$(json_str "${UP_CMD[0]}"), \"args\": [$(
        sep=""; for a in "${UP_CMD[@]:1}"; do printf '%s%s' "$sep" "$(json_str "$a")"; sep=", "; done)]"
    local hub_name="hub-$target-$upstream-r$round"
    case "$target" in
        direct)
            upstream_http "$upstream" || { FAILED=1; return; }
            URL=$UP_URL WATCH=(--watch "upstream=$UP_PID") ;;
        hub-http|hub-passthrough)
            upstream_http "$upstream" || { FAILED=1; return; }
            hub_with "$hub_name" "{\"mcpServers\": {\"up\": {\"url\": \"$UP_URL\"}}}" || { FAILED=1; return; }
            URL=$HUB_URL TOOL=up__echo WATCH=(--watch "proxy=$HUB_PID" --watch "upstream=$UP_PID")
            if [[ $target == hub-passthrough ]]; then
                URL=${HUB_URL%/mcp}/servers/up/mcp TOOL=echo
                local rc=0
                "$BENCH" probe --url "$URL" 2>/dev/null || rc=$?
                if [[ $rc != 0 ]]; then
                    [[ $round == 1 ]] && skip hub-passthrough "$upstream" \
                        "the hub has no pass-through route yet (probe of /servers/<id>/mcp: $([[ $rc == 2 ]] && echo 'HTTP 404' || echo 'failed'))"
                    stop_all; return
                fi
            fi ;;
        hub-stdio|hub-stdio-2026)
            [[ $target == hub-stdio-2026 ]] && PROTOCOL_ARGS=(--stateless)
            hub_with "$hub_name" "{\"mcpServers\": {\"up\": {\"command\": $cmd_json}}}" || { FAILED=1; return; }
            URL=$HUB_URL TOOL=up__echo WATCH=(--watch "proxy=$HUB_PID" --watch "upstream=children:$HUB_PID") ;;
        supergateway)
            local port; port=$("$BENCH" free-port)
            start supergateway node "$TOOLS/node/node_modules/.bin/supergateway" \
                --stdio "${UP_CMD[*]}" --outputTransport streamableHttp --stateful \
                --port "$port" --streamableHttpPath /mcp --logLevel none
            URL=http://127.0.0.1:$port/mcp WATCH=(--watch "proxy=$PID" --watch "upstream=children:$PID") ;;
        mcp-proxy)
            local port; port=$("$BENCH" free-port)
            start mcp-proxy "$TOOLS/mcp-proxy-venv/bin/mcp-proxy" --host 127.0.0.1 --port "$port" \
                --log-level WARNING -- "${UP_CMD[@]}"
            URL=http://127.0.0.1:$port/mcp WATCH=(--watch "proxy=$PID" --watch "upstream=children:$PID") ;;
        fastmcp)
            local port; port=$("$BENCH" free-port)
            start fastmcp "$TOOLS/fastmcp-venv/bin/python" "$ROOT/bench/peers/fastmcp_proxy.py" \
                "$port" "${UP_CMD[@]}"
            URL=http://127.0.0.1:$port/mcp WATCH=(--watch "proxy=$PID" --watch "upstream=children:$PID") ;;
    esac
    quiet
    if ! "$BENCH" wait --url "$URL" --timeout 30; then
        FAILED=1; log "  $target ($upstream) never answered at $URL; stderr:"
        tail -n 20 "$WORK/$target.err" "$WORK/$hub_name.err" >&2 2>/dev/null || true
        stop_all; return
    fi
    measure "$upstream" "$target" "$round"
    stop_all
}

UPSTREAMS=(fixture)
if [[ -x $EVERYTHING ]]; then UPSTREAMS+=(everything); else
    skip direct everything "server-everything is not installed at $EVERYTHING"; fi
TARGETS=(direct hub-http hub-stdio hub-passthrough hub-stdio-2026)
if [[ $SMOKE == 0 ]]; then
    if [[ $HAVE_SUPERGATEWAY == 1 ]]; then TARGETS+=(supergateway); else skip supergateway fixture "not installed (npm install supergateway failed or --no-peers)"; fi
    if [[ $HAVE_MCP_PROXY == 1 ]]; then TARGETS+=(mcp-proxy); else skip mcp-proxy fixture "not installed (pip install mcp-proxy failed or --no-peers)"; fi
    if [[ $HAVE_FASTMCP == 1 ]]; then TARGETS+=(fastmcp); else skip fastmcp fixture "not installed (pip install fastmcp failed or --no-peers)"; fi
else
    ROUNDS=1
fi

for round in $(seq "$ROUNDS"); do
    for upstream in "${UPSTREAMS[@]}"; do
        log "round $round/$ROUNDS, upstream $upstream (load $(cut -d' ' -f1 /proc/loadavg))"
        for target in "${TARGETS[@]}"; do
            # Direct runs are interleaved with the others: one before each round's
            # through runs, so every round compares against a fresh direct figure.
            run_target "$upstream" "$target" "$round"
        done
    done
done

# ---------------------------------------------------------------- lists
SERVERS=50 PER_SERVER=100 LISTS=300
[[ $SMOKE == 1 ]] && SERVERS=5 PER_SERVER=10 LISTS=10
log "tools/list: $SERVERS servers × $PER_SERVER tools"
describe target lists "Switchboard /mcp, $SERVERS stdio servers × $PER_SERVER tools, fresh state"
"$BENCH" spec --tools "$PER_SERVER" --out "$WORK/spec.json"
servers_json=""
for i in $(seq -w 1 "$SERVERS"); do
    servers_json+="${servers_json:+, }\"l$i\": {\"command\": $(json_str "$FIXTURE"), \"args\": [\"--spec\", $(json_str "$WORK/spec.json"), \"--name\", \"l$i\"]}"
done
quiet
if hub_with lists "{\"mcpServers\": {$servers_json}}" "$WORK/cache-lists"; then
    "$BENCH" list --url "$HUB_URL" --count "$LISTS" --expect-tools $((SERVERS * PER_SERVER)) \
        --watch "proxy=$HUB_PID" --target lists >>"$RESULTS" || { FAILED=1; log "  FAILED: lists"; }
else
    FAILED=1
fi
sleep 1 # let the hub save its warm catalog (debounced), then restart it on the same state
stop_all
describe target lists-warm "same, hub restarted with its saved warm catalog (servers not running yet)"
quiet
if hub_with lists-warm "{\"mcpServers\": {$servers_json}}" "$WORK/cache-lists"; then
    "$BENCH" list --url "$HUB_URL" --count 20 --expect-tools $((SERVERS * PER_SERVER)) \
        --watch "proxy=$HUB_PID" --target lists-warm >>"$RESULTS" || { FAILED=1; log "  FAILED: lists (warm start)"; }
else
    FAILED=1
fi
stop_all

# ---------------------------------------------------------------- start-up
REPEAT=10
[[ $SMOKE == 1 ]] && REPEAT=1
for n in 0 100; do
    [[ $SMOKE == 1 && $n == 100 ]] && n=10
    quiet
    "$BENCH" startup --hub "$HUB" --fixture "$FIXTURE" --servers "$n" --repeat "$REPEAT" \
        >>"$RESULTS" || { FAILED=1; log "  FAILED: startup with $n servers"; }
done

# ---------------------------------------------------------------- reload and freshness
RELOAD_SERVERS=100 FRESH_REPEAT=10
[[ $SMOKE == 1 ]] && RELOAD_SERVERS=10 FRESH_REPEAT=2
log "reload and freshness"
quiet
# (records "unmeasured" instead if the hub has no POST /api/v1/reload)
"$BENCH" reload --hub "$HUB" --fixture "$FIXTURE" --servers "$RELOAD_SERVERS" --repeat "$FRESH_REPEAT" \
    >>"$RESULTS" || { FAILED=1; log "  FAILED: reload"; }
"$BENCH" freshness --hub "$HUB" --fixture "$FIXTURE" --repeat "$FRESH_REPEAT" \
    >>"$RESULTS" || { FAILED=1; log "  FAILED: freshness"; }
record --kind unmeasured --target "silent redeploys" --value "a change without list_changed is caught by the periodic poll (default every 300 s); its latency is the poll interval by design and is not benchmarked"

# ---------------------------------------------------------------- report
if [[ -z $OUT ]]; then
    if [[ $SMOKE == 1 ]]; then OUT=$WORK/benchmarks-smoke.md; else OUT=$ROOT/docs/benchmarks.md; fi
fi
REPORT_ARGS=()
[[ -n $BASELINE ]] && REPORT_ARGS=(--baseline "$BASELINE")
"$BENCH" report --results "$RESULTS" --out "$OUT" --command "$COMMAND_LINE" "${REPORT_ARGS[@]}"
if [[ $SMOKE == 0 ]]; then
    log "raw results: $RESULTS"
    # Keep them for the next run's --baseline (never overwriting an earlier file).
    mkdir -p "$ROOT/bench/results"
    SAVED=$ROOT/bench/results/$RUN_DAY-$SHORT_COMMIT.jsonl n=1
    while [[ -e $SAVED ]]; do
        n=$((n + 1)); SAVED=$ROOT/bench/results/$RUN_DAY-$SHORT_COMMIT-$n.jsonl
    done
    if cp "$RESULTS" "$SAVED"; then
        log "saved as ${SAVED#"$ROOT"/} (use it as --baseline next time)"
    else
        log "WARNING: could not save the results as $SAVED"
    fi
fi
if [[ $FAILED != 0 ]]; then
    log "FAILED (see above; work directory kept: $WORK)"
    exit 1
fi
log "ok"
