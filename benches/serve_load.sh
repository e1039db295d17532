#!/usr/bin/env bash
# The service under load: wrk against `POST /v1/default/assemble` on the 50 x 2 KiB request
# (fixtures/bench-english.json, budget 4,000), beside the in-process assembly of the same
# request timed by `mentor-context bench` in the same run: one connection (a request's
# latency), then 64 for 30 s (throughput); then the same load with SIGTERM sent halfway, to
# count that every request the service took was answered.
#
#   benches/serve_load.sh [BINARY] [SECONDS]     (BINARY: a release build of mentor-context)
#
# Needs wrk (Debian's package). Prints the figures benches/README.md quotes.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-target/release/mentor-context}"
seconds="${2:-30}"
fixture=fixtures/bench-english.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# wrk posts the fixture's bytes as JSON.
cat > "$work/post.lua" <<LUA
local file = io.open("$fixture", "rb")
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
  io.write(string.format("requests %d errors %d non2xx %d p50_us %d p99_us %d\n",
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.timeout, summary.errors.status, latency:percentile(50),
    latency:percentile(99)))
end
LUA

# Starts the service on a free port; sets $pid and $url.
start() {
  "$binary" serve --listen 127.0.0.1:0 --budget 4000 2> "$work/serve.log" &
  pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$work/serve.log" && break; sleep 0.1; done
  url="$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/serve.log" | head -1)/v1/default/assemble"
}

echo "== in-process: mentor-context bench --json --budget 4000 $fixture"
"$binary" bench --json --iterations 2000 --budget 4000 "$fixture"

echo "== one connection: wrk -t1 -c1 -d${seconds}s (uptime: $(uptime | sed 's/.*load average: //'))"
start
wrk -t1 -c1 -d"${seconds}s" --latency -s "$work/post.lua" "$url" | tail -1
kill -TERM "$pid"; wait "$pid"

echo "== load: wrk -t2 -c64 -d${seconds}s (uptime: $(uptime | sed 's/.*load average: //'))"
start
wrk -t2 -c64 -d"${seconds}s" --latency -s "$work/post.lua" "$url" | tee "$work/wrk.txt"
kill -TERM "$pid"; wait "$pid"
echo "answered by the service: $(grep -c ' 200 ' "$work/serve.log")"

echo "== SIGTERM halfway through the same load"
start
wrk -t2 -c64 -d"${seconds}s" -s "$work/post.lua" "$url" > "$work/wrk-stop.txt" 2>&1 &
load=$!
sleep $((seconds / 2))
kill -TERM "$pid"
status=0; wait "$pid" || status=$?
wait "$load" || true
answered=$(grep -c ' 200 ' "$work/serve.log")
received=$(sed -n 's/^requests \([0-9]*\) .*/\1/p' "$work/wrk-stop.txt")
echo "service exit status: $status"
echo "answered 200 by the service: $answered; responses wrk received: $received"
grep -E "^requests|Socket errors|Non-2xx" "$work/wrk-stop.txt" || true
tail -1 "$work/serve.log"
