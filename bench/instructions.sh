#!/bin/bash
# Instructions alertd runs for figure (2)'s load, counted by valgrind's
# callgrind: far steadier than CPU time. On this shared 2-core VM the CPU
# time of one build moves by 10-20% from run to run (see bench/analysis.md),
# more than most single changes buy; the instruction count of the same run
# moves by up to 3% (the batching of claims and outcomes varies), so a change
# of 5% or more shows in one run of each build; smaller ones need a few runs
# of each, alternating. It counts user space only:
# the kernel's share (sockets, fsync, wake-ups) needs bench/ab.sh.
#
#   bash bench/instructions.sh BIN_DIR_A [BIN_DIR_B ...] [-- BATCHES]
#   LOAD=single bash bench/instructions.sh ...   (one alert per request)
#
# Each build: a fresh state dir and sink, the daemon under callgrind (about
# 20x slower), BATCHES (default 20) batches of 100 alerts through
# `bench/load.py e2e`, then the total and the top functions by inclusive
# count, kept in .build/bench/instructions-<build>.out for callgrind_annotate.
# With LOAD=single the same number of alerts is posted one per request over
# 16 connections (`bench/load.py single`), the shape of ingest and (2b), and
# the count is per request (kept as instructions-<build>-single.out).
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
BUILDS=() BATCHES=20
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then BATCHES=$2; break; fi
    BUILDS+=("$1"); shift
done
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
SINK=$ROOT/.build/bench/sink
if [ ! -x "$SINK" ] || [ bench/sink.c -nt "$SINK" ]; then
    mkdir -p "$(dirname "$SINK")"
    cc -O2 -Wall bench/sink.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread -o "$SINK"
fi

for bin in "${BUILDS[@]}"; do
    dir=$(mktemp -d /tmp/alertd-instr.XXXXXX)
    suffix=""
    [ "${LOAD:-e2e}" = single ] && suffix=-single
    out=$ROOT/.build/bench/instructions-$(basename "$bin")$suffix.out
    read -r sp dp < <("$PY" bench/load.py free-ports 2)
    "$SINK" "$sp" "$dir/warm" >/dev/null 2>&1 & sink_pid=$!
    cat >"$dir/alertd.json" <<J
{ "presenters": { "sink": { "type": "webhook", "url": "http://127.0.0.1:$sp/alertd", "max_concurrency": 512 } },
  "default_route": { "presenters": ["sink"] }, "dispatcher": { "shutdown_grace": "1s" } }
J
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
        "$bin/alertd" --config "$dir/alertd.json" --state-dir "$dir/state" --listen "127.0.0.1:$dp" >"$dir/log" 2>&1 & pid=$!
    "$PY" bench/load.py wait-http "http://127.0.0.1:$dp/v1/health" --timeout 120 >/dev/null
    "$PY" bench/load.py wait-http "http://127.0.0.1:$sp/" --timeout 20 >/dev/null
    # Start-up is not counted: only the load. One alert first, so that
    # loading libcurl at the first delivery (relocating it, once) is not
    # counted either; then a fresh sink, counting from zero.
    "$PY" bench/load.py e2e --batches 1 --size 1 --base "http://127.0.0.1:$dp" --target alertd \
        --sink "http://127.0.0.1:$sp/" --path /alertd --arrivals "$dir/warm" --timeout 120 >/dev/null || true
    kill "$sink_pid"; wait "$sink_pid" 2>/dev/null || true
    "$SINK" "$sp" "$dir/arrivals" >/dev/null 2>&1 & sink_pid=$!
    "$PY" bench/load.py wait-http "http://127.0.0.1:$sp/" --timeout 20 >/dev/null
    callgrind_control -z "$pid" >/dev/null 2>&1
    if [ "${LOAD:-e2e}" = single ]; then
        shape=(single --total $((BATCHES * 100)) --connections 16)
    else
        shape=(e2e --batches "$BATCHES" --size 100)
    fi
    arrived=$("$PY" bench/load.py "${shape[@]}" --base "http://127.0.0.1:$dp" --target alertd \
        --sink "http://127.0.0.1:$sp/" --path /alertd --arrivals "$dir/arrivals" --timeout 600 |
        "$PY" -c "import json, sys; r = json.load(sys.stdin); print(r['arrived'])") || true
    callgrind_control -d "$pid" >/dev/null 2>&1
    kill "$pid" "$sink_pid"; wait "$pid" "$sink_pid" 2>/dev/null || true
    dump=$(ls "$dir"/cg.out.* | sort | tail -1)
    cp "$dump" "$out"
    total=$(callgrind_annotate --threshold=100 "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    echo "$(basename "$bin"): $arrived of $((BATCHES * 100)) arrived, $total instructions, $((total / (BATCHES * 100))) per alert ($out)"
    rm -rf "$dir"
done
