#!/usr/bin/env bash
# Counts what issue #28 item 5 ("tests speak the contract") wants gone from
# the end-to-end suites (tests/tests/suite/*.rs):
#   - string-key reads of the hub's snapshot JSON (`s["state"]`,
#     `status["servers"]`, `.get("toolCount")`) instead of the typed
#     `switchboard_api` snapshot;
#   - fixed sleeps (`sleep(`) in place of a wait on a condition;
#   - polls (`eventually(`) where an event could be waited on;
#   - which suites start the real binary and which the in-process engine.
# The snapshot's keys are read from the wire types themselves
# (crates/switchboard-api/src/snapshot.rs), so a new field is counted without
# editing this script. Keys that mostly index other JSON (MCP results, config
# files, control-API answers of other types) are left out, as are lines that
# read a config file (`mcpServers`): a heuristic, good for before/after.
#
# Usage: tests/string-keys.sh [-v]   (-v lists every counted line)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITES="$ROOT/tests/tests/suite"
VERBOSE=0
[[ "${1:-}" == "-v" ]] && VERBOSE=1

# Keys shared with MCP results, config files and JSON-RPC errors.
GENERIC='^(tools|message|client|required|at|version|errors|id|name|enabled)$'
keys="$(awk '
    /^pub struct (HubSnapshot|Totals|ServerSnapshot|SandboxStatus|BreakerSnapshot|ListChange|SessionSnapshot|AuthSnapshot|ReloadResult) /{on=1; next}
    on && /^}/ {on=0}
    on && /^    pub [a-z_]+:/ {sub(/^    pub /, ""); sub(/:.*/, ""); print}
' "$ROOT/crates/switchboard-api/src/snapshot.rs" |
    perl -pe 's/_([a-z])/\U$1/g' | sort -u | grep -Ev "$GENERIC" | paste -sd'|')"
pattern="(\\[\"($keys)\"\\]|\\.get\\(\"($keys)\"\\))"

lines="$(grep -nE "$pattern" "$SUITES"/*.rs | grep -v 'mcpServers' || true)"
reads=0
if [[ -n "$lines" ]]; then
    reads="$(printf '%s\n' "$lines" | grep -oE "$pattern" | wc -l)"
fi
sleeps="$(cat "$SUITES"/*.rs | grep -cE '(tokio::time::|std::thread::|\b)sleep\(' || true)"
polls="$(cat "$SUITES"/*.rs | grep -cE '\beventually\(' || true)"
process="$(grep -lE 'Hub::start' "$SUITES"/*.rs | wc -l)"
engine="$(grep -lE 'Engine::(start|serve)' "$SUITES"/*.rs | wc -l)"
# Tests in the files that start one kind of hub.
tests_in() {
    grep -lE "$1" "$SUITES"/*.rs | while read -r f; do grep -c '#\[tokio::test' "$f"; done |
        awk '{n += $1} END {print n + 0}'
}
process_tests="$(tests_in 'Hub::start')"
engine_tests="$(tests_in 'Engine::(start|serve)')"

if [[ $VERBOSE -eq 1 && -n "$lines" ]]; then
    printf '%s\n' "$lines" | sed "s|$ROOT/||"
fi
echo "snapshot string-key reads: $reads"
echo "fixed sleeps: $sleeps"
echo "eventually polls: $polls"
echo "suites on the real binary: $process files, $process_tests tests"
echo "suites on the in-process engine: $engine files, $engine_tests tests"
