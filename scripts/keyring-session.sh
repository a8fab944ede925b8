#!/usr/bin/env bash
# Runs a command where the keyring tests can reach a real OS keyring: a private session bus
# with GNOME Keyring's Secret Service unlocked (its keyrings in a temporary XDG_DATA_HOME), in
# a fresh kernel session keyring (`keyctl session -`: the inherited one may belong to another
# user and refuse access).
#
#   scripts/keyring-session.sh CMD [ARG...]
#
# Used by scripts/coverage.sh (the keyring tests, #[ignore]d in the plain run, inside the one
# instrumented run) and scripts/test.sh --quick.
set -euo pipefail

if [[ $# -eq 0 ]]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
fi
data="$(mktemp -d)"
trap 'rm -rf "$data"' EXIT
# shellcheck disable=SC2016 # expanded by the inner shell
XDG_DATA_HOME="$data" keyctl session - dbus-run-session -- bash -c \
    'echo -n ci | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' \
    keyring-session "$@"
