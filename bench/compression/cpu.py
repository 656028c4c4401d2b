#!/usr/bin/env python3
"""CPU seconds `reshape serve` spends per request with and without compression, from the kernel's
own accounting (/proc/PID/stat utime + stime), in paired, alternating runs.

    python3 bench/compression/cpu.py RESHAPE_BIN [SIZE] [REQUESTS] [PAIRS]

Starts the callgrind harness's keep-alive origin (bench/callgrind/origin.py) on the peer
benchmark's documents and one `reshape serve --workers 1` on bench/peers/rules, then for each
pair sends REQUESTS GETs of /users/SIZE with `Accept-Encoding: identity` and REQUESTS with
`gzip` (the order alternating between pairs), and prints the server's CPU microseconds per
request for each coding and their ratio. Instruction counts (bench/callgrind) weigh every
instruction alike; this is the time the CPU was busy, where libdeflate's vectorized loops count
for what they cost. Only 127.0.0.1 is contacted; every phase is bounded by its request count.
"""
import http.client
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nothing listens on {port}")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def run(port, path, coding, count):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    size = 0
    for _ in range(count):
        connection.request("GET", path, headers={"Accept-Encoding": coding})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"{coding}: answered {response.status}")
        if coding != "identity" and response.getheader("Content-Encoding") != coding:
            sys.exit(f"{coding}: not compressed: {response.getheader('Content-Encoding')}")
        size = len(body)
    connection.close()
    return size


def main():
    binary = sys.argv[1]
    size = sys.argv[2] if len(sys.argv) > 2 else "150kb"
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    work = tempfile.mkdtemp()
    subprocess.run([sys.executable, f"{ROOT}/bench/peers/gen.py", f"{work}/data"], check=True, stdout=subprocess.DEVNULL)
    origin_port, port = free_port(), free_port()
    origin = subprocess.Popen([sys.executable, f"{ROOT}/bench/callgrind/origin.py", f"{work}/data", str(origin_port)])
    server = None
    try:
        wait_port(origin_port)
        env = dict(os.environ, ORIGIN_URL=f"http://127.0.0.1:{origin_port}")
        server = subprocess.Popen(
            [binary, "serve", "--rules", f"{ROOT}/bench/peers/rules", "--listen", f"127.0.0.1:{port}", "--workers", "1",
             "--no-access-log"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(port)
        path = f"/users/{size}"
        run(port, path, "gzip", 50)  # warm up both paths
        run(port, path, "identity", 50)
        per = {"identity": [], "gzip": []}
        sizes = {}
        for pair in range(pairs):
            order = ["identity", "gzip"] if pair % 2 == 0 else ["gzip", "identity"]
            for coding in order:
                before = cpu_seconds(server.pid)
                sizes[coding] = run(port, path, coding, count)
                per[coding].append((cpu_seconds(server.pid) - before) / count * 1e6)
        for coding in ("identity", "gzip"):
            values = per[coding]
            print(f"{coding:8} {statistics.median(values):8.1f} us/request (min {min(values):.1f}, max {max(values):.1f}),"
                  f" {sizes[coding]} bytes")
        ratios = [g / i for g, i in zip(per["gzip"], per["identity"])]
        print(f"gzip / identity: median {statistics.median(ratios):.3f} (pairs: {', '.join(f'{r:.3f}' for r in ratios)})")
    finally:
        for process in (server, origin):
            if process:
                process.terminate()
                process.wait()


if __name__ == "__main__":
    main()
