# bench/postgres.sh: figure (7), alertd on PostgreSQL with one and two nodes,
# beside alertd on SQLite, measured the same way in the same run. Sourced by
# bench/run.sh (it uses run.sh's helpers: ports, start_sink, note, result,
# stop, PIDS); writes results/pg-*.json, which bench/report_postgres.py turns
# into BENCHMARKS.md's PostgreSQL section.
#
# The PostgreSQL cluster is the run's own: initdb in the run folder, the
# server on a free loopback port (as nobody when run as root), stopped at the
# end. Its settings are Debian's defaults (fsync and synchronous_commit on).

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

# The prefix that runs a command as the cluster's owner (nobody when we are
# root). A prefix, not a function: a function run in the background is a
# subshell, so $! would be that shell's pid and stopping it left the server
# running (every `make bench` before this left a PostgreSQL behind).
PG_AS=()
[ "$(id -u)" -eq 0 ] && PG_AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)

# start_postgres: sets PG_PORT, PG_PID, PG_DIR.
start_postgres() {
    # In /tmp, which the cluster's owner can reach whoever runs the bench.
    PG_DIR=$(mktemp -d /tmp/alertd-bench-pg.XXXXXX)
    PG_PORT=$(ports 1)
    [ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$PG_DIR"
    "${PG_AS[@]}" env LC_ALL=C "$PG_BIN/initdb" -D "$PG_DIR/data" -U alertd --auth=trust -E UTF8 --no-instructions >"$RUN/pg-initdb.log" 2>&1 ||
        die "initdb failed; see $RUN/pg-initdb.log"
    "${PG_AS[@]}" env LC_ALL=C "$PG_BIN/postgres" -D "$PG_DIR/data" -p "$PG_PORT" -k "$PG_DIR" -c listen_addresses=127.0.0.1 \
        -c max_connections=100 >>"$RUN/pg.log" 2>&1 &
    PG_PID=$!
    PIDS+=("$PG_PID")
    note postgres "$PG_BIN/postgres -D <dir> -p <port> -c listen_addresses=127.0.0.1 -c max_connections=100   # initdb defaults otherwise"
    local i
    for ((i = 0; i < 300; i++)); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && return 0
        sleep 0.1
    done
    die "PostgreSQL did not start; see $RUN/pg.log"
}

# pg_database NAME: a new empty database; prints its URL.
pg_database() {
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U alertd "$1" || die "createdb $1 failed"
    echo "postgresql://alertd@127.0.0.1:$PG_PORT/$1"
}

# pg_node NAME SINK_PORT [URL]: one alertd node (SQLite without URL); sets
# D_PID, D_PORT, D_BASE.
pg_node() {
    local name=$1 cfg=$RUN/$1.alertd.json store="" kind=sqlite
    [ -n "${3:-}" ] && store="\"store\": { \"url\": \"$3\", \"node\": \"$name\" }," && kind=postgres
    cat >"$cfg" <<JSON
{
  $store
  "presenters": { "sink": { "type": "webhook", "url": "http://127.0.0.1:$2/alertd" } },
  "default_route": { "presenters": ["sink"] },
  "dispatcher": { "shutdown_grace": "1s" }
}
JSON
    D_PORT=$(ports 1)
    D_BASE=http://127.0.0.1:$D_PORT
    mkdir -p "$RUN/state-$name"
    local cmd
    cmd=$(alertd_cmd "$cfg" "$RUN/state-$name" "$D_PORT")
    note "daemon-alertd-$kind" "$cmd"
    # shellcheck disable=SC2086
    env -u NOTIFY_SOCKET $cmd >>"$RUN/$name.log" 2>&1 &
    D_PID=$!
    PIDS+=("$D_PID")
    wait_http "$D_BASE/v1/health" 60 || die "alertd ($name) did not become ready; see $RUN/$name.log"
}

# pg_cluster BACKEND NODES NAME SINK_PORT: starts NODES nodes (BACKEND sqlite:
# one node on its own file); sets NODE_PIDS, NODE_BASES.
pg_cluster() {
    local backend=$1 nodes=$2 name=$3 url="" i
    [ "$backend" = postgres ] && url=$(pg_database "${name//-/_}")
    NODE_PIDS=(); NODE_BASES=()
    for ((i = 1; i <= nodes; i++)); do
        pg_node "$name-n$i" "$4" "$url"
        NODE_PIDS+=("$D_PID"); NODE_BASES+=("$D_BASE")
    done
}

pg_stop_cluster() { local p; for p in "${NODE_PIDS[@]}"; do stop "$p"; done; }

# pg_ingest BACKEND NODES ROUND: wrk against every node at once, the
# connections split between them; accepted alerts/s is the sum.
pg_ingest() {
    local backend=$1 nodes=$2 name=pg-ingest-$1-$2-$3 i
    start_sink "$name"
    pg_cluster "$backend" "$nodes" "$name" "$SINK_PORT"
    local per=$((WRK_CONNECTIONS / nodes)) wpids=()
    for ((i = 0; i < nodes; i++)); do
        BENCH_TARGET=alertd timeout $((INGEST_SECONDS + 60)) wrk -t$WRK_THREADS -c$per -d${INGEST_SECONDS}s --timeout 10s \
            -s bench/post.lua "${NODE_BASES[$i]}" >"$RUN/$name.wrk$i.txt" 2>&1 &
        wpids+=($!)
    done
    note "pg-wrk" "BENCH_TARGET=alertd wrk -t$WRK_THREADS -c$per -d${INGEST_SECONDS}s --timeout 10s -s bench/post.lua <node>   # one per node, at once"
    for i in "${wpids[@]}"; do wait "$i" || die "wrk failed against $backend ($name)"; done
    cat "$RUN/$name".wrk*.txt | sed -n 's/^BENCHJSON //p' |
        "$PY" -c 'import json,sys
rs=[json.loads(l) for l in sys.stdin if l.strip()]
ok=sum(r["requests"]-r["errors_status"]-r["errors_timeout"] for r in rs)
print(json.dumps({"nodes": len(rs), "accepted": ok, "per_second": ok/(max(r["duration_us"] for r in rs)/1e6),
  "latency_p50_ms": max(r["latency_p50_us"] for r in rs)/1000, "latency_p99_ms": max(r["latency_p99_us"] for r in rs)/1000,
  "errors": sum(r["errors_status"]+r["errors_timeout"] for r in rs)}))' | result "$name"
    pg_stop_cluster
    stop "$SINK_PID"
}

# pg_e2e BACKEND NODES ROUND: figure (2)'s load against the first node; every
# node delivers (on PostgreSQL the others are woken by NOTIFY).
pg_e2e() {
    local backend=$1 nodes=$2 name=pg-e2e-$1-$2-$3
    start_sink "$name"
    pg_cluster "$backend" "$nodes" "$name" "$SINK_PORT"
    note "pg-e2e" "$PY bench/load.py e2e --base <first node> --target alertd --batches $E2E_BATCHES --size $E2E_SIZE --sink <sink> --arrivals <sink file> --path /alertd"
    timeout 200 "$PY" bench/load.py e2e --base "${NODE_BASES[0]}" --target alertd --batches "$E2E_BATCHES" --size "$E2E_SIZE" \
        --sink "http://127.0.0.1:$SINK_PORT/" --arrivals "$SINK_FILE" --path /alertd --timeout 150 | result "$name" ||
        log "e2e on $backend with $nodes nodes incomplete; see $RES/$name.json"
    pg_stop_cluster
    stop "$SINK_PID"
}

postgres_figures() {
    [ -x "$PG_BIN/initdb" ] || { log "(7) skipped: PostgreSQL's server programs are not installed"; return 0; }
    start_postgres
    local figure r setup
    for figure in ingest e2e; do
        for ((r = 1; r <= ROUNDS; r++)); do
            for setup in "sqlite 1" "postgres 1" "postgres 2"; do
                log "(7) $figure, $setup node(s), round $r"
                # shellcheck disable=SC2086
                "pg_$figure" $setup "$r"
            done
        done
    done
    # SIGINT is PostgreSQL's fast shutdown; stop then waits for it to end.
    kill -INT "$PG_PID" 2>/dev/null || true
    stop "$PG_PID"
    rm -rf "$PG_DIR"
}
