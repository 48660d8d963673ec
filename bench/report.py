#!/usr/bin/env python3
"""bench/report.py: turns one bench/run.sh results folder into BENCHMARKS.md.

  python3 bench/report.py --run .build/bench/run-<time> --out BENCHMARKS.md

(run.sh calls it at the end; calling it again on a results folder re-renders
the same numbers, e.g. after changing this file. BENCH_NOTE adds a quoted
line under the title.)

Medians are taken over the rounds (figures 1 and 2: 3 rounds; figure 5: 3
starts); percentiles within a run are nearest-rank (bench/load.py, wrk's own
for figure 1). Ratios are alertd / Alertmanager.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess


def load(run, name):
    path = os.path.join(run, "results", name + ".json")
    try:
        with open(path) as f:
            text = f.read().strip()
        return json.loads(text) if text else None
    except (OSError, ValueError):
        return None


def rounds(run, prefix):
    out = []
    for path in sorted(glob.glob(os.path.join(run, "results", prefix + "-*.json"))):
        d = load(run, os.path.basename(path)[:-5])
        if d is not None:
            out.append(d)
    return out


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=None, unit=""):
    if v is None:
        return "n/a"
    if digits is None:
        digits = 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2
    return f"{v:,.{digits}f}{unit}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}×"


def sh(cmd):
    try:
        r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"({e})"


def machine(run):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            cpu = m.group(1) if m else ""
    except OSError:
        pass
    first = lambda s: s.splitlines()[0] if s else s  # noqa: E731
    rows = [
        ("nproc", sh("nproc")),
        ("CPU model (/proc/cpuinfo)", cpu),
        ("kernel", sh("uname -srm")),
        ("OS", sh(". /etc/os-release && echo $PRETTY_NAME")),
        ("filesystem of the state dirs", sh(f"df -T {run} | awk 'NR==2 {{print $2}}'")),
        ("load average before / after", f"{sh(f'cat {run}/uptime-before')} / {sh(f'cat {run}/uptime-after')}"),
        ("swift", first(sh("swift --version 2>&1 | grep -m1 -i 'swift version'"))),
        ("alertd", first(sh(".build/release/alertd --version"))),
        ("Alertmanager", first(sh("prometheus-alertmanager --version 2>&1"))),
        ("amtool", first(sh("amtool --version 2>&1"))),
        ("wrk", first(sh("wrk -v 2>&1"))),
        ("hyperfine", first(sh("hyperfine --version"))),
        ("curl", first(sh("curl --version"))),
        ("python3", sh("python3 --version")),
        ("libmicrohttpd (sink)", sh("pkg-config --modversion libmicrohttpd")),
    ]
    free = sh("free -h")
    return rows, free


def figure_key(r):
    """Sorts rows by figure: "(2b)" after "(2)", "(7)" after "(6)"; stable within a figure."""
    m = re.match(r"\((\d+)(\w*)\)", r[0])
    return (int(m.group(1)), m.group(2)) if m else (99, "")


def targets_table(fig, params):
    """Issue 11's targets, each with this run's figure and met / not met."""
    def g(key, t="alertd"):
        v = fig.get(key)
        return v.get(t) if isinstance(v, dict) else v

    def row(name, value, bound, ok, shown=None, bshown=None):
        state = "n/a" if ok is None else ("met" if ok else "**not met**")
        return f"| {name} | {shown if shown is not None else fmt(value)} | {bshown if bshown is not None else fmt(bound)} | {state} |"

    def le(v, limit):
        return None if v is None else v <= limit

    def rt(a, b):
        return a / b if a is not None and b else None

    total = int(params.get("e2e_batches", 100)) * int(params.get("e2e_size", 100))
    stotal = int(params.get("single_total", 10000))
    big_total = int(params.get("big_total", 1000000))
    fill_total = int(params.get("fill_total", 100000))
    e2e_ratio = rt(g("e2e_all_arrived_ms"), g("e2e_all_arrived_ms", "alertmanager"))
    e2e_bound_ratio = rt(g("e2e_all_arrived_ms", "bound"), g("e2e_all_arrived_ms", "alertmanager"))
    single_ratio = rt(g("single_all_arrived_ms"), g("single_all_arrived_ms", "alertmanager"))
    single_bound_ratio = rt(g("single_all_arrived_ms", "bound"), g("single_all_arrived_ms", "alertmanager"))
    ingest_ratio = rt(g("ingest_rate"), g("ingest_rate", "alertmanager"))
    ingest_bound_ratio = rt(g("ingest_rate", "bound"), g("ingest_rate", "alertmanager"))
    sizes = fig.get("sizes") or {}
    cli_ms = fig.get("cli_ms") or (None, None)
    mb = lambda kb: kb * 1024 / 1e6 if kb is not None else None  # noqa: E731
    x = lambda v: f"{v:.2f}×" if v is not None else "n/a"  # noqa: E731
    L = ["## Targets (issue 11)\n",
         "Each target against this run's figure (medians, as in Results). \"C bound\" is the same figure for "
         "`bench/bounds/minimal.c` in the same run: where it misses a target too, the bound lies outside alertd "
         "(the libraries, the disk's fsync, the loaders sharing two cores). MB are 10⁶ bytes.\n",
         "| Target | alertd | C bound | Met? |", "|---|---:|---:|---|"]
    # The targets are for 10,000 alerts; a quick run's smaller counts are shown but not judged.
    full = total >= 10000
    L.append(row(f"end to end, {total:,} alerts in batches of 100: all delivered ≤ 500 ms", g("e2e_all_arrived_ms"),
                 g("e2e_all_arrived_ms", "bound"), le(g("e2e_all_arrived_ms"), 500) if full else None))
    L.append(row("… ≤ 0.4× Alertmanager's time", e2e_ratio, e2e_bound_ratio, le(e2e_ratio, 0.4) if full else None, x(e2e_ratio), x(e2e_bound_ratio)))
    L.append(row("… p99 POST → arrival ≤ 50 ms", g("e2e_latency_p99_ms"), g("e2e_latency_p99_ms", "bound"),
                 le(g("e2e_latency_p99_ms"), 50) if full else None))
    L.append(row(f"end to end, {stotal:,} alerts one per request over {params.get('single_connections', 4)} connections: ≤ 0.6× Alertmanager's time",
                 single_ratio, single_bound_ratio, le(single_ratio, 0.6) if stotal >= 10000 else None, x(single_ratio), x(single_bound_ratio)))
    L.append(row("daemon CPU per alert, ingest + delivery (figure 2), ≤ 150 µs", g("cpu_us_per_alert"),
                 g("cpu_us_per_alert", "bound"), le(g("cpu_us_per_alert"), 150)))
    L.append(row("ingest, one alert per request, 202 after the fsync: ≥ 25,000 alerts/s", g("ingest_rate"),
                 g("ingest_rate", "bound"), None if g("ingest_rate") is None else g("ingest_rate") >= 25000,
                 fmt(g("ingest_rate"), 0), fmt(g("ingest_rate", "bound"), 0)))
    L.append(row("… p99 ≤ 10 ms", g("ingest_p99"), g("ingest_p99", "bound"), le(g("ingest_p99"), 10)))
    L.append(row("… ≥ 8× Alertmanager", ingest_ratio, ingest_bound_ratio, None if ingest_ratio is None else ingest_ratio >= 8,
                 x(ingest_ratio), x(ingest_bound_ratio)))
    L.append(row("`alertctl send` ≤ 1.0× `curl`, same POST", fig.get("cli_ratio"), None, le(fig.get("cli_ratio"), 1.0),
                 f"{x(fig.get('cli_ratio'))} ({fmt(cli_ms[0])} vs {fmt(cli_ms[1])} ms)", ""))
    L.append(row("`alertctl --version` ≤ 5 ms (bound: `bench/bounds/version.swift`)", fig.get("version_ms"),
                 fig.get("version_bound_ms"), le(fig.get("version_ms"), 5)))
    L.append(row("idle RSS ≤ 12 MB (bound: `bench/bounds/idle.swift`)", mb(fig.get("rss_idle_kb")), mb(fig.get("rss_idle_bound_kb")),
                 le(mb(fig.get("rss_idle_kb")), 12)))
    for f in ("alertd", "alertctl"):
        v = sizes.get(f) / 1e6 if sizes.get(f) else None
        L.append(row(f"`{f}` binary ≤ 30 MB", v, None, le(v, 30), bshown=""))
    L.append(row(f"{fill_total:,} open alerts ≤ 64 MB RSS", mb(fig.get("rss_loaded_kb")), None,
                 le(mb(fig.get("rss_loaded_kb")), 64) if fill_total >= 100000 else None, bshown=""))
    L.append(row(f"READY ≤ 200 ms with {big_total:,} stored", fig.get("ready_big_ms"), None,
                 le(fig.get("ready_big_ms"), 200) if big_total >= 1000000 else None, bshown=""))
    L.append("| nothing acknowledged lost on kill -9 | by the test suite (`CrashRecoveryTests`), not by this run | | see `make test` |")
    L.append("")
    return L


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--run", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--params", help="run.sh's parameters; default: the folder's params file")
    a = p.parse_args()
    run = a.run
    if a.params is None:
        with open(os.path.join(run, "params")) as f:
            a.params = f.read()
    params = dict(kv.split("=", 1) for kv in a.params.split())
    mode = open(os.path.join(run, "mode")).read().strip() if os.path.exists(os.path.join(run, "mode")) else "?"
    seconds = open(os.path.join(run, "seconds")).read().strip() if os.path.exists(os.path.join(run, "seconds")) else "?"
    T = ("alertd", "alertmanager")
    TB = T + ("bound",)
    rows = []  # (figure, measure, alertd, alertmanager, ratio[, C bound])
    details = []
    fig = {}  # the figures the targets table reads

    # (1) ingest
    ing = {t: rounds(run, f"ingest-{t}") for t in TB}
    rate = {t: [(d["requests"] - d["errors_status"] - d["errors_timeout"]) / (d["duration_us"] / 1e6) for d in ing[t]] for t in TB}
    p50 = {t: [d["latency_p50_us"] / 1000 for d in ing[t]] for t in TB}
    p99 = {t: [d["latency_p99_us"] / 1000 for d in ing[t]] for t in TB}
    m = {t: median(rate[t]) for t in TB}
    cpu1 = {t: [d["cpu_ms"] * 1000 / max(1, d["requests"] - d["errors_status"]) for d in ing[t] if "cpu_ms" in d] for t in TB}
    n1 = len(ing["alertd"])
    rows.append(("(1) ingest", f"accepted alerts/s, 1 alert per request (median of {n1}; higher is better)",
                 fmt(m["alertd"], 0), fmt(m["alertmanager"], 0), ratio(m["alertd"], m["alertmanager"]), fmt(m["bound"], 0)))
    fig["ingest_rate"] = {t: m[t] for t in TB}
    for label, src in (("p50", p50), ("p99", p99)):
        mm = {t: median(src[t]) for t in TB}
        fig[f"ingest_{label}"] = mm
        rows.append(("(1) ingest", f"request latency {label}, ms (median of {n1})",
                     fmt(mm["alertd"]), fmt(mm["alertmanager"]), ratio(mm["alertd"], mm["alertmanager"]), fmt(mm["bound"])))
    mc = {t: median(cpu1[t]) for t in TB}
    rows.append(("(1) ingest", f"daemon CPU time per 1,000 accepted alerts (deliveries included), ms (median of {n1})",
                 fmt(mc["alertd"]), fmt(mc["alertmanager"]), ratio(mc["alertd"], mc["alertmanager"]), fmt(mc["bound"])))
    for t in TB:
        for i, d in enumerate(ing[t], 1):
            errs = {k: d[k] for k in d if k.startswith("errors_") and d[k]}
            details.append(f"- (1) {t} round {i}: {fmt(rate[t][i-1], 0)} alerts/s, p50 {fmt(p50[t][i-1])} ms, "
                           f"p99 {fmt(p99[t][i-1])} ms, {d['requests']:,} requests, errors {errs or 'none'}, "
                           f"{d.get('delivered_during', 0):,} delivered to the sink by the end, RSS after {d.get('rss_kb_after', 0)/1024:.0f} MiB")

    # (2) end to end
    e2e = {t: rounds(run, f"e2e-{t}") for t in TB}
    n2 = len(e2e["alertd"])
    total = int(params.get("e2e_batches", 100)) * int(params.get("e2e_size", 100))
    for key, label in (("all_arrived_ms", f"{total:,} alerts in batches of {params.get('e2e_size', 100)}: first POST → last arrival, ms"),
                       ("latency_p50_ms", "POST → arrival p50, ms"), ("latency_p99_ms", "POST → arrival p99, ms")):
        mm = {t: median([d.get(key) for d in e2e[t]]) for t in TB}
        fig[f"e2e_{key}"] = mm
        rows.append(("(2) end to end", f"{label} (median of {n2})", fmt(mm["alertd"]), fmt(mm["alertmanager"]),
                     ratio(mm["alertd"], mm["alertmanager"]), fmt(mm["bound"])))
    after2 = {t: rounds(run, f"after-e2e-{t}") for t in TB}
    cpu2 = {t: median([d.get("cpu_ms") for d in after2[t]]) for t in TB}
    rows.append(("(2) end to end", f"daemon CPU time for the {total:,} alerts, ingest and delivery, ms (median of {n2})",
                 fmt(cpu2["alertd"]), fmt(cpu2["alertmanager"]), ratio(cpu2["alertd"], cpu2["alertmanager"]), fmt(cpu2["bound"])))
    per_alert = {t: cpu2[t] * 1000 / total if cpu2[t] is not None else None for t in TB}
    fig["cpu_us_per_alert"] = per_alert
    rows.append(("(2) end to end", "… the same per alert, µs", fmt(per_alert["alertd"]), fmt(per_alert["alertmanager"]),
                 ratio(per_alert["alertd"], per_alert["alertmanager"]), fmt(per_alert["bound"])))
    rss2 = {t: median([d.get("rss_kb") for d in after2[t]]) for t in TB}
    rows.append(("(2) end to end", f"RSS right after, all {total:,} delivered, MiB (median of {n2})",
                 fmt(rss2["alertd"] / 1024 if rss2["alertd"] else None), fmt(rss2["alertmanager"] / 1024 if rss2["alertmanager"] else None),
                 ratio(rss2["alertd"], rss2["alertmanager"]), fmt(rss2["bound"] / 1024 if rss2["bound"] else None)))

    # (2b) one alert per request over a few connections
    single = {t: rounds(run, f"single-{t}") for t in TB}
    n2b = len(single["alertd"])
    stotal = int(params.get("single_total", 10000))
    conns = params.get("single_connections", "4")
    for key, label in (("all_arrived_ms", f"{stotal:,} alerts, one per request over {conns} connections: first POST → last arrival, ms"),
                       ("post_seconds", "… posting alone took, ms"),
                       ("latency_p50_ms", "… POST → arrival p50, ms"), ("latency_p99_ms", "… POST → arrival p99, ms")):
        mm = {t: median([(d.get(key) * 1000 if key == "post_seconds" and d.get(key) is not None else d.get(key)) for d in single[t]]) for t in TB}
        fig[f"single_{key}"] = mm
        rows.append(("(2b) one per request", f"{label} (median of {n2b})", fmt(mm["alertd"]), fmt(mm["alertmanager"]),
                     ratio(mm["alertd"], mm["alertmanager"]), fmt(mm["bound"])))
    after2b = {t: rounds(run, f"after-single-{t}") for t in TB}
    cpu2b = {t: median([d.get("cpu_ms") for d in after2b[t]]) for t in TB}
    per2b = {t: cpu2b[t] * 1000 / stotal if cpu2b[t] is not None else None for t in TB}
    fig["single_cpu_us_per_alert"] = per2b
    rows.append(("(2b) one per request", "daemon CPU per alert, ingest and delivery, µs", fmt(per2b["alertd"]),
                 fmt(per2b["alertmanager"]), ratio(per2b["alertd"], per2b["alertmanager"]), fmt(per2b["bound"])))
    for t in TB:
        for i, d in enumerate(single[t], 1):
            details.append(f"- (2b) {t} round {i}: all arrived after {fmt(d.get('all_arrived_ms'))} ms "
                           f"(posting took {fmt(d['post_seconds'] * 1000)} ms), p50 {fmt(d.get('latency_p50_ms'))} ms, "
                           f"p99 {fmt(d.get('latency_p99_ms'))} ms, {d.get('arrived', 0):,}/{d['alerts']:,} arrived, "
                           f"{d.get('failed', 0)} failed")
    for t in TB:
        for i, d in enumerate(e2e[t], 1):
            details.append(f"- (2) {t} round {i}: all arrived after {fmt(d.get('all_arrived_ms'))} ms "
                           f"(posting took {fmt(d['post_seconds'] * 1000)} ms, ack p50 {fmt(d['ack_p50_ms'])} ms), "
                           f"p50 {fmt(d.get('latency_p50_ms'))} ms, p99 {fmt(d.get('latency_p99_ms'))} ms, "
                           f"max {fmt(d.get('latency_max_ms'))} ms, {d['arrived']:,}/{d['alerts']:,} arrived")

    # (3) memory
    mem = {t: load(run, f"memory-{t}") for t in T}
    fill_total = int(params.get("fill_total", 100000))
    def mib(t, k):
        return mem[t][k] / 1024 if mem[t] else None
    fig["rss_idle_kb"] = mem["alertd"]["rss_idle_kb"] if mem["alertd"] else None
    fig["rss_idle_bound_kb"] = (load(run, "memory-idle-bound") or {}).get("rss_idle_kb")
    fig["rss_loaded_kb"] = mem["alertd"]["rss_loaded_kb"] if mem["alertd"] else None
    for k, label in (("rss_idle_kb", "RSS idle (2 s after ready), MiB"),
                     ("rss_loaded_kb", f"RSS with {fill_total:,} open alerts (stored, none delivered), MiB"),
                     ("hwm_kb", "peak RSS (VmHWM) over the load, MiB")):
        bound = fig["rss_idle_bound_kb"] / 1024 if k == "rss_idle_kb" and fig["rss_idle_bound_kb"] else None
        rows.append(("(3) memory", label, fmt(mib("alertd", k)), fmt(mib("alertmanager", k)),
                     ratio(mib("alertd", k), mib("alertmanager", k)), fmt(bound) if bound else ""))
    for t in T:
        d = mem[t]
        if d:
            f = d.get("fill") or {}
            details.append(f"- (3) {t}: loading {f.get('accepted', 0):,} alerts in batches of {params.get('fill_batch')} "
                           f"took {f.get('seconds', 'n/a')} s ({fmt(f['accepted'] / f['seconds'], 0) if f.get('seconds') else 'n/a'} alerts/s)")

    # (4) CLI
    cli = {t: load(run, f"cli-{t}") for t in T}
    def cli_ms(t, i):
        try:
            return cli[t]["results"][i]["median"] * 1000
        except (TypeError, KeyError, IndexError):
            return None
    runs4 = params.get("hyperfine_runs", "?")
    rows.append(("(4) one call", f"`alertctl send` vs `amtool alert add`, ms per call (median of {runs4})",
                 fmt(cli_ms("alertd", 0)), fmt(cli_ms("alertmanager", 0)), ratio(cli_ms("alertd", 0), cli_ms("alertmanager", 0))))
    rows.append(("(4) one call", f"`curl` POST, ms per call (median of {runs4})",
                 fmt(cli_ms("alertd", 1)), fmt(cli_ms("alertmanager", 1)), ratio(cli_ms("alertd", 1), cli_ms("alertmanager", 1))))
    fig["cli_ratio"] = cli_ms("alertd", 0) / cli_ms("alertd", 1) if cli_ms("alertd", 0) and cli_ms("alertd", 1) else None
    fig["cli_ms"] = (cli_ms("alertd", 0), cli_ms("alertd", 1))
    rows.append(("(4) one call", "the CLI's cost over curl, same daemon (CLI / curl)",
                 ratio(cli_ms("alertd", 0), cli_ms("alertd", 1)), ratio(cli_ms("alertmanager", 0), cli_ms("alertmanager", 1)), ""))
    for t in T:
        if cli[t]:
            for r in cli[t]["results"]:
                details.append(f"- (4) {t}: `{r['command']}`: median {r['median']*1000:.2f} ms, "
                               f"mean {r['mean']*1000:.2f} ± {r['stddev']*1000:.2f} ms, min {r['min']*1000:.2f} ms")

    # (5) start
    for kind, label in (("empty", "empty state dir"), ("full", f"{fill_total:,} alerts in the store")):
        st = {t: rounds(run, f"start-{kind}-{t}") for t in T}
        ready = median([d.get("ready_ms") for d in st["alertd"]])
        health = {t: median([d.get("health_ms") for d in st[t]]) for t in T}
        n5 = len(st["alertd"])
        rows.append(("(5) start", f"start → READY=1, {label}, ms (median of {n5})", fmt(ready),
                     "n/a (no sd_notify)", ""))
        rows.append(("(5) start", f"start → first 200 from /v1/health (alertd) or /-/ready (Alertmanager), {label}, ms (median of {n5})",
                     fmt(health["alertd"]), fmt(health["alertmanager"]), ratio(health["alertd"], health["alertmanager"])))
        for t in T:
            details.append(f"- (5) {t}, {label}: " + ", ".join(
                f"READY {fmt(d.get('ready_ms'))} ms / health {fmt(d.get('health_ms'))} ms" if t == "alertd"
                else f"ready {fmt(d.get('health_ms'))} ms" for d in st[t]))
    size = {t: load(run, f"state-size-{t}") for t in T}
    rows.append(("(5) start", f"state dir on disk with {fill_total:,} alerts, MiB",
                 fmt(size["alertd"]["state_kb"] / 1024) if size["alertd"] else "n/a",
                 fmt(size["alertmanager"]["state_kb"] / 1024) if size["alertmanager"] else "n/a",
                 "(Alertmanager keeps alerts in memory only)"))
    big_total = int(params.get("big_total", 1000000))
    big = rounds(run, "start-big-alertd")
    fig["ready_big_ms"] = median([d.get("ready_ms") for d in big])
    rows.append(("(5) start", f"start → READY=1, {big_total:,} alerts in the store, ms (median of {len(big)})",
                 fmt(fig["ready_big_ms"]), "n/a (no sd_notify)", ""))
    fb = load(run, "fill-big-alertd")
    if big:
        details.append(f"- (5) alertd, {big_total:,} alerts in the store: " + ", ".join(
            f"READY {fmt(d.get('ready_ms'))} ms / health {fmt(d.get('health_ms'))} ms" for d in big)
            + (f" (topping the store up by {fb.get('accepted', 0):,} alerts took {fb.get('seconds')} s)" if fb else ""))

    # (7) the binaries
    sizes = {f: (load(run, f"size-{f}") or {}).get("bytes") for f in ("alertd", "alertctl")}
    fig["sizes"] = sizes
    for f in ("alertd", "alertctl"):
        rows.append(("(7) binaries", f"`{f}` release binary (static Swift stdlib), MB", fmt(sizes[f] / 1e6 if sizes[f] else None),
                     "", ""))
    ver = load(run, "version")
    def ver_ms(i):
        try:
            return ver["results"][i]["median"] * 1000
        except (TypeError, KeyError, IndexError):
            return None
    fig["version_ms"] = ver_ms(0)
    fig["version_bound_ms"] = ver_ms(2)
    rows.append(("(7) binaries", f"`alertctl --version`, ms (median of {params.get('hyperfine_runs', '?')}; `curl --version`: {fmt(ver_ms(1))} ms)",
                 fmt(ver_ms(0)), "", "", fmt(ver_ms(2)) if ver_ms(2) is not None else ""))

    # (6) confirm
    c = load(run, "confirm-alertd")
    nc = c["confirms"] if c else 0
    rows.append(("(6) confirm", f"`POST /v1/alerts/{{id}}/confirm` → handler arrival p50, ms ({nc} confirms, 20 ms apart)",
                 fmt(c.get("latency_p50_ms")) if c else "n/a", "n/a (no confirm action)", ""))
    rows.append(("(6) confirm", "… p99, ms", fmt(c.get("latency_p99_ms")) if c else "n/a", "n/a (no confirm action)", ""))
    if c:
        details.append(f"- (6) alertd: {c['arrived']}/{c['confirms']} handler calls arrived, max {fmt(c.get('latency_max_ms'))} ms")

    # (8) a storm: 1,000 alerts in one group
    storm = {t: rounds(run, f"storm-{t}") for t in T}
    n8 = len(storm["alertd"])
    stotal8 = int(params.get("storm_total", 1000))
    wait8 = params.get("storm_wait", "1s")
    if n8 or storm["alertmanager"]:
        mm = {t: median([d.get("all_delivered_ms") for d in storm[t]]) for t in T}
        fig["storm_ms"] = mm
        rows.append(("(8) storm", f"{stotal8:,} alerts in one group (`group_by` alertname, `group_wait` {wait8}): first POST → "
                     f"the notification carrying all of them, ms (median of {n8})",
                     fmt(mm["alertd"]), fmt(mm["alertmanager"]), ratio(mm["alertd"], mm["alertmanager"])))
        dd = {t: median([d.get("deliveries") for d in storm[t]]) for t in T}
        rows.append(("(8) storm", f"… deliveries (webhook requests) made for them, counted until 3 s after (median of {n8})",
                     fmt(dd["alertd"], 0), fmt(dd["alertmanager"], 0), ratio(dd["alertd"], dd["alertmanager"])))
    ungrouped = rounds(run, "storm-ungrouped-alertd")
    if ungrouped:
        u = ungrouped[0]
        rows.append(("(8) storm", f"… alertd without grouping: deliveries made, and first POST → last of them, ms",
                     f"{u.get('deliveries', 0):,} in {fmt(u.get('all_delivered_ms'))} ms", "", ""))
    for t in T:
        for i, d in enumerate(storm[t], 1):
            details.append(f"- (8) {t} round {i}: {d.get('deliveries')} deliveries carrying {d.get('alerts_delivered', 0):,} alerts "
                           f"(the largest {d.get('largest_delivery', 0):,}), the first {fmt(d.get('first_delivery_ms'))} ms "
                           f"after the first POST, all {stotal8:,} notified after {fmt(d.get('all_delivered_ms'))} ms; "
                           f"posting took {fmt(d.get('post_ms'))} ms, {d.get('failed_batches', 0)} batches refused")
    for d in ungrouped:
        details.append(f"- (8) alertd without grouping: {d.get('deliveries', 0):,} deliveries, the last "
                       f"{fmt(d.get('all_delivered_ms'))} ms after the first POST")

    # (0) the load generators alone
    cw = load(run, "calibrate-wrk")
    cl = load(run, "calibrate-loader")
    calib = []
    if cw:
        calib.append(f"- wrk ({params.get('wrk_threads')} threads × {params.get('wrk_connections')} connections, `bench/post.lua`) against the sink "
                     f"alone: {fmt(cw['requests'] / (cw['duration_us'] / 1e6), 0)} requests/s, p50 {fmt(cw['latency_p50_us'] / 1000)} ms, "
                     f"p99 {fmt(cw['latency_p99_us'] / 1000)} ms. The daemons' medians in (1) are "
                     f"{m['alertd'] / (cw['requests'] / (cw['duration_us'] / 1e6)):.0%} (alertd) and "
                     f"{m['alertmanager'] / (cw['requests'] / (cw['duration_us'] / 1e6)):.0%} (Alertmanager) of that, so wrk's "
                     "request rate is not what limits them, though its CPU use does take from theirs.")
    if cl:
        calib.append(f"- `bench/load.py` posting figure (2)'s {cl['batches']} batches of {cl['size']} to the sink alone: "
                     f"{fmt(cl['ms'])} ms in all, {fmt(cl['ms_per_batch'], 3)} ms per batch.")

    # Things to keep in mind, some computed from this run.
    notes = []
    def share(t):
        vals = [d.get("delivered_during", 0) / max(1, d["requests"] - d["errors_status"]) for d in ing[t]]
        return median(vals)
    sa, sm = share("alertd"), share("alertmanager")
    if sa is not None and sm is not None:
        notes.append(f"- During (1), by the time wrk stopped the sink had received {sa:.0%} (alertd) and {sm:.0%} "
                     "(Alertmanager) of the accepted alerts (medians). Where that is well below 100%, deliveries lag "
                     "ingest and the daemon is stopped with a backlog.")
    notes.append("- The load generators, the sink and the daemon share the machine's cores (see nproc below); "
                 "wrk's two threads compete with the daemon for CPU, so (1) measures the pair, not the daemon alone.")
    notes.append("- alertd answers a POST only after an fsync'd SQLite commit; Alertmanager holds alerts in memory "
                 "and writes nothing per alert. The comparison is of the products as they are, not of equal work.")
    notes.append("- `group_by: ['...']` makes every Alertmanager alert a group of its own (one goroutine and timer "
                 "each), which is what \"send every alert at once\" asks for, and is heavier than a typical "
                 "`group_by: [alertname]` setup; its memory in (3) reflects that.")
    notes.append("- In (8) both daemons wait `group_wait` from the group's first alert before notifying: most of the "
                 "figure is that wait; the rest is posting the alerts and building and sending the one notification. "
                 "alertd answers each batch after its SQLite commit, Alertmanager from memory.")
    notes.append("- wrk is closed-loop: its p99 is the latency under saturation with "
                 f"{params.get('wrk_connections')} requests in flight, not corrected for coordinated omission.")

    # commands
    commands = []
    try:
        with open(os.path.join(run, "commands.tsv")) as f:
            for line in f:
                key, cmd = line.rstrip("\n").split("\t", 1)
                commands.append((key, cmd.replace(os.getcwd() + "/", "")))
    except OSError:
        pass

    mrows, free = machine(run)
    title_mode = "FULL run" if mode == "full" else "QUICK run (BENCH_QUICK=1: 2 s durations, counts 10× smaller; not for quoting)"
    L = []
    L.append("# Benchmarks: alertd and Alertmanager, side by side\n")
    L.append(f"**{title_mode}.** Written by `bench/run.sh` (`make bench`) from `{os.path.relpath(run)}`; "
             f"the run took {seconds} s after the build. Regenerate with `make bench`; don't edit by hand.\n")
    if os.environ.get("BENCH_NOTE"):
        L.append(f"> {os.environ['BENCH_NOTE']}\n")
    L.append("Both daemons ran on this machine, one at a time, alternating (alertd, then Alertmanager, for each "
             "round of each figure), each on a fresh state dir, everything on 127.0.0.1. The load generators and "
             "the webhook sink ran on the same machine and share its cores with the daemon under test.\n")
    L.extend(targets_table(fig, params))
    L.append("## Results\n")
    L.append("Ratios are alertd / Alertmanager: above 1× alertd is higher (better for alerts/s, worse for times "
             "and memory).\n")
    L.append("| Figure | Measure | alertd | Alertmanager | alertd / AM | C bound |")
    L.append("|---|---|---:|---:|---:|---:|")
    for r in sorted(rows, key=figure_key):
        L.append("| " + " | ".join(r + ("",) * (6 - len(r))) + " |")
    L.append("")
    L.append("\"C bound\" is `bench/bounds/minimal.c`, alertd's path as a minimal C program on the same libraries, "
             "measured in the same rounds; for idle RSS and `alertctl --version` it is the Swift bound "
             "(`bench/bounds/idle.swift`, `bench/bounds/version.swift`; see \"What each figure measures\").\n")
    if calib:
        L.append("### The load generators alone\n")
        L.extend(calib)
        L.append("")
    L.append("### Read with care\n")
    L.extend(notes)
    L.append("")
    L.append("### Every round\n")
    L.extend(sorted(details, key=lambda d: figure_key((d[2:],))))
    L.append("")
    L.append("## What each figure measures\n")
    L.append(f"""- **(1) ingest.** `wrk -t{params.get('wrk_threads')} -c{params.get('wrk_connections')} -d{params.get('ingest_seconds')}s` with `bench/post.lua`:
  one alert per request, each distinct (a `bench_id` label per request). alertd: `POST /v1/alerts` with one
  object, answered 202 after the SQLite commit (WAL, `synchronous=FULL`). Alertmanager: `POST /api/v2/alerts`
  with an array of one, answered 200 once the alert is in memory. alerts/s counts 2xx answers over wrk's
  duration; p50/p99 are wrk's per-request latencies (closed loop, {params.get('wrk_connections')} requests in flight, not corrected for
  coordinated omission). Deliveries to the sink run at the same time on both sides.
