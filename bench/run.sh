#!/usr/bin/env bash
# bench/run.sh: alertd against Alertmanager, side by side, in one run.
#
# Expects the release build (.build/release/alertd, alertctl) and the tools
# bench/install-bench-deps.sh installs; `make bench` does all of that first.
# Writes BENCHMARKS.md (or $BENCH_OUT) and keeps the raw results, logs and
# sink files in .build/bench/run-<time>/.
#
#   BENCH_QUICK=1 bash bench/run.sh    # 2 s durations, counts 10x smaller
#   BENCH_NOTE="..." bash bench/run.sh  # a line quoted under BENCHMARKS.md's title
#   BENCH_OUT=/tmp/b.md bash bench/run.sh
#   BENCH_BIN=/tmp/main/.build/release bash bench/run.sh   # measure another build
#
# Everything listens on 127.0.0.1 on free ports picked at start. Every wait
# has a timeout and every loop a count; all started processes are stopped on
# exit, by pid.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
    MODE=quick
    INGEST_SECONDS=2; E2E_BATCHES=10; FILL_TOTAL=10000; HYPERFINE_RUNS=10; CONFIRMS=20
    SINGLE_TOTAL=1000; BIG_TOTAL=100000
else
    MODE=full
    INGEST_SECONDS=10; E2E_BATCHES=100; FILL_TOTAL=100000; HYPERFINE_RUNS=30; CONFIRMS=200
    SINGLE_TOTAL=10000; BIG_TOTAL=1000000
fi
ROUNDS=3           # figures (1), (2) and (8): medians of 3 alternating rounds
STORM_TOTAL=1000   # figure (8): alerts in the one group, in quick mode too
STORM_WAIT=1s      # figure (8): group_wait on both sides
E2E_SIZE=100
SINGLE_CONNECTIONS=4  # figure (2b): one alert per request over a few connections
BOUND_CONCURRENCY=512  # the C bound's deliveries in flight, as alertd's webhook here
FILL_BATCH=1000
STARTS=3           # figure (5): median of 3 starts
WRK_THREADS=2
WRK_CONNECTIONS=64

OUT=${BENCH_OUT:-$ROOT/BENCHMARKS.md}
BIN=${BENCH_BIN:-$ROOT/.build/release}  # BENCH_BIN: another build to measure (e.g. main's, for a before figure)
AM_BIN=${ALERTMANAGER:-/usr/bin/prometheus-alertmanager}
AMTOOL=${AMTOOL:-/usr/bin/amtool}
PY=${PYTHON:-python3}
RUN=$ROOT/.build/bench/run-$(date +%Y%m%d-%H%M%S)
RES=$RUN/results
SINK=$ROOT/.build/bench/sink
MINIMAL=$ROOT/.build/bench/minimal
mkdir -p "$RES"
# Keep the five newest result folders.
find "$ROOT/.build/bench" -maxdepth 1 -name 'run-*' -type d | sort -r | tail -n +6 | xargs -r rm -rf

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

for f in "$BIN/alertd" "$BIN/alertctl" "$AM_BIN" "$AMTOOL"; do
    [ -x "$f" ] || die "$f is missing (run 'make bench', or 'swift build -c release' and bench/install-bench-deps.sh)"
done
for c in wrk hyperfine curl cc pkg-config "$PY"; do
    command -v "$c" >/dev/null || die "$c is missing (bench/install-bench-deps.sh installs it)"
done

# The webhook sink: rebuilt when its source is newer.
if [ ! -x "$SINK" ] || [ bench/sink.c -nt "$SINK" ]; then
    # shellcheck disable=SC2046
    cc -O2 -Wall bench/sink.c $(pkg-config --cflags --libs libmicrohttpd) -lpthread -o "$SINK"
fi

