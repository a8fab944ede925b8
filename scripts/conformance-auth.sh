#!/usr/bin/env bash
# Run the official MCP conformance suite's OAuth client scenarios (`auth/*`, 22 in the pinned
# 0.1.16) with Switchboard's own OAuth client as the client under test.
#
#   scripts/conformance-auth.sh                  every auth/* scenario; one line per scenario and
#                                                a last line `auth: N/22 pass`; fails when a
#                                                scenario of tests/conformance-auth/expected-pass.txt
#                                                does not pass (strict: what passed keeps passing)
#   scripts/conformance-auth.sh NAME...          only these scenarios (same gate for them)
#   scripts/conformance-auth.sh --write-expected run all and write the passing ones to the list
#
# The client is switchboard-conformance-auth (crate switchboard-fixtures): an in-process hub
# whose only upstream is the scenario's server; it logs in with the hub's OAuth client (the
# suite's authorization server approves at once; the driver's "browser" follows its redirect
# to the hub's loopback callback), lists and calls through /mcp (docs/conformance.md, "OAuth
# client scenarios"). A scenario passes when the suite exits 0 for it: no FAILURE and no
# WARNING check, the client exited 0 within the timeout.
#
# Environment: CONFORMANCE_AUTH_BIN (the driver; default: SWITCHBOARD_BIN_DIR or a cargo build),
# CONFORMANCE_CLIENT_TIMEOUT_MS (per scenario, default 30000), CONFORMANCE_RESULTS_DIR (keep
# each scenario's checks.json, stdout.txt and stderr.txt), CONFORMANCE_TIMEOUT_SECS (per
# scenario run, default 120).
set -euo pipefail

# shellcheck source=scripts/conformance.sh
source "$(dirname "${BASH_SOURCE[0]}")/conformance.sh"

# Every auth/* client scenario of the pinned suite (`conformance list`), in its order.
AUTH_SCENARIOS=(
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3
    auth/basic-cimd auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit
    auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
    auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
    auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
    auth/offline-access-not-supported auth/client-credentials-jwt auth/client-credentials-basic
    auth/cross-app-access-complete-flow
)
AUTH_EXPECTED="$CONFORMANCE_ROOT/tests/conformance-auth/expected-pass.txt"

auth_log() { echo "conformance-auth: $*" >&2; }

# The scenarios the expected-pass list names (comments and blank lines skipped).
auth_expected() {
    [[ -f "$AUTH_EXPECTED" ]] || return 0
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$AUTH_EXPECTED" | sed '/^$/d'
}

auth_main() {
    local write=0 scenarios=()
    for arg in "$@"; do
        case "$arg" in
            --write-expected) write=1 ;;
            -h | --help) sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; return 0 ;;
            -*) auth_log "unknown option: $arg"; return 2 ;;
            *) scenarios+=("$arg") ;;
        esac
    done
    [[ ${#scenarios[@]} -gt 0 ]] || scenarios=("${AUTH_SCENARIOS[@]}")
    conformance_install || return 1
    local client="${CONFORMANCE_AUTH_BIN:-}"
    if [[ -z "$client" ]]; then
        local bins
        bins="$(conformance_bin_dir)" || return 1
        client="$bins/switchboard-conformance-auth"
    fi
    [[ -x "$client" ]] || { auth_log "switchboard-conformance-auth not found at $client"; return 1; }

    local work results keep=1
    work="$(mktemp -d "${TMPDIR:-/tmp}/conformance-auth.XXXXXX")"
    results="${CONFORMANCE_RESULTS_DIR:-}"
    if [[ -z "$results" ]]; then
        keep=0
        results="$work/results"
    fi
    mkdir -p "$results"
    local secs="${CONFORMANCE_TIMEOUT_SECS:-120}" ms="${CONFORMANCE_CLIENT_TIMEOUT_MS:-30000}"
    local scenario passed=0 rc log summary ok passing=()
    for scenario in "${scenarios[@]}"; do
        log="$work/$(tr '/' '_' <<<"$scenario").log"
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
            passing+=("$scenario")
            printf 'PASS  %-44s %s\n' "$scenario" "$(head -n 1 <<<"$summary")"
        else
            printf 'FAIL  %-44s %s\n' "$scenario" "$summary"
        fi
    done
    [[ $keep -eq 1 ]] && auth_log "per-scenario results kept in $results"
    rm -rf "$work"
    echo "auth: $passed/${#scenarios[@]} pass"

    if [[ $write -eq 1 ]]; then
        mkdir -p "$(dirname "$AUTH_EXPECTED")"
        {
            echo "# auth/* client scenarios that pass with switchboard-conformance-auth"
            echo "# (scripts/conformance-auth.sh --write-expected). Gated: none may stop passing."
            printf '%s\n' "${passing[@]}"
        } >"$AUTH_EXPECTED"
        auth_log "wrote ${#passing[@]} scenarios to $AUTH_EXPECTED"
        return 0
    fi
    # Strict: every expected scenario that ran must have passed.
    local expected regressed=()
    while IFS= read -r expected; do
        local ran=0 s
        for s in "${scenarios[@]}"; do [[ "$s" == "$expected" ]] && ran=1; done
        [[ $ran -eq 1 ]] || continue
        local did=0
        for s in "${passing[@]}"; do [[ "$s" == "$expected" ]] && did=1; done
        [[ $did -eq 1 ]] || regressed+=("$expected")
    done < <(auth_expected)
    if [[ ${#regressed[@]} -gt 0 ]]; then
        auth_log "FAIL: expected to pass but did not: ${regressed[*]}"
        return 1
    fi
    auth_log "PASS: every expected scenario passed ($passed/${#scenarios[@]} pass)"
}

auth_main "$@"
