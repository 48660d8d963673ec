#!/bin/bash
# Before/after for one change: two alertd builds, alternating, on figure (2)
# or (2b)'s load, each round on a fresh state dir and sink, with the daemon's
# CPU time read from /proc. Quicker than a full `make bench` when only one
# figure is in question; `make bench` stays the record.
#
#   bash bench/ab.sh BIN_DIR_A BIN_DIR_B e2e|single [ROUNDS] [TOTAL]
#
#   e2e:    bench/load.py e2e, 100 batches of 100 (figure 2)
#   single: bench/load.py single, TOTAL alerts (default 4000) one per request
#           over 4 connections (figure 2b)
# PERF=1 also records `perf record -g` of each daemon and keeps its round's dir.
set -euo pipefail
A=$1 B=$2 KIND=$3 ROUNDS=${4:-3} TOTAL=${5:-4000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
SINK=$ROOT/.build/bench/sink
if [ ! -x "$SINK" ] || [ bench/sink.c -nt "$SINK" ]; then
    mkdir -p "$(dirname "$SINK")"
    cc -O2 -Wall bench/sink.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread -o "$SINK"
fi

round() {  # round BIN_DIR LABEL
    local dir sp dp sink_pid pid perf_pid="" c0 c1 out
    dir=$(mktemp -d /tmp/alertd-ab.XXXXXX)
    read -r sp dp < <("$PY" bench/load.py free-ports 2)
    "$SINK" "$sp" "$dir/arrivals" >/dev/null 2>&1 & sink_pid=$!
    cat >"$dir/alertd.json" <<J
{ "presenters": { "sink": { "type": "webhook", "url": "http://127.0.0.1:$sp/alertd", "max_concurrency": 512 } },
  "default_route": { "presenters": ["sink"] }, "dispatcher": { "shutdown_grace": "1s" } }
J
    "$1/alertd" --config "$dir/alertd.json" --state-dir "$dir/state" --listen "127.0.0.1:$dp" >"$dir/log" 2>&1 & pid=$!
    "$PY" bench/load.py wait-http "http://127.0.0.1:$dp/v1/health" --timeout 20 >/dev/null
    "$PY" bench/load.py wait-http "http://127.0.0.1:$sp/" --timeout 20 >/dev/null
    if [ "${PERF:-0}" = 1 ]; then perf record -F 1999 -g -o "$dir/perf.data" -p "$pid" 2>/dev/null & perf_pid=$!; sleep 0.5; fi
    c0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    if [ "$KIND" = e2e ]; then
        out=$("$PY" bench/load.py e2e --batches 100 --size 100 --base "http://127.0.0.1:$dp" --target alertd \
            --sink "http://127.0.0.1:$sp/" --path /alertd --arrivals "$dir/arrivals" --timeout 60)
        n=10000
    else
        out=$("$PY" bench/load.py single --total "$TOTAL" --connections 4 --base "http://127.0.0.1:$dp" --target alertd \
            --sink "http://127.0.0.1:$sp/" --path /alertd --arrivals "$dir/arrivals" --timeout 90)
        n=$TOTAL
    fi
    c1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    [ -n "$perf_pid" ] && { kill -INT "$perf_pid"; wait "$perf_pid" || true; }
    kill "$pid" "$sink_pid"; wait "$pid" "$sink_pid" 2>/dev/null || true
    echo "$out" | "$PY" -c "
import json, sys
r = json.load(sys.stdin)
ticks = $c1 - $c0
print(f\"$2 all arrived {r['all_arrived_ms']:.0f} ms, p50 {r['latency_p50_ms']:.1f} ms, p99 {r['latency_p99_ms']:.1f} ms, \"
      f\"{r['arrived']}/{r['alerts']} arrived, daemon CPU {ticks * 10_000_000 / $n / 1000:.0f} µs per alert\")"
    if [ "${PERF:-0}" = 1 ]; then echo "  perf data: $dir/perf.data"; else rm -rf "$dir"; fi
}

for ((i = 1; i <= ROUNDS; i++)); do
    round "$A" "A"
    round "$B" "B"
done