# The bound: alertd's path as a minimal C program on the same libraries.
if [ ! -x "$MINIMAL" ] || [ bench/bounds/minimal.c -nt "$MINIMAL" ]; then
    # shellcheck disable=SC2046
    cc -O2 -Wall bench/bounds/minimal.c $(pkg-config --cflags --libs libmicrohttpd sqlite3 libcurl) -lpthread -o "$MINIMAL"
fi

# The Swift bounds: an idle alertd without alertd (figure 3) and a program
# that only prints its version (figure 7), built as the release binaries are.
IDLE_BOUND=$ROOT/.build/bench/idle
VERSION_BOUND=$ROOT/.build/bench/version
SWIFT_BOUND_FLAGS=(-O -static-stdlib -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)
# The idle bound's code is laid out as alertd's is (bench/bounds/idle.order,
# made the way scripts/order-symbols.py makes alertd's, and linking/front.lds).
if [ ! -x "$IDLE_BOUND" ] || [ bench/bounds/idle.swift -nt "$IDLE_BOUND" ] || [ bench/bounds/idle.order -nt "$IDLE_BOUND" ] ||
    [ linking/front.lds -nt "$IDLE_BOUND" ]; then
    swiftc "${SWIFT_BOUND_FLAGS[@]}" -Xfrontend -function-sections -Xlinker "--symbol-ordering-file=bench/bounds/idle.order" \
        -Xlinker --no-warn-symbol-ordering -Xlinker -T -Xlinker linking/front.lds -I Sources/CMicroHTTPD -I Sources/CSQLite bench/bounds/idle.swift -o "$IDLE_BOUND" 2>>"$RUN/bounds-build.log" ||
        die "cannot build bench/bounds/idle.swift; see $RUN/bounds-build.log"
fi
if [ ! -x "$VERSION_BOUND" ] || [ bench/bounds/version.swift -nt "$VERSION_BOUND" ]; then
    swiftc "${SWIFT_BOUND_FLAGS[@]}" bench/bounds/version.swift -o "$VERSION_BOUND" 2>>"$RUN/bounds-build.log" ||
        die "cannot build bench/bounds/version.swift; see $RUN/bounds-build.log"
fi

if pids=$(pgrep -x prometheus-alert 2>/dev/null); then
    log "warning: an Alertmanager not started by this run is running (pid $(echo $pids)); it competes for the CPU"
fi

# Many sockets: Alertmanager opens one webhook request per alert group.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# --- processes ---------------------------------------------------------------

PIDS=()
forget() { local keep=() p; for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; PIDS=("${keep[@]}"); }

# stop PID: SIGTERM, then SIGKILL after 30 s.
stop() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || { forget "$pid"; return 0; }
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    forget "$pid"
}

cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    sleep 0.5
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    # State dirs can be large (100,000 alerts); the results and logs stay.
    rm -rf "$RUN"/state-* "$RUN"/am-*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ports() { "$PY" bench/load.py free-ports "$1"; }
