#!/usr/bin/env python3
"""Issue 20's fan-out benchmark: N subscribers on one live stream of the 8 MB collection, changes
at a steady rate, and what `reshape serve` spends on them, from the kernel's accounting.

    python3 bench/live-fanout/bench.py RESHAPE_BIN DATA_DIR [--subscribers 10,1000]
                                       [--changes 3000] [--rate 100] [--sample 3]

DATA_DIR holds bench/peers/gen.py's 8mb.json. For each N in --subscribers, in turn and from
fresh processes: start upstream.py (Firebase's REST streaming) and `reshape serve --workers 1`
on rules/users.yaml; open N raw-socket subscribers to GET /users (Accept: text/event-stream),
a few at a time, until each has its whole snapshot; tell the upstream to apply CHANGES changes
at RATE per second; wait until every subscriber has one patch per change. Measured from
/proc/PID of the server: CPU (utime + stime) over the change phase, per change and per change
per subscriber; RSS before any subscriber, after every snapshot, and at the end. Checked: the
upstream saw one stream connection; every subscriber got one snapshot, CHANGES patches and no
error; for --sample subscribers (the first, the last and ones between), the snapshot with every
patch applied equals the route's answer computed here from the upstream's final document.
Prints a table, one row per N; the per-subscriber costs are the slope between rows. On standard
error, one JSON line per N with every figure and a trace of the change phase every 0.5 s:
(seconds, server RSS MiB, patches the slowest subscriber is behind, server CPU s so far).
--pause S: halfway through, every subscriber stops reading for S seconds.

Every phase has a timeout and every process started is stopped on the way out. Only
127.0.0.1 is contacted.
"""
import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

# What the subscribers count. Each event the server writes is one chunk of the chunked answer,
# so these byte strings are never split by chunk framing, and a `data:` line is one line of JSON
# (no raw newline), so "\nevent: ..." only matches a real event line.
SNAPSHOT = b"\nevent: snapshot\n"
PATCH = b"\nevent: patch\n"
ERROR = b"\nevent: error\n"
KEEP_ALIVE = b"\n: keep-alive\n"  # a comment: it ends with a blank line like an event
END = b"\n\n"  # the end of an event (or of a comment)
CARRY = max(len(p) for p in (SNAPSHOT, PATCH, ERROR, KEEP_ALIVE, END)) - 1


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on {port} after {seconds} s")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_bytes(pid):
    return int(open(f"/proc/{pid}/statm").read().split()[1]) * PAGE


def http_json(url, method="GET", timeout=30):
    request = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def normalize(doc):
    """The route's answer (keyed-to-array by key, User validated with invalid: drop, wrapped),
    as a Python value, to compare with a subscriber's: bench/peers/py_transform.py's logic."""
    sys.path.insert(0, HERE)
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    from upstream import valid
    return {"objects": [dict({"objectId": k}, **{m: v for m, v in doc[k].items() if m != "objectId"})
                        for k in sorted(doc) if valid(doc[k])]}


def apply_patch(doc, ops):
    """RFC 6902 add/remove/replace (the only ops Reshape sends) on parsed JSON."""
    for op in ops:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        if not parts:
            doc = op.get("value")
            continue
        parent = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent[p]
        last = parts[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(index, op["value"])
            elif op["op"] == "remove":
                del parent[index]
            else:
                parent[index] = op["value"]
        else:
            if op["op"] == "remove":
                del parent[last]
            else:
                parent[last] = op["value"]
    return doc


class Subscriber(asyncio.Protocol):
    """One client of the stream. Counts events in the raw bytes (cheap enough for 1,000 in one
    Python process at 100 patches/s each); a sampled one also keeps the bytes to parse them."""

    def __init__(self, sampled):
        self.sampled = sampled
        self.raw = bytearray() if sampled else None
        self.tail = b""
        self.counts = {SNAPSHOT: 0, PATCH: 0, ERROR: 0, KEEP_ALIVE: 0, END: 0}
        self.bytes = 0
        self.closed = False
        self.patch_times = []  # sampled: arrival of each chunk of patches (time, patches so far)
        self.snapshot_done = asyncio.get_running_loop().create_future()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport
        transport.write(b"GET /users HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")

    def data_received(self, data):
        self.bytes += len(data)
        if self.sampled:
            self.raw += data
        buf = self.tail + data
        skip = len(self.tail)  # a match lying wholly in the tail was counted last time
        for pattern in self.counts:
            i = buf.find(pattern)
            while i != -1:
                if i + len(pattern) > skip:
                    self.counts[pattern] += 1
                i = buf.find(pattern, i + 1)
        self.tail = buf[-CARRY:]
        if self.sampled and self.counts[PATCH]:
            self.patch_times.append((time.monotonic(), self.counts[PATCH]))
        if not self.snapshot_done.done() and self.counts[SNAPSHOT] and self.events_ended() >= 1:
            self.snapshot_done.set_result(None)

    def events_ended(self):
        return self.counts[END] - self.counts[KEEP_ALIVE]

    def connection_lost(self, exc):
        self.closed = True
        if not self.snapshot_done.done():
            self.snapshot_done.set_exception(ConnectionError("closed before its snapshot"))

    def events(self):
        """Sampled: the (event, data) pairs of the stream, from the chunked body."""
        head, _, body = bytes(self.raw).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
        payload, i = bytearray(), 0
        while True:
            j = body.find(b"\r\n", i)
            if j == -1:  # the end of what was read (the stream is still open)
                break
            size = int(body[i:j], 16)
            if size == 0 or j + 2 + size > len(body):
                break
            payload += body[j + 2:j + 2 + size]
            i = j + 2 + size + 2
        out = []
        for block in bytes(payload).split(b"\n\n"):
            fields = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line and not line.startswith(b":"))
            if b"event" in fields:
                out.append((fields[b"event"].decode(), fields[b"data"]))
        return out


