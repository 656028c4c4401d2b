#!/usr/bin/env python3
"""What idle keep-alive connections cost `reshape serve`: N clients each send one GET, read
the whole answer, and then hold their connection open and idle; the server's RSS is read from
/proc before, while they idle, and after they all closed.

    python3 bench/idle/idle.py PID URL [--connections 10000] [--batch N] [--hold 12] [--after 12]

PID is the server's process (its /proc/PID/status VmRSS is read), URL the GET every client
sends once (HTTP/1.1, keep-alive). The clients connect and send BATCH at a time (default: all
at once, so that every request is in flight together); each must get a 200 with its whole
Content-Length body, or the run fails. Prints one JSON object: RSS before any client (after
one warm-up request on a connection closed since), with every connection open and idle
(HOLD seconds after the last answer), and AFTER seconds after they all closed, in KiB, with
the cost per idle connection. The server hands memory back on its own once a load has ended,
at its next 5 s sample: HOLD and AFTER leave room for two. Only the URL's host (127.0.0.1)
is contacted; every socket is closed on the way out.
"""
import argparse
import asyncio
import json
import resource
import sys
import time
import urllib.parse


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


async def get(host, port, request):
    """One connection: the GET, its whole answer; returns the open (reader, writer)."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = head.split(b" ", 2)[1]
    if status != b"200":
        raise RuntimeError(f"status {status.decode()}: {head[:300]!r}")
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), None)
    if length is None:
        raise RuntimeError(f"no Content-Length: {head[:300]!r}")
    await reader.readexactly(length)
    return reader, writer


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pid", type=int)
    parser.add_argument("url")
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--batch", type=int, default=0, help="connections opened at once (0: all)")
    parser.add_argument("--hold", type=float, default=12, help="seconds idle before RSS is read")
    parser.add_argument("--after", type=float, default=12, help="seconds after closing before RSS is read")
    args = parser.parse_args()
    batch = args.batch or args.connections
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < args.connections + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, args.connections + 1000), hard))
    url = urllib.parse.urlsplit(args.url)
    host, port = url.hostname, url.port or 80
    request = (f"GET {url.path or '/'}{'?' + url.query if url.query else ''} HTTP/1.1\r\n"
               f"Host: {url.netloc}\r\n\r\n").encode()

    # Warm-up: one request on a connection closed since, so that what the first request of a
    # process sets up once (its upstream connection, the route's buffers) counts as idle.
    _, writer = await get(host, port, request)
    writer.close()
    await asyncio.sleep(1)
    before = rss_kib(args.pid)

    connections = []
    started = time.monotonic()
    try:
        for first in range(0, args.connections, batch):
            count = min(batch, args.connections - first)
            connections += await asyncio.gather(*(get(host, port, request) for _ in range(count)))
        opened = time.monotonic() - started
        await asyncio.sleep(args.hold)
        idle = rss_kib(args.pid)
        # Each must still be open: a server that closed some would look cheaper than it is.
        closed = sum(1 for reader, _ in connections if reader.at_eof())
    finally:
        for _, writer in connections:
            writer.close()
    await asyncio.sleep(args.after)
    after = rss_kib(args.pid)
    n = len(connections)
    print(json.dumps({
        "connections": n, "batch": batch, "open_seconds": round(opened, 1), "closed_by_server": closed,
        "rss_before_kib": before, "rss_idle_kib": idle, "rss_after_close_kib": after,
        "idle_growth_kib": idle - before, "per_connection_kib": round((idle - before) / max(1, n), 2),
        "after_close_growth_kib": after - before,
    }))
    if closed:
        sys.exit(f"{closed} connections were closed by the server while idle")


if __name__ == "__main__":
    asyncio.run(main())