wait_http() { "$PY" bench/load.py wait-http "$1" --timeout "${2:-60}" >/dev/null; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status"; }
# CPU time (user + system) the process has used so far, in ms.
TICK=$(getconf CLK_TCK)
cpu_ms() { awk -v t="$TICK" '{sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / t)}' "/proc/$1/stat"; }

# The commands as run, for BENCHMARKS.md (the first of each kind is enough).
note() { local key=$1; shift; grep -q "^$key	" "$RUN/commands.tsv" 2>/dev/null || printf '%s\t%s\n' "$key" "$*" >>"$RUN/commands.tsv"; }

# start_sink NAME: sets SINK_PID, SINK_PORT, SINK_FILE.
start_sink() {
    SINK_PORT=$(ports 1)
    SINK_FILE=$RUN/$1.arrivals
    "$SINK" "$SINK_PORT" "$SINK_FILE" &
    SINK_PID=$!
    PIDS+=("$SINK_PID")
    wait_http "http://127.0.0.1:$SINK_PORT/" 10 || die "the sink did not start"
    note sink "$SINK $SINK_PORT <file>"
}

# alertd_config FILE SINK_PORT [HANDLER_PORT]: a webhook presenter to the
# sink and nothing else (no terminal, no log presenter; the daemon's own log
# goes to a file at its default level, info). The webhook may have 64
# deliveries in flight (the default is 16): Alertmanager sends each group's
# notification without any limit, and the sink is on loopback.
# With STORE_ONLY=1 the default route names no presenter: alerts are stored
# and nothing is delivered (figures 3 and 5).
alertd_config() {
    local allow="" route='"sink"'
    [ -n "${3:-}" ] && allow=", \"actions\": {\"allow\": [\"http://127.0.0.1:$3/\"]}"
    [ "${STORE_ONLY:-0}" = 1 ] && route=""
    cat >"$1" <<EOF
{
  "presenters": { "sink": { "type": "webhook", "url": "http://127.0.0.1:$2/alertd" } },
  "default_route": { "presenters": [$route] },
  "dispatcher": { "shutdown_grace": "1s" }$allow
}
EOF
}

# am_config FILE SINK_PORT: every alert its own group, sent at once. With
# STORE_ONLY=1 the route's receiver has no integration: alerts are grouped
# but nothing is sent.
am_config() {
    local receiver=sink
    [ "${STORE_ONLY:-0}" = 1 ] && receiver=none
    cat >"$1" <<EOF
route:
  receiver: $receiver
  group_by: ['...']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: sink
    webhook_configs:
      - url: http://127.0.0.1:$2/am
        send_resolved: false
  - name: none
EOF
}

alertd_cmd() { echo "$BIN/alertd --config $1 --state-dir $2 --listen 127.0.0.1:$3"; }
bound_cmd() { echo "$MINIMAL $1 http://127.0.0.1:$2/bound $3/bound.db $BOUND_CONCURRENCY"; }
am_cmd() { echo "$AM_BIN --config.file=$1 --storage.path=$2 --web.listen-address=127.0.0.1:$3 --cluster.listen-address="; }

# start_daemon TARGET NAME SINK_PORT [HANDLER_PORT]: a fresh state dir; sets
# D_PID, D_PORT, D_BASE, D_HEALTH, D_CMD, D_DIR.
start_daemon() {
    local target=$1 name=$2 cfg
    D_PORT=$(ports 1)
    D_BASE=http://127.0.0.1:$D_PORT
    if [ "$target" = alertd ]; then
        cfg=$RUN/$name.alertd.json
        D_DIR=$RUN/state-$name
        alertd_config "$cfg" "$3" "${4:-}"
        D_CMD=$(alertd_cmd "$cfg" "$D_DIR" "$D_PORT")
        D_HEALTH=$D_BASE/v1/health
    elif [ "$target" = bound ]; then
        D_DIR=$RUN/state-$name
        D_CMD=$(bound_cmd "$D_PORT" "$3" "$D_DIR")
        D_HEALTH=$D_BASE/health
    else
        cfg=$RUN/$name.am.yml
        D_DIR=$RUN/am-$name
        am_config "$cfg" "$3"
        D_CMD=$(am_cmd "$cfg" "$D_DIR" "$D_PORT")
        D_HEALTH=$D_BASE/-/ready
    fi
    launch "$target" "$name" "daemon-$target"
}

# launch TARGET NAME NOTE: runs D_CMD on D_DIR (logging to NAME.log) and
# waits for D_HEALTH; sets D_PID.
launch() {
    mkdir -p "$D_DIR"
    note "$3" "$D_CMD"
    # shellcheck disable=SC2086
    env -u NOTIFY_SOCKET $D_CMD >>"$RUN/$2.log" 2>&1 &
    D_PID=$!
    PIDS+=("$D_PID")
    wait_http "$D_HEALTH" 60 || die "$1 did not become ready; see $RUN/$2.log"
}

TARGETS=(alertd alertmanager)
# Figures (1), (2) and (2b) also run the C bound, in the same rounds.
LOAD_TARGETS=(alertd alertmanager bound)
path_of() { case $1 in alertmanager) echo /am ;; bound) echo /bound ;; *) echo /alertd ;; esac; }
result() { cat >"$RES/$1.json"; }