- **(2) end to end.** `bench/load.py e2e`: {params.get('e2e_batches')} POSTs of {params.get('e2e_size')} alerts, back to back on one persistent
  connection (bodies encoded beforehand). Latency per alert = arrival at the sink (end of the webhook request body,
  `CLOCK_MONOTONIC`) − the moment its batch's POST started. "All arrived" = first POST → last arrival.
- **(2b) one per request.** `bench/load.py single`: {params.get('single_total')} alerts, one per request (alertd: one object;
  Alertmanager: an array of one), over {params.get('single_connections')} persistent connections at once, each sending its share back to
  back (requests encoded beforehand, sent on bare sockets). Latency per alert = arrival at the sink − the moment its
  request started. Daemon CPU per alert = the daemon's CPU time over the run / the alerts.
- **(3) memory.** `VmRSS` from `/proc/<pid>/status`, idle 2 s after the daemon answers its health/ready check,
  then 2 s after {fill_total:,} alerts were posted in batches of {params.get('fill_batch')}. Store only: alertd's default route names
  no presenter, Alertmanager's receiver has no integration (it still makes one group per alert), so this is the cost
  of holding open alerts, not of delivering them; figure (2)'s RSS row shows a daemon right after delivering.
  `VmHWM` is the peak over the whole life of the process.
