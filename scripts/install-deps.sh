#!/usr/bin/env bash
# Installs the Debian packages alertd's build needs, only when missing; with
# --test also what the test suite runs (Prometheus, Alertmanager, PostgreSQL,
# chromium, a Python SMTP server); plus any packages named as arguments
# (bench/install-bench-deps.sh names its own). Idempotent and silent when
# everything is already present.
#
#   bash scripts/install-deps.sh                      # build dependencies (make build, make run)
#   bash scripts/install-deps.sh --test               # build and test dependencies (make test, CI)
#   bash scripts/install-deps.sh --no-service-start wrk prometheus-alertmanager
#
# --no-service-start keeps packages from starting their own daemons (through
# policy-rc.d, where the init system honours it). Installing the test
# dependencies that ship a daemon (Prometheus, Alertmanager, PostgreSQL) always
# does: the tests start their own instances on free ports, and the packaged
# services would only hold 9090, 9093 and 5432.
set -euo pipefail

no_service_start=0
tests=0
while [ $# -gt 0 ]; do
    case $1 in
        --no-service-start) no_service_start=1 ;;
        --test) tests=1 ;;
        *) break ;;
    esac
    shift
done

packages=(pkg-config libcurl4-openssl-dev libmicrohttpd-dev libsqlite3-dev libssl-dev libpq-dev)
service_packages=(prometheus prometheus-alertmanager postgresql)
if [ "$tests" = 1 ]; then
    # Tests use these: a pseudo-terminal via script(1) (bsdutils) and curl for the event stream.
    packages+=(bsdutils curl)
    # The mail tests run a real SMTP server (aiosmtpd, from PyPI; see below),
    # with STARTTLS and TLS on certificates the openssl CLI makes for them.
    packages+=(openssl)
    command -v python3 >/dev/null 2>&1 || packages+=(python3 python3-pip)
    # The web console's tests drive Debian's chromium through chromedriver with Selenium (from PyPI; see below).
    packages+=(chromium chromium-driver)
    # The Prometheus tests run the real programs: prometheus, alertmanager and amtool;
    # the PostgreSQL tests start their own clusters with initdb and postgres.
    packages+=("${service_packages[@]}")
    # A cluster test runs one node with its clock set ahead (LD_PRELOAD of libfaketime).
    packages+=(libfaketime)
    # alertctl's fish completion is tried in a real fish (`complete -C`).
    packages+=(fish)
fi
packages+=("$@")

# aiosmtpd for the mail tests and selenium for the console's, once python3
# is there. Debian's own Python refuses pip installs outside a virtualenv
# (PEP 668) unless told.
install_pip_module() {
    python3 -c "import $1" 2>/dev/null && return 0
    echo "install-deps: installing $1 (pip)" >&2
    python3 -m pip install --quiet "$1" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "$1"
}
install_python_modules() {
    [ "$tests" = 1 ] || return 0
    install_pip_module aiosmtpd
    install_pip_module selenium
}

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
for p in "${missing[@]}"; do
    for s in "${service_packages[@]}"; do
        if [ "$p" = "$s" ]; then no_service_start=1; fi
    done
done
if [ ${#missing[@]} -eq 0 ]; then
    install_python_modules
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run=(sudo)
else
    echo "install-deps: need root to install: ${missing[*]}" >&2
    echo "install-deps: run 'sudo apt-get install ${missing[*]}' or run this script as root." >&2
    exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
placed_policy=0
policy=/usr/sbin/policy-rc.d
if [ "$no_service_start" = 1 ] && [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${run[@]}" tee "$policy" >/dev/null
    "${run[@]}" chmod 0755 "$policy"
    placed_policy=1
fi
trap '[ "$placed_policy" = 1 ] && "${run[@]}" rm -f "$policy"' EXIT
"${run[@]}" apt-get update -qq >/dev/null
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_python_modules