async def wait_until(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {seconds} s")
        await asyncio.sleep(0.05)


async def measure(binary, data_dir, n, args):
    """One run with n subscribers; returns its row of figures."""
    upstream_port, port = free_port(), free_port()
    processes = []
    subscribers = []
    try:
        up = subprocess.Popen([sys.executable, f"{HERE}/upstream.py", f"{data_dir}/8mb.json", str(upstream_port)])
        processes.append(up)
        wait_port(upstream_port)
        env = dict(os.environ, UPSTREAM_URL=f"http://127.0.0.1:{upstream_port}")
        server = subprocess.Popen(
            [binary, "serve", "--rules", f"{HERE}/rules", "--listen", f"127.0.0.1:{port}", "--workers", "1",
             "--no-access-log"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(server)
        wait_port(port)
        time.sleep(1)
        rss_idle = rss_bytes(server.pid)
        loop = asyncio.get_running_loop()
        # Which subscribers keep their bytes: the first, the last, and evenly between.
        sampled = {round(i * (n - 1) / max(1, args.sample - 1)) for i in range(args.sample)}

        async def connect(i):
            s = Subscriber(i in sampled)
            await loop.create_connection(lambda: s, "127.0.0.1", port)
            subscribers.append(s)
            await asyncio.wait_for(s.snapshot_done, args.phase_timeout)

        # Snapshot phase. The first subscriber opens the upstream stream alone; the others join
        # it a batch at a time, so the server holds at most a batch of 8 MB snapshots unsent.
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        await connect(0)
        first_snapshot = time.monotonic() - t0
        cpu1, t1 = cpu_seconds(server.pid), time.monotonic()
        for start in range(1, n, args.batch):
            await asyncio.gather(*(connect(i) for i in range(start, min(n, start + args.batch))))
        join_seconds = time.monotonic() - t1
        join_cpu = cpu_seconds(server.pid) - cpu1
        await asyncio.sleep(2)  # let the last writes and frees settle
        rss_subscribed = rss_bytes(server.pid)

        # Change phase: from the upstream's first change to the last subscriber's last patch.
        base = f"http://127.0.0.1:{upstream_port}"
        cpu_start, t_start = cpu_seconds(server.pid), time.monotonic()
        http_json(f"{base}/_bench/start?changes={args.changes}&rate={args.rate}", "POST")
        expected = args.changes
        # Every 0.5 s: the server's RSS, and how many patches the slowest subscriber is behind
        # the upstream's schedule. A subscriber that falls behind leaves its events queued in the
        # server (up to `buffer`), so both say whether these Python clients kept up.
        peak = {"rss": 0, "behind": 0}
        trace = []  # (s, RSS MiB, slowest behind, server CPU s): in the JSON line on stderr

        async def sample():
            while True:
                elapsed = time.monotonic() - t_start
                due = min(expected, int(elapsed * args.rate))
                rss, behind = rss_bytes(server.pid), due - min(s.counts[PATCH] for s in subscribers)
                peak["rss"], peak["behind"] = max(peak["rss"], rss), max(peak["behind"], behind)
                trace.append((round(elapsed, 1), rss >> 20, behind, round(cpu_seconds(server.pid) - cpu_start, 2)))
                await asyncio.sleep(0.5)

        sampler = loop.create_task(sample())
        pause = {}

        async def stall():
            # --pause: halfway through, every subscriber stops reading for a while, so their
            # events queue (in the kernel's socket buffers, then in the server, up to `buffer`):
            # how the server's RSS moves meanwhile is what subscribers that are behind cost it.
            await asyncio.sleep(args.changes / args.rate / 2)
            before = rss_bytes(server.pid)
            for s in subscribers:
                s.transport.pause_reading()
            await asyncio.sleep(args.pause)
            pause["queued"] = n * int(args.pause * args.rate)
            pause["rss_growth"] = rss_bytes(server.pid) - before
            for s in subscribers:
                s.transport.resume_reading()

        if args.pause:
            await stall()
        await wait_until(lambda: all(s.counts[PATCH] >= expected and s.events_ended() >= 1 + expected or s.closed
                                     for s in subscribers),
                         args.changes / args.rate + args.phase_timeout, "every patch to every subscriber")
        change_seconds = time.monotonic() - t_start
        change_cpu = cpu_seconds(server.pid) - cpu_start
        sampler.cancel()
        await asyncio.sleep(1)
        rss_end = rss_bytes(server.pid)
        status = http_json(f"{base}/_bench/status")

        # Checks.
        problems = []
        if status["streams_seen"] != 1:
            problems.append(f"upstream saw {status['streams_seen']} stream connections, not 1")
        wrong = [i for i, s in enumerate(subscribers)
                 if s.closed or s.counts[SNAPSHOT] != 1 or s.counts[PATCH] != expected or s.counts[ERROR]]
        if wrong:
            s = subscribers[wrong[0]]
            problems.append(f"{len(wrong)} subscribers off, e.g. #{wrong[0]}: closed {s.closed}, "
                            f"{s.counts[SNAPSHOT]} snapshots, {s.counts[PATCH]} patches, {s.counts[ERROR]} errors")
        final = json.loads(urllib.request.urlopen(f"{base}/users.json", timeout=60).read())
        want = normalize(final)
        for s in (s for s in subscribers if s.sampled):
            events = s.events()
            answer = json.loads(events[0][1])
            for name, data in events[1:]:
                answer = apply_patch(answer, json.loads(data))
            if answer != want:
                got, exp = answer["objects"], want["objects"]
                first = next((i for i, (x, y) in enumerate(zip(got, exp)) if x != y), min(len(got), len(exp)))
                problems.append(f"a sampled subscriber's answer differs from the route's answer of the upstream's "
                                f"final document: {len(got)} records against {len(exp)}, first difference at "
                                f"/objects/{first}: {json.dumps(got[first:first + 1])[:300]} against "
                                f"{json.dumps(exp[first:first + 1])[:300]}")
        # Delivery latency: the sampled subscribers' arrival of each patch against its emit time.
        latencies = []
        for s in (s for s in subscribers if s.sampled):
            got = 0
            for when, count in s.patch_times:
                while got < count and got < len(status["emitted"]):
                    latencies.append(when - status["emitted"][got])
                    got += 1
        latencies.sort()
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/_reshape/metrics", timeout=30).read().decode()
        upstream_gauge = next((l.split()[-1] for l in metrics.splitlines()
                               if l.startswith("reshape_live_upstream_streams")), "?")

        # Leaving: every subscriber closes; the upstream stream must close soon after.
        for s in subscribers:
            s.transport.close()
        closed_at = time.monotonic()
        try:
            await wait_until(lambda: http_json(f"{base}/_bench/status")["streams_open"] == 0, 10, "upstream close")
            upstream_closed = f"{time.monotonic() - closed_at:.1f} s"
        except TimeoutError:
            upstream_closed = "not within 10 s"
            problems.append("the upstream stream stayed open after every subscriber left")
        return {
            "n": n, "changes": args.changes, "rate": args.rate,
            # changes per second as emitted: (count - 1) intervals between the first and the last
            "achieved_rate": (len(status["emitted"]) - 1) / (status["emitted"][-1] - status["emitted"][0])
            if len(status["emitted"]) > 1 else 0,
            "max_late_ms": status["max_late"] * 1e3,
            "first_snapshot_ms": first_snapshot * 1e3, "join_seconds": join_seconds,
            "join_cpu_ms_per_sub": join_cpu / max(1, n - 1) * 1e3,
            "change_seconds": change_seconds, "change_cpu": change_cpu,
            "cpu_per_change_us": change_cpu / args.changes * 1e6,
            "cpu_per_change_sub_us": change_cpu / args.changes / n * 1e6,
            "rss_idle": rss_idle, "rss_subscribed": rss_subscribed, "rss_end": rss_end, "rss_peak": peak["rss"],
            "max_behind": peak["behind"], "pause": pause, "trace": trace,
            "latency_p50_ms": latencies[len(latencies) // 2] * 1e3 if latencies else float("nan"),
            "latency_p99_ms": latencies[int(len(latencies) * 0.99)] * 1e3 if latencies else float("nan"),
            "upstream_streams": status["streams_seen"], "upstream_gauge": upstream_gauge,
            "upstream_closed": upstream_closed, "problems": problems,
        }
    finally:
        for s in subscribers:
            if s.transport:
                s.transport.close()
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("data_dir")
    parser.add_argument("--subscribers", default="10,1000", help="comma-separated N, one run each")
    parser.add_argument("--changes", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--sample", type=int, default=3, help="subscribers whose patches are applied and checked")
    parser.add_argument("--pause", type=float, default=0, help="seconds every subscriber stops reading, halfway")
    parser.add_argument("--batch", type=int, default=25, help="subscribers joining at once")
    parser.add_argument("--phase-timeout", type=float, default=300, help="seconds each phase may take beyond its plan")
    args = parser.parse_args()
    counts = [int(x) for x in args.subscribers.split(",")]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < max(counts) + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(counts) + 1000), hard))
    rows = []
    for n in counts:
        print(f"# {n} subscribers ...", file=sys.stderr, flush=True)
        client_cpu = sum(os.times()[:2])
        row = asyncio.run(measure(args.binary, args.data_dir, n, args))
        row["client_cpu"] = sum(os.times()[:2]) - client_cpu
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
    mib = 1 << 20
    print(f"{'subscribers':>11} {'changes':>7} {'rate/s':>7} {'CPU s':>6} {'µs/change':>10} {'µs/change/sub':>13}"
          f" {'RSS idle':>9} {'RSS subscribed':>14} {'RSS end':>8} {'RSS peak':>8} {'behind':>6} {'p50 ms':>7} {'p99 ms':>7}"
          f" {'join ms/sub':>11} {'upstream':>8}")
    for r in rows:
        print(f"{r['n']:>11} {r['changes']:>7} {r['achieved_rate']:>7.1f} {r['change_cpu']:>6.2f} {r['cpu_per_change_us']:>10.0f}"
              f" {r['cpu_per_change_sub_us']:>13.2f} {r['rss_idle'] / mib:>8.1f}M {r['rss_subscribed'] / mib:>13.1f}M"
              f" {r['rss_end'] / mib:>7.1f}M {r['rss_peak'] / mib:>7.1f}M {r['max_behind']:>6} {r['latency_p50_ms']:>7.1f}"
              f" {r['latency_p99_ms']:>7.1f}"
              f" {r['join_cpu_ms_per_sub']:>11.2f} {r['upstream_streams']:>8}")
    for r in rows:
        if r["pause"]:
            q, g = r["pause"]["queued"], r["pause"]["rss_growth"]
            # Heap freed earlier in the run (e.g. after a lag) is reused first: read with the trace.
            print(f"{r['n']} subscribers stopped reading for {args.pause:g} s: {q} events due meanwhile, server RSS "
                  f"+{g / mib:.1f} MiB meanwhile (peak of the run {r['rss_peak'] / mib:.1f} MiB)")
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        dn = b["n"] - a["n"]
        print(f"slope {a['n']} → {b['n']} subscribers: CPU per change per extra subscriber "
              f"{(b['cpu_per_change_us'] - a['cpu_per_change_us']) / dn:.2f} µs; memory per subscriber "
              f"{(b['rss_subscribed'] - a['rss_subscribed']) / dn / 1024:.1f} KiB after snapshots, "
              f"{(b['rss_end'] - a['rss_end']) / dn / 1024:.1f} KiB at the end")
    failed = [(r["n"], p) for r in rows for p in r["problems"]]
    for n, p in failed:
        print(f"FAIL ({n} subscribers): {p}")
    if not failed:
        print("checks passed: one upstream stream per run, closed after the last subscriber left; every subscriber "
              "got its snapshot and one patch per change, no error; sampled subscribers' answers equal the "
              "route's answer of the upstream's final document")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