- **(4) one call.** `hyperfine -N --warmup 3 --runs {params.get('hyperfine_runs')}`: the CLI (`alertctl send --url …` /
  `amtool alert add … --alertmanager.url=…`) against a `curl` POST of the same alert to the same daemon. Each call is
  a new process and a new TCP connection. Alertmanager merges the repeated identical alert into one; alertd stores a
  new alert each time (no `dedup_key`).
- **(5) start.** `bench/load.py startwait`: from just before the fork to the first `READY=1` datagram on a
  `NOTIFY_SOCKET` the harness binds (alertd only: Alertmanager does not speak sd_notify) and to the first 200 from
  the health URL, polled every 2 ms on fresh connections. "Full" restarts on the state dir of figure (3).
  **Alertmanager does not persist alerts** (only its notification log and silences; senders such as Prometheus
  re-send alerts): its "full" restart is in effect an empty start, while alertd reopens a store holding {fill_total:,} alerts.
- **(5) start with {int(params.get('big_total', 1000000)):,} stored.** The state dir of (3), topped up through the API in batches of
  {params.get('fill_batch')} to {int(params.get('big_total', 1000000)):,} alerts, then three starts timed as above (alertd only).
- **(6) confirm → handler.** alertd only; Alertmanager has no confirm action. {params.get('confirms')} alerts with a `confirm` action whose
  URL is a second sink; after their webhook deliveries land, each is confirmed with `POST /v1/alerts/{{id}}/confirm`,
  one at a time, 20 ms apart; latency = the handler's arrival − the moment the confirm request started.
