#!/usr/bin/env python3
"""A Firebase Realtime Database stand-in for the live fan-out benchmark: one collection, its REST
streaming protocol, and a steady stream of changes when told.

    python3 upstream.py DOC.json PORT [--seed S]

- `GET /users.json` with `Accept: text/event-stream`: `event: put` with path "/" and the whole
  value (DOC without its `null` members, which Firebase would not hold: 8.3 MB for the peer
  benchmark's 8 MB document), then
  every change as Firebase sends it (`put`/`patch` with a path under "/"), and `event: keep-alive`
  every 30 s, as Firebase does. Each such connection is counted: the benchmark requires one.
- `GET /users.json` without it: the current value as JSON (what a plain Firebase GET returns).
- `POST /_bench/start?changes=N&rate=R`: start applying N changes at R per second (once).
- `GET /_bench/status`: JSON with the stream connections seen and open, the changes applied,
  whether the run is done, the emit time of each change (time.monotonic, the same clock as the
  benchmark's, for delivery latency) and how late the pacing fell behind.

Every change is picked so that it changes the route's answer (bench/live-fanout/rules): a field
of a record that is in the answer (valid under the User schema) gets a new valid value, a new
valid record is added, or a record in the answer is deleted. So each change must reach every
subscriber as exactly one `patch` event, and the benchmark can check the count.
Listens on 127.0.0.1 only.
"""
import argparse
import asyncio
import json
import random
import time
import urllib.parse

PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
KEEP_ALIVE_SECONDS = 30  # Firebase's own period


def valid(rec):
    """The route's User schema, as bench/peers/py_transform.py writes it out (stdlib only here)."""
    if type(rec) is not dict:
        return False
    name, email = rec.get("name"), rec.get("email")
    if type(name) is not str or not name or type(email) is not str or "@" not in email:
        return False
    if "age" in rec and (type(rec["age"]) is not int or rec["age"] < 0):
        return False
    if "tags" in rec and (type(rec["tags"]) is not list or any(type(t) is not str for t in rec["tags"])):
        return False
    if "address" in rec:
        a = rec["address"]
        if type(a) is not dict or any(k in a and type(a[k]) is not str for k in ("city", "zip")):
            return False
    return True


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def sse(event, data):
    return f"event: {event}\ndata: {data}\n\n".encode()


class Collection:
    """The document, the ids of its records that are in the answer, and the change generator."""

    def __init__(self, raw, seed):
        # Firebase stores no null member (writing null deletes it), and gen.py's records
        # sometimes have `"phone": null`: hold the document as Firebase would, and send that.
        self.doc = {k: {m: v for m, v in rec.items() if v is not None} if type(rec) is dict else rec
                    for k, rec in json.loads(raw).items()}
        self.raw = dumps(self.doc).encode()  # sent as the first `put /` until the first change
        self.rng = random.Random(seed)
        self.ids = [k for k, v in self.doc.items() if valid(v)]  # sampled in O(1), removed by swap
        self.index = {k: i for i, k in enumerate(self.ids)}
        self.ms = 1_800_000_000_000  # later than every generated push id: new ids sort last
        self.serial = 0

    def body(self):
        return self.raw if self.raw is not None else dumps(self.doc).encode()

    def _pick(self):
        return self.ids[self.rng.randrange(len(self.ids))]

    def _forget(self, key):
        i = self.index.pop(key)
        last = self.ids.pop()
        if last != key:
            self.ids[i] = last
            self.index[last] = i

    def _new_id(self):
        # Half sort last (a timestamp after every record's, as new push ids do), half among the
        # others (an old timestamp: the record lands in the middle of the answer).
        self.ms += 1
        ms = self.ms if self.rng.random() < 0.5 else self.rng.randrange(1_700_000_000_000, 1_700_100_000_000)
        ts = []
        for _ in range(8):
            ts.append(PUSH_CHARS[ms % 64])
            ms //= 64
        return "".join(reversed(ts)) + "".join(self.rng.choice(PUSH_CHARS) for _ in range(12))

    def change(self):
        """Applies one change to the document; returns its SSE bytes."""
        self.raw = None
        self.serial += 1
        n = self.serial
        roll = self.rng.random()
        if roll < 0.3:  # `patch` of two fields of one record
            key = self._pick()
            rec = self.doc[key]
            age = rec.get("age", 0) + 1 if rec.get("age", 0) < 120 else 18
            data = {"age": age, "score": round(self.rng.uniform(0, 100), 2)}
            rec.update(data)
            return sse("patch", dumps({"path": f"/{key}", "data": data}))
        if roll < 0.6:  # `put` of one field: a new name
            key = self._pick()
            self.doc[key]["name"] = f"Renamed {n}"
            return sse("put", dumps({"path": f"/{key}/name", "data": f"Renamed {n}"}))
        if roll < 0.8:  # `put` of a new record
            key = self._new_id()
            while key in self.doc:
                key = self._new_id()
            rec = {"name": f"New {n}", "email": f"new.{n}@example.com", "age": 20 + n % 60,
                   "tags": ["new"], "address": {"city": "Łódź", "zip": "90-001"}, "active": True}
            self.doc[key] = rec
            self.ids.append(key)
            self.index[key] = len(self.ids) - 1
            return sse("put", dumps({"path": f"/{key}", "data": rec}))
        key = self._pick()  # `put null`: a delete
        del self.doc[key]
        self._forget(key)
        return sse("put", dumps({"path": f"/{key}", "data": None}))


