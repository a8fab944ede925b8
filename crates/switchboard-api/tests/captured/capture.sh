#!/bin/bash
# Captures real control-API answers into this folder (for tests/roundtrip.rs):
# runs `switchboard serve` with fixture servers (one ready, one that cannot
# start, a remote one that nobody serves, a disabled one, one disabled through
# the API), connects one MCP session, and saves what each route answers.
# Machine-specific paths, the port and the sign-in code are replaced.
#   usage: capture.sh [BIN_DIR]   (default: target/debug, after
#          `cargo build -p switchboard -p switchboard-fixtures --bins`)
set -euo pipefail
BIN=$(cd "${1:-target/debug}" && pwd)
OUT=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d)
cat > $D/config.json <<JSON
{
  "mcpServers": {
    "notes": {"command": "$BIN/switchboard-fixture", "args": ["--tools", "search,tag", "--name", "notes-server"]},
    "broken": {"command": "/nonexistent/bin"},
    "remote": {"url": "http://127.0.0.1:9/mcp"},
    "off": {"command": "$BIN/switchboard-fixture", "enabled": false},
    "spare": {"command": "$BIN/switchboard-fixture", "args": ["--tools", "z"]}
  }
}
JSON
export SWITCHBOARD_CACHE_DIR=$D/cache SWITCHBOARD_BUILTIN_TOOLS=0
$BIN/switchboard serve --listen 127.0.0.1:0 --config $D/config.json > $D/out 2> $D/log &
HUB=$!
trap 'kill $HUB 2>/dev/null; wait $HUB 2>/dev/null; rm -rf $D' EXIT
for i in $(seq 100); do grep -q listening $D/out && break; sleep 0.1; done
BASE=$(sed -n 's#Switchboard listening on \(.*\)/mcp#\1#p' $D/out)
TOKEN=$(cat $D/cache/control-token)
api() { curl -sS -X "$1" -H "Authorization: Bearer $TOKEN" "$BASE/api/v1$2"; }
clean() { sed -e "s#$D/config.json#/home/me/.config/switchboard/config.json#g" -e "s#$BIN/#/usr/local/bin/#g" -e "s#$BASE#http://127.0.0.1:8420#g"; }
curl -sS -o /dev/null -X POST "$BASE/mcp" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"capture","version":"1.0"}}}'
api POST /servers/notes/refresh | clean > $OUT/refresh-one.json
api POST /servers/broken/refresh | clean > $OUT/refresh-one-failed.json
api POST /refresh | clean > $OUT/refresh-all.json
api GET /servers/broken/logs | clean > $OUT/logs.json
api POST /servers/remote/login | clean > $OUT/login-failed.json
api POST /servers/spare/disable | clean > $OUT/reload.json
api GET /status | python3 -m json.tool | clean > $OUT/status.json
printf '{\n  "mcpServers": {\n    "notes": {,\n' > $D/config.json
api POST /reload | clean > $OUT/reload-refused.json
api GET /status | python3 -m json.tool | clean > $OUT/status-config-error.json
api POST /servers/nope/refresh | clean > $OUT/not-found.json
api POST /dashboard | clean | sed -e 's/code=[0-9a-f]*/code=0000000000000000000000000000000000000000000000000000000000000000/' > $OUT/dashboard.json
ls -la $OUT