- **(8) storm.** `bench/load.py storm`: {params.get('storm_total', 1000)} alerts with one `alertname` posted in batches of 100 on one
  connection, to a daemon whose route groups by `alertname` with `group_wait` {params.get('storm_wait', '1s')} (`group_interval` 1m,
  `repeat_interval` 1h, the same on both sides); the webhook receiver is `bench/load.py` itself, which counts the alerts
  each request carries (Alertmanager's `alerts`, alertd's `group.firing`). Time = first POST → arrival of the
  notification that carries all the alerts; deliveries = webhook requests received until 3 s after it. alertd
  without grouping (the same route, no `group_by`) is the same load with one delivery per alert.
- **(7) binaries.** `stat` of the release binaries (`swift build -c release --static-swift-stdlib`), and
  `hyperfine -N --warmup 3 --runs {params.get('hyperfine_runs')} 'alertctl --version' 'curl --version' 'version --version'`.
- **Swift bounds** (built by run.sh as the release binaries are: static Swift runtime, lld, packed relocations).
  `bench/bounds/idle.swift` is an idle alertd without alertd: the Swift runtime with async main and one task asleep,
  FoundationEssentials decoding a JSON config, two libmicrohttpd daemons (TCP and a Unix socket, epoll pools of 2,
  suspend/resume) answering GET with 200, and a WAL SQLite database with a writer thread and a reader connection;
  its RSS is taken as figure (3)'s idle RSS (2 s after its health check). `bench/bounds/version.swift` prints one
  line: the least a static Swift `--version` costs here.