# --- (0) the load generators' own ceilings, against the sink ------------------------

calibrate() {
    local out
    start_sink calibrate
    # shellcheck disable=SC2086
    out=$(BENCH_TARGET=alertd timeout $((INGEST_SECONDS + 60)) wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${INGEST_SECONDS}s \
        --timeout 10s -s bench/post.lua "http://127.0.0.1:$SINK_PORT") || die "wrk failed against the sink"
    printf '%s\n' "$out" | sed -n 's/^BENCHJSON //p' | result calibrate-wrk
    timeout 120 "$PY" bench/load.py calibrate --base "http://127.0.0.1:$SINK_PORT" --batches "$E2E_BATCHES" --size "$E2E_SIZE" |
        result calibrate-loader
    timeout 120 "$PY" bench/load.py single --calibrate --base "http://127.0.0.1:$SINK_PORT" --target alertd \
        --total "$SINGLE_TOTAL" --connections "$SINGLE_CONNECTIONS" | result calibrate-single
    stop "$SINK_PID"
}

# --- (1) ingest ----------------------------------------------------------------

ingest() {
    local target=$1 round=$2 name=ingest-$1-$2 out
    start_sink "$name"
    start_daemon "$target" "$name" "$SINK_PORT"
    local cpu0
    cpu0=$(cpu_ms "$D_PID")
    local cmd="wrk -t$WRK_THREADS -c$WRK_CONNECTIONS -d${INGEST_SECONDS}s --timeout 10s -s bench/post.lua $D_BASE"
    note "wrk-$target" "BENCH_TARGET=$target $cmd"
    # shellcheck disable=SC2086
    out=$(BENCH_TARGET=$target timeout $((INGEST_SECONDS + 60)) $cmd) || die "wrk failed against $target"
    printf '%s\n' "$out" >"$RUN/$name.wrk.txt"
    local delivered rss cpu
    cpu=$(($(cpu_ms "$D_PID") - cpu0))
    delivered=$(curl -sS --max-time 5 "http://127.0.0.1:$SINK_PORT/" | awk '{print $1}')
    rss=$(rss_kb "$D_PID")
    printf '%s\n' "$out" | sed -n 's/^BENCHJSON //p' |
        "$PY" -c 'import json,sys; d=json.load(sys.stdin); d["delivered_during"]=int(sys.argv[1]); d["rss_kb_after"]=int(sys.argv[2]); d["cpu_ms"]=int(sys.argv[3]); print(json.dumps(d))' \
            "${delivered:-0}" "$rss" "$cpu" | result "$name"
    stop "$D_PID"
    stop "$SINK_PID"
}

# --- (2) end to end ------------------------------------------------------------

# end_to_end KIND TARGET ROUND LIMIT LOADER-ARGS...: a fresh sink and daemon,
# `bench/load.py LOADER-ARGS` against them (LIMIT seconds at most), then the
# daemon's RSS and the CPU it used meanwhile.
end_to_end() {
    local kind=$1 target=$2 limit=$4 name=$1-$2-$3 path
    shift 4
    path=$(path_of "$target")
    start_sink "$name"
    start_daemon "$target" "$name" "$SINK_PORT"
    local cpu0 args
    cpu0=$(cpu_ms "$D_PID")
    args=("$@" --base "$D_BASE" --target "$target" --sink "http://127.0.0.1:$SINK_PORT/" --path "$path")
    note "$kind-$target" "$PY bench/load.py ${args[*]} --arrivals <sink file>"
    timeout "$limit" "$PY" bench/load.py "${args[@]}" --arrivals "$SINK_FILE" --timeout $((limit * 3 / 4)) | result "$name" ||
        log "$kind against $target incomplete; see $RES/$name.json"
    echo "{\"rss_kb\": $(rss_kb "$D_PID"), \"cpu_ms\": $(($(cpu_ms "$D_PID") - cpu0))}" | result "after-$name"
    stop "$D_PID"
    stop "$SINK_PID"
}

