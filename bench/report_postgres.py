"""Figure (7) of BENCHMARKS.md: alertd on PostgreSQL, one and two nodes,
beside alertd on SQLite, from the results bench/postgres.sh wrote."""

import glob
import json
import os


def _median(values):
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def _load(run, prefix):
    out = []
    for path in sorted(glob.glob(os.path.join(run, "results", prefix + "-*.json"))):
        try:
            with open(path) as f:
                out.append(json.load(f))
        except (OSError, ValueError):
            pass
    return out


def _fmt(v, digits=1):
    if v is None:
        return "–"
    return f"{v:,.0f}" if digits == 0 else f"{v:,.{digits}f}"


def section(run):
    """The section's Markdown lines, or [] when the run has no PostgreSQL results."""
    setups = (("sqlite", 1, "SQLite, 1 node"), ("postgres", 1, "PostgreSQL, 1 node"), ("postgres", 2, "PostgreSQL, 2 nodes"))
    ing = {(b, n): _load(run, f"pg-ingest-{b}-{n}") for b, n, _ in setups}
    e2e = {(b, n): _load(run, f"pg-e2e-{b}-{n}") for b, n, _ in setups}
    if not any(ing.values()) and not any(e2e.values()):
        return []
    L = ["## (7) alertd on PostgreSQL: one and two nodes, beside SQLite\n",
         "Measured in the same run, the same way as figures (1) and (2), on the run's own PostgreSQL cluster",
         "(Debian's defaults: `fsync` and `synchronous_commit` on) on the same machine. With two nodes, wrk's",
         "connections are split between them and the rates added; end to end posts to the first node and both deliver.\n",
         "| Setup | ingest, accepted alerts/s | ingest p50 / p99, ms | end to end: all arrived, ms | alert latency p50 / p99, ms | complete |",
         "|---|---|---|---|---|---|"]
    for b, n, label in setups:
        i, e = ing[(b, n)], e2e[(b, n)]
        rate = _median([d.get("per_second") for d in i])
        p50 = _median([d.get("latency_p50_ms") for d in i])
        p99 = _median([d.get("latency_p99_ms") for d in i])
        allms = _median([d.get("all_arrived_ms") for d in e])
        l50 = _median([d.get("latency_p50_ms") for d in e])
        l99 = _median([d.get("latency_p99_ms") for d in e])
        complete = f"{sum(1 for d in e if d.get('complete'))}/{len(e)}"
        errors = sum(d.get("errors", 0) for d in i)
        L.append(f"| {label} | {_fmt(rate, 0)}{' (' + str(errors) + ' errors)' if errors else ''} | {_fmt(p50)} / {_fmt(p99)} "
                 f"| {_fmt(allms, 0)} | {_fmt(l50)} / {_fmt(l99)} | {complete} |")
    L.append("")
    L.append(f"Medians of {max(len(v) for v in ing.values())} rounds. Commands: `bench/postgres.sh`.\n")
    return L