- **C bound.** `bench/bounds/minimal.c` (built by run.sh): libmicrohttpd (epoll, 2 threads, suspend/resume), one
  writer thread committing all queued requests' alerts in one SQLite transaction (WAL, `synchronous=FULL`: one
  fsync per commit), one alert row and one delivery row per alert, 202 only after the commit, the committed
  deliveries handed in memory to one libcurl multi thread ({params.get('bound_concurrency')} in flight, kept-alive connections) that
  POSTs `{{"alert": <the object>}}` to the sink, outcomes written in the next transaction without an fsync. No
  validation, routing, ids, events, signing or JSON parsing: the least alertd's path can cost on these libraries.
""")
    # The targets, the misses and what bounds them: written by hand from
    # profiles, kept in bench/analysis.md so a regenerated report keeps them.
    analysis = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            L.append(f.read().rstrip() + "\n")
    # (7) PostgreSQL, from bench/postgres.sh's results, when the run has them.
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import report_postgres
    L.extend(report_postgres.section(run))
    L.append("## Setup\n")
    L.append("""- alertd: `.build/release/alertd` (release build), a config with one webhook presenter to the sink and
  `default_route` to it; no terminal and no log presenter. Its own log (level info, nothing per alert) goes to a file.
  The webhook presenter has its default 512 deliveries in flight at most (`max_concurrency`), near Alertmanager,
  which sends every group's notification at once; 2 API threads, defaults otherwise.