e2e() { end_to_end e2e "$1" "$2" 200 e2e --batches "$E2E_BATCHES" --size "$E2E_SIZE"; }

# --- (2b) end to end, one alert per request over a few connections -------------

single() { end_to_end single "$1" "$2" 300 single --total "$SINGLE_TOTAL" --connections "$SINGLE_CONNECTIONS"; }

# --- (3) the idle bound -------------------------------------------------------------
# bench/bounds/idle.swift idles as figure (3) measures alertd: 2 s after its
# health check answers, on a fresh state dir.
idle_bound() {
    local port dir pid
    port=$(ports 1)
    dir=$RUN/state-idle-bound
    mkdir -p "$dir"
    note "idle-bound" "$IDLE_BOUND $port <state dir>"
    "$IDLE_BOUND" "$port" "$dir" >>"$RUN/idle-bound.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    wait_http "http://127.0.0.1:$port/health" 60 || die "the idle bound did not start; see $RUN/idle-bound.log"
    sleep 2
    echo "{\"rss_idle_kb\": $(rss_kb "$pid")}" | result "memory-idle-bound"
    stop "$pid"
}

# --- (3) memory and (5) start with a full store -----------------------------------
# Both store only (no delivery), so the figures are about holding the alerts:
# alertd's default route names no presenter, Alertmanager's receiver has no
# integration. (Deliveries are figure (2)'s business.)

memory_and_start() {
    local target=$1 name=mem-$1 i notify=() health_path=/v1/health cmd
    [ "$target" = alertmanager ] && health_path=/-/ready
    [ "$target" = alertd ] && notify=(--notify)
    export STORE_ONLY=1
    start_sink "$name"

    # (5) reference: starts on an empty state dir, each fresh.
    for ((i = 1; i <= STARTS; i++)); do
        local port dir cfg
        port=$(ports 1)
        if [ "$target" = alertd ]; then
            cfg=$RUN/$name.alertd.json; dir=$RUN/state-empty-$i; alertd_config "$cfg" "$SINK_PORT"
            cmd=$(alertd_cmd "$cfg" "$dir" "$port")
        else
            cfg=$RUN/$name.am.yml; dir=$RUN/am-empty-$i; am_config "$cfg" "$SINK_PORT"
            cmd=$(am_cmd "$cfg" "$dir" "$port")
        fi
        mkdir -p "$dir"
        # shellcheck disable=SC2086
        timeout 150 "$PY" bench/load.py startwait --health "http://127.0.0.1:$port$health_path" "${notify[@]}" \
            --log "$RUN/$name-start-empty.log" --timeout 120 -- $cmd | result "start-empty-$target-$i" ||
            log "start (empty) of $target failed; see $RUN/$name-start-empty.log"
    done

    # (3) idle, then loaded.
    start_daemon "$target" "$name" "$SINK_PORT"
    sleep 2
    local idle loaded hwm fill
    idle=$(rss_kb "$D_PID")
    note "fill-$target" "$PY bench/load.py fill --base $D_BASE --target $target --total $FILL_TOTAL --batch $FILL_BATCH"
    fill=$(timeout 400 "$PY" bench/load.py fill --base "$D_BASE" --target "$target" --total "$FILL_TOTAL" --batch "$FILL_BATCH" --timeout 300) ||
        log "fill of $target incomplete: $fill"
    sleep 2
    loaded=$(rss_kb "$D_PID")
    hwm=$(hwm_kb "$D_PID")
    "$PY" -c 'import json,sys; print(json.dumps({"rss_idle_kb": int(sys.argv[1]), "rss_loaded_kb": int(sys.argv[2]), "hwm_kb": int(sys.argv[3]), "fill": json.loads(sys.argv[4]), "alerts": int(sys.argv[5])}))' \
        "$idle" "$loaded" "$hwm" "${fill:-null}" "$FILL_TOTAL" | result "memory-$target"
    stop "$D_PID"

    # (5) starts against the state dir that now holds the alerts.
    for ((i = 1; i <= STARTS; i++)); do
        # shellcheck disable=SC2086
        note "start-$target" "$PY bench/load.py startwait --health $D_HEALTH ${notify[*]} -- $D_CMD"
        # shellcheck disable=SC2086
        timeout 150 "$PY" bench/load.py startwait --health "$D_HEALTH" "${notify[@]}" \
            --log "$RUN/$name-start-full.log" --timeout 120 -- $D_CMD | result "start-full-$target-$i" ||
            log "start (full) of $target failed; see $RUN/$name-start-full.log"
    done
    du -sk "$D_DIR" | awk '{print "{\"state_kb\": " $1 "}"}' | result "state-size-$target"
    [ "$target" = alertd ] && big_start
    stop "$SINK_PID"
    unset STORE_ONLY
}

