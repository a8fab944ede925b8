#!/usr/bin/env bash
# Runs a hub with one server that floods it with notifications and one healthy
# server, and reports what the flood cost the hub: peak RSS (VmHWM), RSS after,
# CPU seconds, log size, and how the healthy server's calls fared meanwhile.
#
# usage: scripts/flood.sh [COUNT [KIND [SECONDS]]]
#   COUNT    notifications the flooding server sends (default 800000)
#   KIND     tools|prompts|resources|log|updated (default tools)
#   SECONDS  how long to watch before stopping the hub (default 30)
# Binaries come from $SWITCHBOARD_BIN_DIR (default target/debug). RUST_LOG is
# passed through (unset: the hub's default filter). FLOOD_LOG=FILE keeps a copy
# of the hub's log. Linux only (/proc).
set -euo pipefail

count=${1:-800000}
kind=${2:-tools}
seconds=${3:-30}
bin=${SWITCHBOARD_BIN_DIR:-target/debug}
dir=$(mktemp -d)
hub_pid=
cleanup() {
  [[ -n $hub_pid ]] && kill "$hub_pid" 2>/dev/null && wait "$hub_pid" 2>/dev/null
  [[ -n ${FLOOD_LOG:-} ]] && cp "$dir/hub.log" "$FLOOD_LOG"
  rm -rf "$dir"
}
trap cleanup EXIT

fixture=$(realpath "$bin/switchboard-fixture")
cat >"$dir/config.json" <<EOF
{"mcpServers": {
  "flooder": {"command": "$fixture", "args": ["--tools", "a,b", "--flood", "$count", "--flood-kind", "$kind"]},
  "healthy": {"command": "$fixture", "args": ["--tools", "echo"]}
}}
EOF

SWITCHBOARD_CACHE_DIR="$dir/cache" "$bin/switchboard" serve --listen 127.0.0.1:0 \
  --config "$dir/config.json" >"$dir/stdout" 2>"$dir/hub.log" &
hub_pid=$!
for _ in $(seq 100); do
  grep -q "listening on" "$dir/stdout" 2>/dev/null && break
  sleep 0.1
done
url=$(sed -n 's/^Switchboard listening on //p' "$dir/stdout")
base=${url%/mcp}
[[ -n $url ]] || { echo "hub did not start"; cat "$dir/hub.log"; exit 1; }

accept='Accept: application/json, text/event-stream'
json='Content-Type: application/json'
session=$(curl -s -D - -o /dev/null -H "$accept" -H "$json" "$url" -d \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"flood.sh","version":"1"}}}' |
  tr -d '\r' | sed -n 's/^mcp-session-id: //Ip')
curl -s -o /dev/null -H "$accept" -H "$json" -H "Mcp-Session-Id: $session" "$url" \
  -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'

ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$hub_pid/stat"; }
cpu0=$(cpu)
# Starts both servers: the flood begins once the flooder is initialized.
curl -s -o /dev/null -X POST "$base/api/v1/refresh" &

start=$(date +%s.%N)
ok=0 failed=0 slowest=0
while (($(echo "$(date +%s.%N) - $start < $seconds" | bc))); do
  t0=$(date +%s.%N)
  if curl -s -m 10 -H "$accept" -H "$json" -H "Mcp-Session-Id: $session" "$url" \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"healthy__echo","arguments":{"text":"pong"}}}' |
    grep -q pong; then
    ok=$((ok + 1))
  else
    failed=$((failed + 1))
  fi
  took=$(echo "$(date +%s.%N) - $t0" | bc)
  (($(echo "$took > $slowest" | bc))) && slowest=$took
  sleep 0.2
done

status=/proc/$hub_pid/status
echo "flood: $count $kind notifications; watched ${seconds}s"
echo "sent by the flooder: $(curl -s "$base/api/v1/servers/flooder/logs" | grep -o 'flood sent [0-9]* [a-z]*' || echo '(not finished)')"
echo "hub peak RSS (VmHWM): $(awk '/VmHWM/ {print $2, $3}' "$status")"
echo "hub RSS after: $(awk '/VmRSS/ {print $2, $3}' "$status")"
echo "hub CPU: $(echo "scale=1; ($(cpu) - $cpu0) / $ticks" | bc) s"
echo "hub log: $(stat -c %s "$dir/hub.log") bytes, $(wc -l <"$dir/hub.log") lines"
echo "healthy calls: $ok answered, $failed failed, slowest ${slowest}s"
echo "flooder tools: $(curl -s -H "$accept" -H "$json" -H "Mcp-Session-Id: $session" "$url" \
  -d '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' | grep -o '"flooder__[a-z]*"' | tr '\n' ' ')"