class Upstream:
    def __init__(self, collection):
        self.collection = collection
        self.streams = set()  # writers of open event streams
        self.streams_seen = 0
        self.applied = 0
        self.planned = 0
        self.done = False
        self.started = False
        self.emitted = []  # time.monotonic() of each change's write
        self.max_late = 0.0  # how far behind its schedule the pacing fell (s)

    async def handle(self, reader, writer):
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
            writer.close()
            return
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
        url = urllib.parse.urlsplit(target)
        query = dict(urllib.parse.parse_qsl(url.query))
        try:
            if url.path == "/users.json" and method == "GET":
                if "text/event-stream" in headers.get("accept", ""):
                    await self.stream(reader, writer)
                    return
                self.answer(writer, 200, self.collection.body())
            elif url.path == "/_bench/start" and method == "POST" and not self.started:
                self.started = True
                self.planned = int(query.get("changes", "3000"))
                asyncio.get_running_loop().create_task(self.run(self.planned, float(query.get("rate", "100"))))
                self.answer(writer, 200, b"{}")
            elif url.path == "/_bench/status":
                status = {"streams_seen": self.streams_seen, "streams_open": len(self.streams),
                          "applied": self.applied, "planned": self.planned, "done": self.done,
                          "max_late": self.max_late, "emitted": self.emitted if self.done else []}
                self.answer(writer, 200, json.dumps(status).encode())
            else:
                self.answer(writer, 404, b"{}")
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    def answer(self, writer, status, body):
        writer.write(f"HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                     f"Connection: close\r\n\r\n".encode() + body)

    async def stream(self, reader, writer):
        """An event stream: the whole value, then whatever `run` writes, until the client leaves."""
        self.streams_seen += 1
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Connection: close\r\n\r\n")
        writer.write(b'event: put\ndata: {"path":"/","data":' + self.collection.body() + b"}\n\n")
        self.streams.add(writer)
        try:
            while True:
                # The client sends nothing after its request: a read returning b"" means it left.
                try:
                    if await asyncio.wait_for(reader.read(1024), KEEP_ALIVE_SECONDS) == b"":
                        break
                except asyncio.TimeoutError:
                    writer.write(sse("keep-alive", "null"))
        except ConnectionError:
            pass
        finally:
            self.streams.discard(writer)
            writer.close()

    async def run(self, count, rate):
        """Applies `count` changes, one every 1/rate s on a fixed schedule (a late change does not
        push the later ones back), and writes each to every open stream."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i in range(count):
            due = start + i / rate
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                self.max_late = max(self.max_late, -delay)
            event = self.collection.change()
            for writer in list(self.streams):
                writer.write(event)
            self.emitted.append(time.monotonic())
            self.applied += 1
        self.done = True


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("doc")
    parser.add_argument("port", type=int)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args()
    with open(args.doc, "rb") as f:
        upstream = Upstream(Collection(f.read(), args.seed))
    server = await asyncio.start_server(upstream.handle, "127.0.0.1", args.port, limit=1 << 20)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
