#!/bin/bash
# Idle RSS of alertd builds as figure (3) takes it (VmRSS 2 s after the first
# health check, the store-only config, a fresh state dir), over many starts,
# alternating builds, and split three ways: the binary's own resident pages
# (its code and data: what linking/ and the order lists change), anonymous
# memory (heap, stacks, written data) and the rest (shared libraries).
# One start of one build varies by a few hundred kB (the binary's own pages
# alone by 400 kB), more than one 64 KB window of code, so compare medians of
# seven or more starts each; `make bench` takes one.
#
#   bash bench/idle.sh BIN_DIR_A [BIN_DIR_B ...] [-- STARTS]   (default 7)
#
# FAULTS=1 also counts, each start, the 64 KB windows of the binary's code
# first faulted up to the sample (perf record -e page-faults): the kernel maps
# code in such windows around each page that runs (fault-around), so this is
# the count the layout of linking/ lowers. Needs perf (linux-perf).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
BUILDS=() STARTS=7
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then STARTS=$2; break; fi
    BUILDS+=("$1"); shift
done
[ ${#BUILDS[@]} -gt 0 ] || { echo "usage: bash bench/idle.sh BIN_DIR_A [BIN_DIR_B ...] [-- STARTS]" >&2; exit 2; }
[ "${FAULTS:-0}" = 1 ] && ! command -v perf >/dev/null && { echo "idle.sh: FAULTS=1 needs perf (apt-get install linux-perf)" >&2; exit 1; }
work=$(mktemp -d /tmp/alertd-idle.XXXXXX)
trap 'rm -rf "$work"' EXIT
port=$("$PY" bench/load.py free-ports 1)
cat >"$work/alertd.json" <<J
{ "presenters": { "sink": { "type": "webhook", "url": "http://127.0.0.1:9/alertd" } },
  "default_route": { "presenters": [] }, "dispatcher": { "shutdown_grace": "1s" } }
J

# own_kb PID BINARY: resident kB of the mappings of BINARY in PID.
own_kb() {
    "$PY" - "$1" "$2" <<'PY'
import re, sys
pid, binary = sys.argv[1], sys.argv[2]
total, mine = 0, False
for line in open(f"/proc/{pid}/smaps"):
    if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
        parts = line.split()
        mine = len(parts) > 5 and parts[5] == binary
    elif mine and line.startswith("Rss:"):
        total += int(line.split()[1])
print(total)
PY
}

# windows PERF_DATA BINARY T: 64 KB windows of BINARY's code first faulted by
# running code (the faulting address is the instruction's) before time T.
# The kernel aligns them in the address space, not in the file.
windows() {
    perf script -i "$1" -F time,addr,ip,dso 2>/dev/null | "$PY" -c '
import sys
dso, until, seen = "(" + sys.argv[1] + ")", float(sys.argv[2]), set()
for line in sys.stdin:
    p = line.split()
    if len(p) == 5 and p[2] == p[4] == dso and p[1] == p[3] and float(p[0].rstrip(":")) < until:
        seen.add(int(p[1], 16) >> 16)
print(len(seen))' "$2" "$3"
}

for ((s = 1; s <= STARTS; s++)); do
    for bin in "${BUILDS[@]}"; do
        exe=$(cd "$bin" && pwd)/alertd
        rm -rf "$work/state"
        if [ "${FAULTS:-0}" = 1 ]; then
            perf record -q -k CLOCK_MONOTONIC -e page-faults -c 1 -d -o "$work/pf.data" \
                "$exe" --config "$work/alertd.json" --state-dir "$work/state" --listen "127.0.0.1:$port" >"$work/log" 2>&1 &
        else
            "$exe" --config "$work/alertd.json" --state-dir "$work/state" --listen "127.0.0.1:$port" >"$work/log" 2>&1 &
        fi
        launcher=$!
        "$PY" bench/load.py wait-http "http://127.0.0.1:$port/v1/health" --timeout 30 >/dev/null ||
            { echo "idle.sh: $exe did not answer; see its log:" >&2; cat "$work/log" >&2; exit 1; }
        sleep 2
        pid=$(pgrep -f -n "^$exe --config $work/alertd.json")
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
        anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status")
        own=$(own_kb "$pid" "$exe")
        until=$("$PY" -c 'import time; print(time.monotonic())')
        kill "$pid"
        wait "$launcher" 2>/dev/null || true
        faults=""
        [ "${FAULTS:-0}" = 1 ] && faults=" $(windows "$work/pf.data" "$exe" "$until")"
        echo "$bin $rss $own $anon$faults"
    done
done | "$PY" -c '
import statistics, sys
rows = {}
for line in sys.stdin:
    b, *v = line.split()
    rows.setdefault(b, []).append([int(x) for x in v])
names = ["VmRSS", "own", "anon", "code windows"]
for b, runs in rows.items():
    print(f"{b}: {len(runs)} starts")
    for i in range(len(runs[0])):
        vals = [r[i] for r in runs]
        unit = "" if i == 3 else " kB"
        print(f"  {names[i]:>12}: median {statistics.median(vals):,.0f}{unit}  ({min(vals):,}-{max(vals):,})")'