# (5) READY with BIG_TOTAL alerts stored (alertd): the store of (3) topped up
# through the API in batches of 1000, then three starts.
big_start() {
    start_daemon_on "$D_DIR"
    local more=$((BIG_TOTAL - FILL_TOTAL)) fill
    note "fill-big" "$PY bench/load.py fill --base $D_BASE --target alertd --total $more --batch $FILL_BATCH"
    fill=$(timeout 600 "$PY" bench/load.py fill --base "$D_BASE" --target alertd --total "$more" --batch "$FILL_BATCH" --timeout 500) ||
        log "filling to $BIG_TOTAL incomplete: $fill"
    echo "${fill:-null}" | result "fill-big-alertd"
    stop "$D_PID"
    local i
    for ((i = 1; i <= STARTS; i++)); do
        timeout 150 "$PY" bench/load.py startwait --health "$D_HEALTH" --notify \
            --log "$RUN/big-start.log" --timeout 120 -- $D_CMD | result "start-big-alertd-$i" ||
            log "start with $BIG_TOTAL stored failed; see $RUN/big-start.log"
    done
}

# start_daemon_on DIR: alertd again on the state dir and config of the last start_daemon.
start_daemon_on() {
    # shellcheck disable=SC2086
    env -u NOTIFY_SOCKET $D_CMD >>"$RUN/big.log" 2>&1 &
    D_PID=$!
    PIDS+=("$D_PID")
    wait_http "$D_HEALTH" 120 || die "alertd did not restart on $1; see $RUN/big.log"
}

# --- (7) the binaries: size, and alertctl's start ------------------------------

binaries() {
    local f
    for f in alertd alertctl; do
        echo "{\"bytes\": $(stat -c %s "$BIN/$f")}" | result "size-$f"
    done
    # Ten times the runs of the other CLI figures: a call lasts 3 ms, so 30
    # runs let one busy second of the machine move the median by 2 ms (the
    # 23:41 run of 2026-12-01: σ 1.3 ms, range 3.0–10.3 ms), and 300 take 3 s.
    local runs=$((HYPERFINE_RUNS * 10))
    note "version" "hyperfine -N --warmup 20 --runs $runs '$BIN/alertctl --version' 'curl --version' '$VERSION_BOUND --version'"
    timeout 120 hyperfine -N --warmup 20 --runs "$runs" --export-json "$RES/version.json" \
        "$BIN/alertctl --version" "curl --version" "$VERSION_BOUND --version" >"$RUN/version.hyperfine.txt" 2>&1 ||
        log "hyperfine of alertctl --version failed; see $RUN/version.hyperfine.txt"
}

# --- (4) one CLI call ------------------------------------------------------------

