#!/usr/bin/env python3
"""bench/load.py: the loaders and waits bench/run.sh drives.

Each subcommand prints one JSON object on stdout (the numbers run.sh keeps)
and exits non-zero when it could not do its job. Every wait is bounded by a
deadline, every loop by a count. Times are CLOCK_MONOTONIC nanoseconds
(time.monotonic_ns), the clock bench/sink.c stamps arrivals with.

  free-ports N                      N free TCP ports on 127.0.0.1
  wait-http URL [--timeout S]       until URL answers 200
  sink-count SINK_URL               ids the sink has recorded
  wait-sink SINK_URL --count N      until the sink has N ids
  e2e ...                           figure (2): batches posted, arrivals matched
  single ...                        figure (2b): one alert per request over a few connections
  calibrate ...                     the loader's ceiling, against the sink
  fill ...                          figure (3): many alerts in big batches
  confirm ...                       figure (6): confirm, then the handler's arrival
  startwait ... -- CMD...           figure (5): start CMD, time READY=1 and health 200
  storm ...                         figure (8): 1,000 alerts in one group, its notifications counted
"""

import argparse
import http.client
import http.server
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def percentile(sorted_values, p):
    """Nearest-rank percentile of an already sorted list (None when empty)."""
    if not sorted_values:
        return None
    rank = max(1, -(-len(sorted_values) * p // 100))  # ceil(n * p / 100)
    return sorted_values[min(len(sorted_values), int(rank)) - 1]


def emit(obj):
    print(json.dumps(obj, sort_keys=True))
    sys.stdout.flush()


def split_url(url):
    u = urllib.parse.urlsplit(url)
    return u.hostname, u.port or 80, (u.path or "/") + (("?" + u.query) if u.query else "")


def http_get_status(url, timeout=1.0):
    """One GET on a new connection: (status, body) or (None, error text)."""
    host, port, path = split_url(url)
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    except OSError as e:
        return None, str(e)
    finally:
        conn.close()


def sink_count(sink_url):
    status, body = http_get_status(sink_url, timeout=5.0)
    if status != 200:
        return None
    ids, _requests = body.decode().split()
    return int(ids)


def wait_sink(sink_url, count, timeout):
    """Polls the sink every 20 ms until it holds `count` ids; (ids, complete)."""
    deadline = time.monotonic() + timeout
    ids = sink_count(sink_url) or 0
    while ids < count and time.monotonic() < deadline:
        time.sleep(0.02)
        ids = sink_count(sink_url) or ids
    return ids, ids >= count


class Poster:
    """One persistent HTTP/1.1 connection that POSTs JSON."""

    def __init__(self, base, timeout=60.0):
        host, port, _ = split_url(base)
        self.conn = http.client.HTTPConnection(host, port, timeout=timeout)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def post(self, path, body):
        data = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
        self.conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
        r = self.conn.getresponse()
        return r.status, r.read()

    def close(self):
        self.conn.close()


def alerts_body(target, ids, kind, extra=None):
    """The JSON array for one batch: alertd's alert objects or Alertmanager v2 alerts."""
    if target == "alertmanager":
        return [{"labels": {"alertname": kind, "severity": "warning", "bench_id": i},
                 "annotations": {"summary": "Bench alert " + i}} for i in ids]
    items = []
    for i in ids:
        item = {"title": "Bench alert " + i, "severity": "warning", "labels": {"alertname": kind, "bench_id": i}}
        if extra:
            item.update(extra)
        items.append(item)
    return items


def alerts_path(target):
    return "/api/v2/alerts" if target == "alertmanager" else "/v1/alerts"


def accepted_ok(target, status):
    return status == 200 if target == "alertmanager" else status == 202


def read_arrivals(path, url_prefix, kind):
    """First arrival per id in a sink file, for one URL path and payload type."""
    first = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4 or parts[3] != kind or not parts[2].startswith(url_prefix):
                continue
            ident, at = parts[0], int(parts[1])
            if ident not in first or at < first[ident]:
                first[ident] = at
    return first


def latency_stats(sent, arrived):
    """p50/p99 of arrival - send in ms, over the ids that arrived."""
    lat = sorted((arrived[i] - t) / 1e6 for i, t in sent.items() if i in arrived)
    return {
        "latency_p50_ms": percentile(lat, 50),
        "latency_p99_ms": percentile(lat, 99),
        "latency_max_ms": lat[-1] if lat else None,
        "matched": len(lat),
    }


def cmd_free_ports(a):
    socks = []
    for _ in range(a.n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    print(" ".join(str(s.getsockname()[1]) for s in socks))
    for s in socks:
        s.close()


def cmd_wait_http(a):
    deadline = time.monotonic() + a.timeout
    start = time.monotonic()
    while True:
        status, _ = http_get_status(a.url, timeout=1.0)
        if status == 200:
            emit({"url": a.url, "seconds": round(time.monotonic() - start, 3)})
            return 0
        if time.monotonic() >= deadline:
            print(f"load.py: {a.url} did not answer 200 within {a.timeout}s (last: {status})", file=sys.stderr)
            return 1
        time.sleep(0.02)


def cmd_sink_count(a):
    n = sink_count(a.sink)
    emit({"ids": n})
    return 0 if n is not None else 1


def cmd_wait_sink(a):
    start = time.monotonic()
    ids, complete = wait_sink(a.sink, a.count, a.timeout)
    emit({"ids": ids, "wanted": a.count, "complete": complete, "seconds": round(time.monotonic() - start, 3)})
    return 0


def cmd_e2e(a):
    """Figure (2): `batches` POSTs of `size` alerts, back to back on one
    connection; each alert's latency is its arrival at the sink minus the
    moment its batch's request started to be sent."""
    poster = Poster(a.base)
    sent = {}
    acks = []
    failures = 0
    bodies = []
    for b in range(a.batches):  # built up front so JSON encoding is not timed
        ids = [f"e{b}-{i}" for i in range(a.size)]
        bodies.append((ids, json.dumps(alerts_body(a.target, ids, "BenchE2E"), separators=(",", ":")).encode()))
    deadline = time.monotonic() + a.timeout
    first_send = time.monotonic_ns()
    for ids, body in bodies:
        if time.monotonic() > deadline:
            break
        t = time.monotonic_ns()
        status, _ = poster.post(alerts_path(a.target), body)
        acks.append((time.monotonic_ns() - t) / 1e6)
        if not accepted_ok(a.target, status):
            failures += 1
            continue
        for i in ids:
            sent[i] = t
    posted_ns = time.monotonic_ns()
    poster.close()
    wanted = len(sent)
    ids, complete = wait_sink(a.sink, wanted, max(1.0, deadline - time.monotonic()))
    arrived = read_arrivals(a.arrivals, a.path, "alert")
    mine = {i: t for i, t in arrived.items() if i in sent}
    last = max(mine.values()) if mine else None
    acks.sort()
    out = {
        "alerts": a.batches * a.size,
        "posted": wanted,
        "failed_batches": failures,
        "arrived": len(mine),
        "complete": len(mine) == a.batches * a.size,
        "post_seconds": round((posted_ns - first_send) / 1e9, 4),
        "all_arrived_ms": round((last - first_send) / 1e6, 2) if last and len(mine) == wanted else None,
        "ack_p50_ms": percentile(acks, 50),
        "ack_p99_ms": percentile(acks, 99),
    }
    out.update(latency_stats(sent, mine))
    emit(out)
    return 0 if out["complete"] else 1


class RawPoster:
    """One persistent HTTP/1.1 connection on a bare socket, for requests
    encoded beforehand: the loader's own cost per request stays a send and a
    receive, so a Python loader can keep a few connections busy."""

    def __init__(self, base, timeout=60.0):
        host, port, _ = split_url(base)
        self.host = host
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def request_bytes(self, path, body):
        return (f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode() + body

    def exchange(self, raw):
        """Sends one encoded request; returns the response's status."""
        self.sock.sendall(raw)
        while b"\r\n\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("connection closed")
            self.buf += chunk
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("connection closed")
            rest += chunk
        self.buf = rest[length:]
        return status

    def close(self):
        self.sock.close()


def cmd_single(a):
    """Figure (2b): `total` alerts, one per request, over `connections`
    connections at once, each sending its share back to back (requests encoded
    beforehand). Latency per alert = arrival at the sink − the moment its
    request started. With --calibrate the base is the sink itself and only the
    posting time is kept."""
    path = "/calibrate" if a.calibrate else alerts_path(a.target)
    per = [[] for _ in range(a.connections)]
    for n in range(a.total):
        bench_id = f"s{n}"
        item = alerts_body(a.target, [bench_id], "BenchSingle")
        body = json.dumps(item if a.target == "alertmanager" else item[0], separators=(",", ":")).encode()
        per[n % a.connections].append((bench_id, body))
    posters = [RawPoster(a.base) for _ in range(a.connections)]
    work = [[(i, p.request_bytes(path, body)) for i, body in share] for p, share in zip(posters, per)]
    sent = {}
    failures = [0] * a.connections
    deadline = time.monotonic() + a.timeout
    start_gate = threading.Barrier(a.connections + 1)

    def worker(k):
        start_gate.wait()
        mine = {}
        try:
            for bench_id, raw in work[k]:
                if time.monotonic() > deadline:
                    break
                t = time.monotonic_ns()
                if accepted_ok(a.target, posters[k].exchange(raw)) or a.calibrate:
                    mine[bench_id] = t
                else:
                    failures[k] += 1
        except OSError as e:
            print(f"load.py: connection {k}: {e}", file=sys.stderr)
            failures[k] += 1
        sent.update(mine)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(a.connections)]
    for t in threads:
        t.start()
    first_send = time.monotonic_ns()
    start_gate.wait()
    for t in threads:
        t.join()
    posted_ns = time.monotonic_ns()
    for p in posters:
        p.close()
    out = {"alerts": a.total, "connections": a.connections, "posted": len(sent), "failed": sum(failures),
           "post_seconds": round((posted_ns - first_send) / 1e9, 4)}
    if a.calibrate:
        emit(out)
        return 0
    wait_sink(a.sink, len(sent), max(1.0, deadline - time.monotonic()))
    arrived = read_arrivals(a.arrivals, a.path, "alert")
    mine = {i: t for i, t in arrived.items() if i in sent}
    last = max(mine.values()) if mine else None
    out.update({
        "arrived": len(mine),
        "complete": len(mine) == a.total,
        "all_arrived_ms": round((last - first_send) / 1e6, 2) if last and len(mine) == len(sent) == a.total else None,
    })
    out.update(latency_stats(sent, mine))
    emit(out)
    return 0 if out["complete"] else 1


def cmd_calibrate(a):
    """The loader's own ceiling: figure (2)'s bodies posted the same way to
    the sink, which answers at once."""
    poster = Poster(a.base)
    bodies = [json.dumps(alerts_body("alertd", [f"k{b}-{i}" for i in range(a.size)], "BenchE2E"),
                         separators=(",", ":")).encode() for b in range(a.batches)]
    start = time.monotonic_ns()
    for body in bodies:
        poster.post("/calibrate", body)
    took = (time.monotonic_ns() - start) / 1e6
    poster.close()
    emit({"batches": a.batches, "size": a.size, "ms": round(took, 2), "ms_per_batch": round(took / a.batches, 3)})
    return 0


def cmd_fill(a):
    """Figure (3): `total` alerts in batches of `batch`, one connection."""
    poster = Poster(a.base)
    deadline = time.monotonic() + a.timeout
    start = time.monotonic()
    accepted = 0
    batches = -(-a.total // a.batch)
    for b in range(batches):
        if time.monotonic() > deadline:
            break
        n = min(a.batch, a.total - b * a.batch)
        ids = [f"f{b}-{i}" for i in range(n)]
        status, body = poster.post(alerts_path(a.target), alerts_body(a.target, ids, "BenchFill"))
        if accepted_ok(a.target, status):
            accepted += n
        else:
            print(f"load.py: batch {b} got HTTP {status}: {body[:200]!r}", file=sys.stderr)
    poster.close()
    emit({"accepted": accepted, "wanted": a.total, "seconds": round(time.monotonic() - start, 3)})
    return 0 if accepted == a.total else 1


def cmd_confirm(a):
    """Figure (6), alertd only: create `n` alerts whose confirm action calls
    the handler sink, then confirm them one at a time, `gap_ms` apart; the
    latency is the handler's arrival minus the moment the confirm request
    started to be sent."""
    poster = Poster(a.base)
    ids = [f"c{i}" for i in range(a.n)]
    extra = {"confirm": {"label": "Confirm", "url": a.handler}}
    status, body = poster.post("/v1/alerts", alerts_body("alertd", ids, "BenchConfirm", extra))
    if status != 202:
        print(f"load.py: creating the alerts got HTTP {status}: {body[:300]!r}", file=sys.stderr)
        return 1
    results = json.loads(body)["results"]
    alert_ids = {ids[r["index"]]: r["id"] for r in results if "id" in r}
    # Let the webhook deliveries of the new alerts finish first, so the
    # confirms are measured on an otherwise idle daemon.
    wait_sink(a.alert_sink, a.n, a.timeout / 2)
    time.sleep(0.2)
    deadline = time.monotonic() + a.timeout
    sent = {}
    refused = 0
    for bench_id in ids:
        if time.monotonic() > deadline or bench_id not in alert_ids:
            break
        t = time.monotonic_ns()
        poster.conn.request("POST", f"/v1/alerts/{alert_ids[bench_id]}/confirm", body=b"",
                            headers={"Content-Type": "application/json"})
        r = poster.conn.getresponse()
        r.read()
        if r.status == 200:
            sent[bench_id] = t
        else:
            refused += 1
        time.sleep(a.gap_ms / 1000)
    poster.close()
    got, complete = wait_sink(a.handler_sink, len(sent), max(1.0, deadline - time.monotonic()))
    arrived = read_arrivals(a.arrivals, urllib.parse.urlsplit(a.handler).path, "decision")
    mine = {i: t for i, t in arrived.items() if i in sent}
    out = {"confirms": len(sent), "refused": refused, "arrived": len(mine), "complete": len(mine) == a.n}
    out.update(latency_stats(sent, mine))
    emit(out)
    return 0 if out["complete"] else 1


def cmd_startwait(a):
    """Figure (5): start the command and time, from just before the fork, the
    first READY=1 on a NOTIFY_SOCKET we bind (when --notify) and the first
    200 from the health URL (polled every 2 ms on new connections). Then
    stop it with SIGTERM (SIGKILL after 30 s)."""
    env = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="bench-notify-")
    notify = None
    if a.notify:
        path = os.path.join(tmp, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(path)
        env["NOTIFY_SOCKET"] = path
    else:
        env.pop("NOTIFY_SOCKET", None)
    log = open(a.log, "ab")
    start = time.monotonic_ns()
    proc = subprocess.Popen(a.cmd, stdout=log, stderr=log, env=env, start_new_session=True)
    ready_ms = health_ms = None
    deadline = time.monotonic() + a.timeout
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if notify is not None and ready_ms is None:
                r, _, _ = select.select([notify], [], [], 0.002)
                if r:
                    msg = notify.recv(4096).decode(errors="replace")
                    if "READY=1" in msg.split("\n"):
                        ready_ms = (time.monotonic_ns() - start) / 1e6
            else:
                time.sleep(0.002)
            if health_ms is None:
                status, _ = http_get_status(a.health, timeout=0.5)
                if status == 200:
                    health_ms = (time.monotonic_ns() - start) / 1e6
            if health_ms is not None and (notify is None or ready_ms is not None):
                break
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        log.close()
        if notify is not None:
            notify.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    emit({"ready_ms": ready_ms, "health_ms": health_ms, "exit": proc.returncode})
    return 0 if health_ms is not None else 1


class StormCounter:
    """The receiver of figure (8): records, per POST, its arrival
    (CLOCK_MONOTONIC, when its body is in) and how many alerts it carries:
    Alertmanager's `alerts`, alertd's `group.firing` (a group notification)
    or 1 (one alert's delivery)."""

    def __init__(self, port):
        self.lock = threading.Lock()
        self.requests = []  # (arrival ns, alerts carried, payload type)
        counter = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                at = time.monotonic_ns()
                try:
                    doc = json.loads(body)
                except ValueError:
                    doc = {}
                if "alerts" in doc:
                    n, kind = len(doc["alerts"]), "alertmanager"
                elif doc.get("type") == "group":
                    n, kind = len(doc["group"]["firing"]), "group"
                else:
                    n, kind = 1, doc.get("type", "?")
                with counter.lock:
                    counter.requests.append((at, n, kind))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            # alertd opens up to its presenter's 64 connections at once. With
            # socketserver's backlog of 5 some handshakes were dropped, and
            # their requests sat unanswered until alertd's 10 s timeout and
            # retry: the figure measured the receiver, not the daemon.
            request_queue_size = 128

        self.server = Server(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def snapshot(self):
        with self.lock:
            return list(self.requests)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def cmd_storm(a):
    """Figure (8): `total` alerts of one group (one `alertname`), posted in
    batches of `batch` on one connection, at a daemon that groups by
    `alertname` and waits `group_wait` before the first notification. The
    receiver listens on `listen`; the figure is the time from the first POST
    to the arrival of the notification that completes the `total` alerts
    (for a grouping daemon, its first), and how many requests (deliveries)
    the receiver got until `settle` seconds after that."""
    counter = StormCounter(a.listen)
    try:
        poster = Poster(a.base)
        bodies = []
        for b in range(-(-a.total // a.batch)):
            ids = [f"g{b}-{i}" for i in range(min(a.batch, a.total - b * a.batch))]
            bodies.append(json.dumps(alerts_body(a.target, ids, "BenchStorm"), separators=(",", ":")).encode())
        deadline = time.monotonic() + a.timeout
        first_send = time.monotonic_ns()
        failures = 0
        for body in bodies:
            status, _ = poster.post(alerts_path(a.target), body)
            failures += 0 if accepted_ok(a.target, status) else 1
        posted_ns = time.monotonic_ns()
        poster.close()
        complete_at = None
        while time.monotonic() < deadline:
            got = counter.snapshot()
            if sum(n for _, n, _ in got) >= a.total or (got and max(n for _, n, _ in got) >= a.total):
                complete_at = next((at for at, n, _ in got if n >= a.total), None) or max(at for at, _, _ in got)
                break
            time.sleep(0.01)
        if complete_at is not None:
            time.sleep(a.settle)
        got = counter.snapshot()
    finally:
        counter.close()
    first_at = min((at for at, _, _ in got), default=None)
    out = {
        "alerts": a.total,
        "batch": a.batch,
        "failed_batches": failures,
        "post_ms": round((posted_ns - first_send) / 1e6, 2),
        "deliveries": len(got),
        "alerts_delivered": sum(n for _, n, _ in got),
        "largest_delivery": max((n for _, n, _ in got), default=0),
        "kinds": sorted({k for _, _, k in got}),
        "first_delivery_ms": round((first_at - first_send) / 1e6, 2) if first_at else None,
        "all_delivered_ms": round((complete_at - first_send) / 1e6, 2) if complete_at else None,
        "settle_seconds": a.settle,
        "complete": complete_at is not None,
    }
    emit(out)
    return 0 if out["complete"] else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("free-ports")
    s.add_argument("n", type=int)
    s.set_defaults(fn=cmd_free_ports)

    s = sub.add_parser("wait-http")
    s.add_argument("url")
    s.add_argument("--timeout", type=float, default=60)
    s.set_defaults(fn=cmd_wait_http)

    s = sub.add_parser("sink-count")
    s.add_argument("sink")
    s.set_defaults(fn=cmd_sink_count)

    s = sub.add_parser("wait-sink")
    s.add_argument("sink")
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--timeout", type=float, default=120)
    s.set_defaults(fn=cmd_wait_sink)

    def target_args(s):
        s.add_argument("--base", required=True, help="the daemon's base URL")
        s.add_argument("--target", choices=["alertd", "alertmanager", "bound"], required=True,
                       help="bound: bench/bounds/minimal.c, which takes alertd's format")
        s.add_argument("--timeout", type=float, default=120)

    s = sub.add_parser("e2e")
    target_args(s)
    s.add_argument("--batches", type=int, default=100)
    s.add_argument("--size", type=int, default=100)
    s.add_argument("--sink", required=True, help="the sink's URL (GET gives its count)")
    s.add_argument("--arrivals", required=True, help="the sink's output file")
    s.add_argument("--path", required=True, help="the URL path the daemon delivers to")
    s.set_defaults(fn=cmd_e2e)

    s = sub.add_parser("single")
    target_args(s)
    s.add_argument("--total", type=int, default=10_000)
    s.add_argument("--connections", type=int, default=4)
    s.add_argument("--sink", help="the sink's URL (GET gives its count)")
    s.add_argument("--arrivals", help="the sink's output file")
    s.add_argument("--path", help="the URL path the daemon delivers to")
    s.add_argument("--calibrate", action="store_true", help="the base is the sink: time the posting only")
    s.set_defaults(fn=cmd_single)

    s = sub.add_parser("calibrate")
    s.add_argument("--base", required=True, help="the sink's base URL")
    s.add_argument("--batches", type=int, default=100)
    s.add_argument("--size", type=int, default=100)
    s.set_defaults(fn=cmd_calibrate)

    s = sub.add_parser("fill")
    target_args(s)
    s.add_argument("--total", type=int, default=100_000)
    s.add_argument("--batch", type=int, default=1000)
    s.set_defaults(fn=cmd_fill)

    s = sub.add_parser("confirm")
    s.add_argument("--base", required=True)
    s.add_argument("--n", type=int, default=200)
    s.add_argument("--gap-ms", type=float, default=20)
    s.add_argument("--handler", required=True, help="the confirm action's URL (a sink)")
    s.add_argument("--handler-sink", required=True, help="that sink's URL for counts")
    s.add_argument("--alert-sink", required=True, help="the webhook presenter's sink, for counts")
    s.add_argument("--arrivals", required=True, help="the handler sink's output file")
    s.add_argument("--timeout", type=float, default=120)
    s.set_defaults(fn=cmd_confirm)

    s = sub.add_parser("storm")
    target_args(s)
    s.add_argument("--listen", type=int, required=True, help="the port the daemon's webhook delivers to")
    s.add_argument("--total", type=int, default=1000)
    s.add_argument("--batch", type=int, default=100)
    s.add_argument("--settle", type=float, default=3, help="seconds to keep counting deliveries after the last alert arrived")
    s.set_defaults(fn=cmd_storm)

    s = sub.add_parser("startwait")
    s.add_argument("--health", required=True)
    s.add_argument("--notify", action="store_true", help="bind a NOTIFY_SOCKET and wait for READY=1 too")
    s.add_argument("--log", required=True)
    s.add_argument("--timeout", type=float, default=120)
    s.add_argument("cmd", nargs=argparse.REMAINDER)
    s.set_defaults(fn=cmd_startwait)

    a = p.parse_args()
    if getattr(a, "cmd", None) and a.cmd[0] == "--":
        a.cmd = a.cmd[1:]
    sys.exit(a.fn(a) or 0)


if __name__ == "__main__":
    main()
