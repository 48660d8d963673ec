#!/usr/bin/env bash
# The Debian packages `make bench` needs on top of the build's: load
# generators, Alertmanager (kept from starting its own service; the benchmark
# runs its own instances), PostgreSQL for figure (7) (its own cluster, as
# Alertmanager), a C compiler for the sink, valgrind for
# bench/instructions.sh and perf for bench/idle.sh's FAULTS=1.
set -euo pipefail
exec bash "$(dirname "$0")/../scripts/install-deps.sh" --no-service-start \
    wrk hyperfine prometheus-alertmanager postgresql python3 gcc libc6-dev valgrind linux-perf