cli() {
    local target=$1 name=cli-$1
    start_sink "$name"
    start_daemon "$target" "$name" "$SINK_PORT"
    local a b
    if [ "$target" = alertd ]; then
        a="$BIN/alertctl send --url $D_BASE --title 'Bench send' --label bench_id=cli"
        b="curl -sS -o /dev/null --fail -X POST -H 'Content-Type: application/json' -d '{\"title\":\"Bench send\",\"labels\":{\"bench_id\":\"cli\"}}' $D_BASE/v1/alerts"
    else
        a="$AMTOOL alert add BenchSend bench_id=cli --alertmanager.url=$D_BASE"
        b="curl -sS -o /dev/null --fail -X POST -H 'Content-Type: application/json' -d '[{\"labels\":{\"alertname\":\"BenchSend\",\"bench_id\":\"cli\"}}]' $D_BASE/api/v2/alerts"
    fi
    note "hyperfine-$target" "hyperfine -N --warmup 3 --runs $HYPERFINE_RUNS $("$PY" -c 'import shlex, sys; print(" ".join(map(shlex.quote, sys.argv[1:])))' "$a" "$b")"
    timeout 300 hyperfine -N --warmup 3 --runs "$HYPERFINE_RUNS" --export-json "$RES/cli-$target.json" "$a" "$b" \
        >"$RUN/$name.hyperfine.txt" 2>&1 || log "hyperfine against $target failed; see $RUN/$name.hyperfine.txt"
    stop "$D_PID"
    stop "$SINK_PID"
}

# --- (6) confirm -> handler (alertd only) ----------------------------------------

confirm() {
    local name=confirm-alertd
    start_sink "$name-handler"
    local h_port=$SINK_PORT h_pid=$SINK_PID h_file=$SINK_FILE
    start_sink "$name"
    start_daemon alertd "$name" "$SINK_PORT" "$h_port"
    note confirm "$PY bench/load.py confirm --base $D_BASE --n $CONFIRMS --gap-ms 20 --handler http://127.0.0.1:$h_port/handler ..."
    timeout 300 "$PY" bench/load.py confirm --base "$D_BASE" --n "$CONFIRMS" --gap-ms 20 \
        --handler "http://127.0.0.1:$h_port/handler" --handler-sink "http://127.0.0.1:$h_port/" \
        --alert-sink "http://127.0.0.1:$SINK_PORT/" --arrivals "$h_file" --timeout 200 | result confirm-alertd ||
        log "confirm run incomplete; see $RES/confirm-alertd.json"
    stop "$D_PID"
    stop "$SINK_PID"
    stop "$h_pid"
}

# --- (8) a storm: 1,000 alerts in one group ---------------------------------------
# Both daemons group by alertname and wait STORM_WAIT before the group's first
# notification; `bench/load.py storm` is the receiver (it counts the alerts
# each request carries), posts the alerts in batches of 100 and times the
# first POST to the notification that carries them all. alertd also runs
# without grouping, for what the storm costs there.

