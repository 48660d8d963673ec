#!/usr/bin/env python3
"""Writes linking/alertd.order and linking/alertctl.order: the functions the
release binaries run, in the order they first run, for lld's
--symbol-ordering-file (see Package.swift).

Why: the kernel maps a binary's code in 64-128 KB windows around each page
that runs (fault-around), so an idle alertd held 8 MB of its 11 MB of code,
though start-up and idling run about 1 MB of it, scattered. Laid out first
and together, that code takes a few windows.

How: the release build (`make release`) runs under valgrind's callgrind:
alertd from start until 2 s after its first /v1/health answer (as figure (3)
of bench/run.sh measures it), then `alertctl --version` and `alertctl send`
against it. Functions are listed as they first appear, those that run once
alertd is ready first: once ready it takes out of its page tables the code
only starting ran (CurrentProcess.releaseStartupPages), so what stays
resident is the windows that idling and answering touch. A function that lives
in a large section shared with code that does not run (the parts of the
static Swift runtime and FoundationEssentials built without function sections)
is left out: ordering it would move the whole section. A link map of the
current build tells which those are.

    make release && python3 scripts/order-symbols.py && make release

Needs valgrind. Run again after changing what alertd does at start or when
idle; a stale list costs memory, never correctness (unknown names are skipped).
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, ".build")
# Functions that run only when two threads want the same thing at once: a
# lock, a dispatch_once, the same generic metadata. callgrind runs one thread
# at a time, so it never sees them, yet real starts often contend (a Mutex in
# five of six), and each such function then kept a 64 KB window resident.
CONTENDED = re.compile(r"_MutexHandleV9_lockSlow|_MutexHandleV11_unlockSlow|AtomicWaitQueue|awaitSatisfyingState"
                       r"|^_dispatch_once_wait\.cold\.\d+$")
# A section bigger than this without function sections is not moved.
SHARED_SECTION_LIMIT = 64 * 1024


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def link_map(product, bin_dir, work):
    """Relinks `product` as SwiftPM did, with a link map; returns the map's path."""
    manifest = open(os.path.join(BUILD, "release.yaml")).read()
    for m in re.finditer(r'description: "Linking (\S+)"\n\s+args: (\[.*\])', manifest):
        if m.group(1).endswith("/" + product):
            args = json.loads(m.group(2))
            break
    else:
        sys.exit(f"no link step for {product} in .build/release.yaml; run 'make release' first")
    out = args.index("-o")
    args[out + 1] = os.path.join(work, product)
    path = os.path.join(work, product + ".map")
    subprocess.run(args + ["-Xlinker", "-Map=" + path], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def contended(binary):
    """The binary's functions that match CONTENDED, in address order."""
    nm = subprocess.run(["nm", "-n", binary], check=True, capture_output=True, text=True).stdout
    return [p[2] for p in (line.split() for line in nm.splitlines())
            if len(p) == 3 and p[1] in "tTwW" and CONTENDED.search(p[2])]


def shared_section_symbols(map_path):
    """Symbols defined in a big .text section that holds more than one function."""
    shared, section = set(), None
    for line in open(map_path):
        m = re.match(r"^\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+(\s+)(.*)$", line.rstrip("\n"))
        if not m:
            continue
        depth, name = len(m.group(2)), m.group(3).strip()
        if depth <= 1:
            continue
        if depth <= 9:
            section = name.endswith(":(.text)") and int(m.group(1), 16) > SHARED_SECTION_LIMIT
        elif section:
            shared.add(name)
    return shared


def executed(callgrind_files, binary_name):
    """Functions of `binary_name` in a callgrind dump, as they first appear."""
    objects, functions = {}, {}
    for path in callgrind_files:
        for line in open(path):
            m = re.match(r"^c?(ob|fn)=\((\d+)\) (.+)$", line.rstrip("\n"))
            if m:
                (objects if m.group(1) == "ob" else functions)[m.group(2)] = m.group(3)
    ours = {i for i, name in objects.items() if name.endswith("/" + binary_name)}
    seen, order, current, called = set(), [], None, None
    for line in open(callgrind_files[0]):
        m = re.match(r"^(c?)(ob|fn)=\((\d+)\)", line)
        if not m:
            continue
        call, kind, ident = m.groups()
        if kind == "ob":
            if call:
                called = ident
            else:
                current = ident
            continue
        owner = (called or current) if call else current
        if call:
            called = None
        if owner in ours and ident not in seen:
            seen.add(ident)
            name = re.sub(r"'\d+$", "", functions.get(ident, ""))
            if name and not name.startswith("0x") and name != "(below main)":
                order.append(name)
    return list(dict.fromkeys(order))


def dump(prefix, n):
    """The path of callgrind's `n`th dump for `prefix` (one process)."""
    files = [f for f in os.listdir(os.path.dirname(prefix))
             if f.startswith(os.path.basename(prefix)) and f.endswith(f".{n}")]
    if len(files) != 1:
        sys.exit(f"expected one callgrind dump {n} for {prefix}, found {files}")
    return os.path.join(os.path.dirname(prefix), files[0])


def main():
    bin_dir = subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="alertd-order-")
    state = os.path.join(work, "state")
    os.mkdir(state)
    config = os.path.join(work, "alertd.json")
    port, sink = free_port(), free_port()
    # Figure (3)'s daemon: a webhook presenter configured, nothing routed to it.
    with open(config, "w") as f:
        json.dump({"presenters": {"sink": {"type": "webhook", "url": f"http://127.0.0.1:{sink}/alertd",
                                           "max_concurrency": 64}},
                   "default_route": {"presenters": []}, "dispatcher": {"shutdown_grace": "1s"}}, f)
    env = dict(os.environ)
    env.pop("NOTIFY_SOCKET", None)
    grind = ["valgrind", "--tool=callgrind", "--demangle=no"]
    daemon_prefix = os.path.join(work, "alertd.cg")
    # Dump 1 is everything before the release of the start-up pages, dump 2
    # what runs after it (the services' loops, the health check, idling):
    # what must stay resident. A function in both belongs to the second.
    daemon = subprocess.Popen(grind + ["--callgrind-out-file=" + daemon_prefix,
                                       "--dump-before=*CurrentProcessO19releaseStartupPagesSiyFZ",
                                       os.path.join(bin_dir, "alertd"), "--config", config,
                                       "--state-dir", state, "--listen", f"127.0.0.1:{port}"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=5).read()
                break
            except OSError:
                if time.monotonic() > deadline or daemon.poll() is not None:
                    sys.exit("alertd did not answer /v1/health under valgrind")
                time.sleep(0.2)
        time.sleep(2)
        subprocess.run(["callgrind_control", "-d", str(daemon.pid)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        ctl_prefix = os.path.join(work, "alertctl.cg")
        alertctl = os.path.join(bin_dir, "alertctl")
        for n, args in enumerate([["--version"],
                                  ["send", "--url", f"http://127.0.0.1:{port}", "--title", "order", "--label", "a=b"]]):
            subprocess.run(grind + [f"--callgrind-out-file={ctl_prefix}.{n}", alertctl] + args, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)

    os.makedirs(os.path.join(ROOT, "linking"), exist_ok=True)
    ready = [dump(daemon_prefix + ".", 2), dump(daemon_prefix + ".", 1)]
    for product, runs in [("alertd", [ready, list(reversed(ready))]),
                          ("alertctl", [[os.path.join(work, f"alertctl.cg.{n}")] for n in (0, 1)])]:
        names = []
        for files in runs:
            names += executed(files, product)
        shared = shared_section_symbols(link_map(product, bin_dir, work))
        listed = list(dict.fromkeys(names + contended(os.path.join(bin_dir, product))))
        kept = [n for n in listed if n not in shared]
        with open(os.path.join(ROOT, "linking", product + ".order"), "w") as out:
            out.write("\n".join(kept) + "\n")
        print(f"linking/{product}.order: {len(kept)} functions ({len(listed) - len(kept)} left out: in shared sections)")
        # SwiftPM does not see the list change: remove the binary so the next build links it again.
        os.remove(os.path.join(bin_dir, product))


if __name__ == "__main__":
    main()
