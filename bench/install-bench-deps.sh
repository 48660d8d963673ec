#!/usr/bin/env bash
# Installs the Debian packages `make bench` needs on top of scripts/install-deps.sh,
# only when missing. Idempotent and silent when everything is already present.
set -euo pipefail

packages=(wrk hyperfine prometheus-alertmanager python3 curl gcc libc6-dev pkg-config libmicrohttpd-dev)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-bench-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    run=(sudo)
else
    echo "install-bench-deps: need root to install: ${missing[*]}" >&2
    echo "install-bench-deps: run 'sudo apt-get install ${missing[*]}' or run this script as root." >&2
    exit 1
fi

echo "install-bench-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Keep the package from starting its own Alertmanager (port 9093, /var/lib) where
# the init system honours policy-rc.d; the benchmark runs its own instances.
policy=/usr/sbin/policy-rc.d
placed_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${run[@]}" tee "$policy" >/dev/null
    "${run[@]}" chmod 0755 "$policy"
    placed_policy=1
fi
trap '[ "$placed_policy" = 1 ] && "${run[@]}" rm -f "$policy"' EXIT
"${run[@]}" apt-get update -qq >/dev/null
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