storm() {
    local target=$1 round=$2 mode=${3:-grouped} name port rport cfg dir cmd base health group=""
    name=storm-$target-$round
    [ "$mode" = grouped ] || name=storm-$mode-$target-$round
    read -r port rport <<<"$(ports 2)"
    base=http://127.0.0.1:$port
    if [ "$target" = alertd ]; then
        cfg=$RUN/$name.alertd.json; dir=$RUN/state-$name
        [ "$mode" = grouped ] && group=", \"group_by\": [\"alertname\"], \"group_wait\": \"$STORM_WAIT\", \"group_interval\": \"1m\", \"repeat_interval\": \"1h\""
        cat >"$cfg" <<EOF
{
  "presenters": { "hook": { "type": "webhook", "url": "http://127.0.0.1:$rport/alertd" } },
  "routes": [ { "name": "storm", "match": { "labels": { "alertname": "BenchStorm" } }, "presenters": ["hook"]$group } ],
  "default_route": { "presenters": [] },
  "dispatcher": { "shutdown_grace": "1s" }
}
EOF
        cmd=$(alertd_cmd "$cfg" "$dir" "$port"); health=$base/v1/health
    else
        cfg=$RUN/$name.am.yml; dir=$RUN/am-$name
        cat >"$cfg" <<EOF
route:
  receiver: hook
  group_by: ['alertname']
  group_wait: $STORM_WAIT
  group_interval: 1m
  repeat_interval: 1h
receivers:
  - name: hook
    webhook_configs:
      - url: http://127.0.0.1:$rport/am
        send_resolved: false
EOF
        cmd=$(am_cmd "$cfg" "$dir" "$port"); health=$base/-/ready
    fi
    D_DIR=$dir D_CMD=$cmd D_HEALTH=$health
    launch "$target" "$name" "storm-daemon-$target-$mode"
    note "storm-$target" "$PY bench/load.py storm --base $base --target $target --listen <port> --total $STORM_TOTAL --batch 100 --settle 3"
    timeout 120 "$PY" bench/load.py storm --base "$base" --target "$target" --listen "$rport" --total "$STORM_TOTAL" --batch 100 \
        --settle 3 --timeout 60 | result "$name" || log "storm against $target ($mode) incomplete; see $RES/$name.json"
    stop "$D_PID"
}

# --- the run ---------------------------------------------------------------------

START=$(date +%s)
log "mode $MODE; results in $RUN"
printf '%s\n' "$MODE" >"$RUN/mode"
uptime >"$RUN/uptime-before"

log "(0) load generators against the sink alone"
calibrate
for ((r = 1; r <= ROUNDS; r++)); do
    for t in "${LOAD_TARGETS[@]}"; do log "(1) ingest, $t, round $r"; ingest "$t" "$r"; done
done
for ((r = 1; r <= ROUNDS; r++)); do
    for t in "${LOAD_TARGETS[@]}"; do log "(2) end to end, $t, round $r"; e2e "$t" "$r"; done
done
for ((r = 1; r <= ROUNDS; r++)); do
    for t in "${LOAD_TARGETS[@]}"; do log "(2b) one per request, $t, round $r"; single "$t" "$r"; done
done
for t in "${TARGETS[@]}"; do log "(3)+(5) memory and start, $t"; memory_and_start "$t"; done
log "(3) idle bound"; idle_bound
for t in "${TARGETS[@]}"; do log "(4) one CLI call, $t"; cli "$t"; done
for ((r = 1; r <= ROUNDS; r++)); do
    for t in "${TARGETS[@]}"; do log "(8) storm, $t, round $r"; storm "$t" "$r"; done
done
log "(8) storm, alertd without grouping"
storm alertd 1 ungrouped
log "(6) confirm -> handler, alertd"
confirm
log "(7) binaries"
binaries
# (7) alertd on PostgreSQL, one and two nodes, beside SQLite (BENCH_POSTGRES=0 skips it).
if [ "${BENCH_POSTGRES:-1}" = 1 ]; then
    # shellcheck source=bench/postgres.sh
    source bench/postgres.sh
    postgres_figures
fi

uptime >"$RUN/uptime-after"
echo $(($(date +%s) - START)) >"$RUN/seconds"
echo "ingest_seconds=$INGEST_SECONDS wrk_threads=$WRK_THREADS wrk_connections=$WRK_CONNECTIONS rounds=$ROUNDS e2e_batches=$E2E_BATCHES e2e_size=$E2E_SIZE fill_total=$FILL_TOTAL fill_batch=$FILL_BATCH single_total=$SINGLE_TOTAL single_connections=$SINGLE_CONNECTIONS big_total=$BIG_TOTAL storm_total=$STORM_TOTAL storm_wait=$STORM_WAIT bound_concurrency=$BOUND_CONCURRENCY hyperfine_runs=$HYPERFINE_RUNS confirms=$CONFIRMS starts=$STARTS" >"$RUN/params"
"$PY" bench/report.py --run "$RUN" --out "$OUT"
log "done in $(($(date +%s) - START)) s; wrote $OUT"