- Alertmanager: Debian's `prometheus-alertmanager`, route `group_by: ['...']`, `group_wait: 0s`,
  `group_interval: 1s`, `repeat_interval: 1h`, one webhook receiver (`send_resolved: false`),
  `--cluster.listen-address=` (no gossip), log level info to a file. Every alert is its own group and is sent at once.
- The sink: `bench/sink.c` on libmicrohttpd (epoll, 2 threads), answers 200 as soon as the body is in and writes
  `id monotonic_ns path type` per alert.
""")
    L.append("## Commands\n")
    L.append("```sh")
    L.append("make bench                    # = install deps, swift build -c release, bash bench/run.sh")
    L.append("BENCH_QUICK=1 bash bench/run.sh  # a short check (not for quoting)")
    for key, cmd in commands:
        L.append(f"# {key}")
        L.append(cmd)
    L.append("```\n")
    L.append("## Machine\n")
    L.append("| | |")
    L.append("|---|---|")
    for k, v in mrows:
        L.append(f"| {k} | {v.replace('|', '/')} |")
    L.append("")
    L.append("```")
    L.append(free)
    L.append("```")
    text = "\n".join(L) + "\n"
    with open(a.out, "w") as f:
        f.write(text.replace(os.getcwd() + "/", ""))


if __name__ == "__main__":
    main()
