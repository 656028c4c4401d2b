#!/usr/bin/env python3
"""Generate the peer benchmark's upstream documents, deterministically.

    python3 bench/peers/gen.py OUTDIR          # writes OUTDIR/3kb.json, 150kb.json, 8mb.json
                                               # and OUTDIR/manifest.tsv (sizes and counts)

Each document is shaped like a Firebase Realtime Database list: one object keyed by
20-character push ids, written in shuffled (not sorted) order, whose values are user records.
Records have their members in a different order each time, an array (`tags`), a nested
object (`address`), non-ASCII text, and sometimes a `bio` whose JSON text uses escapes
(quotes, backslashes, \\n, \\u00e9, a surrogate pair). About 2% of the records (at least one
per document) are invalid in one of the ways the User schema catches, so every peer has
something to drop.

The output is compact JSON, as Firebase's REST API sends it. The same seed always gives
the same bytes (the script prints a SHA-256 of each file so runs can be compared).
"""
import hashlib
import json
import os
import random
import sys

SEED = 20261124
# name -> target size in bytes (the generator stops adding records once it is reached)
SIZES = {"3kb": 3 * 1024, "150kb": 150 * 1024, "8mb": 8 * 1024 * 1024}
INVALID_SHARE = 0.02
# The schema-caught defects, in the order they are handed out.
INVALID_KINDS = ["missing-name", "empty-name", "email-without-at", "negative-age",
                 "age-as-string", "tag-is-number"]

PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
FIRST = ["Zoë", "Łukasz", "José", "Søren", "Ágnes", "Chloé", "Mikołaj", "Björk", "Ana",
         "Li", "Yūki", "Ömer", "Ada", "Bea", "Noah", "Ines", "健太", "Марина", "Đorđe", "Åsa"]
LAST = ["Müller", "Nowak", "García", "Ørsted", "Kowalski", "Dubois", "Smith", "田中",
        "Иванова", "Þórsson", "Núñez", "Lee", "Rossi", "Öztürk", "Brown"]
CITIES = ["Łódź", "東京", "Zürich", "São Paulo", "Kraków", "Reykjavík", "Москва", "Paris",
          "Malmö", "Ñuñoa", "München", "Dublin", "Québec", "İstanbul", "Seoul"]
STREETS = ["Piotrkowska", "Bahnhofstraße", "Rua Augusta", "Main St", "Rue de Rivoli",
           "Calle Mayor", "Ulica Długa", "Ginza-dōri"]
TAGS = ["admin", "beta", "vip", "new", "churn-risk", "früh", "日本", "ops", "qa", "sales"]
BIOS = [
    'Says "hello" to everyone',
    "Path C:\\Users\\zoe\\notes",
    "Line one\nLine two\ttabbed",
    "Likes café au lait and crème brûlée",
    'Quote: "Łódź is \\ not / far" — ok',
    "Emoji 😀 and ünïcödé",
]


def push_id(rng, ms):
    """A Firebase push id: 8 chars of timestamp, then 12 random chars."""
    ts = []
    for _ in range(8):
        ts.append(PUSH_CHARS[ms % 64])
        ms //= 64
    return "".join(reversed(ts)) + "".join(rng.choice(PUSH_CHARS) for _ in range(12))


def dumps_raw(v):
    """Compact JSON with non-ASCII written as UTF-8 (ensure_ascii=False)."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def dumps_escaped(v):
    """Compact JSON with every non-ASCII code point written as \\uXXXX (bio only)."""
    return json.dumps(v, ensure_ascii=True, separators=(",", ":"))


def make_record(rng, i, ms):
    first, last = rng.choice(FIRST), rng.choice(LAST)
    address = [("street", f"{rng.choice(STREETS)} {rng.randint(1, 200)}"),
               ("city", rng.choice(CITIES)),
               ("zip", f"{rng.randint(10, 99)}-{rng.randint(100, 999)}")]
    rng.shuffle(address)
    members = [
        ("name", f"{first} {last}"),
        ("email", f"{first.lower()}.{i}@example.com"),
        ("age", rng.randint(18, 90)),
        ("tags", rng.sample(TAGS, rng.randint(1, 4))),  # never empty (see README: lua-cjson)
        ("address", dict(address)),
        ("score", round(rng.uniform(0, 100), 2)),
        ("active", rng.random() < 0.7),
        ("createdAt", ms),
    ]
    if rng.random() < 0.3:
        members.append(("bio", rng.choice(BIOS)))
    if rng.random() < 0.1:
        members.append(("phone", None))
    rng.shuffle(members)  # key order is not sorted and differs between records
    return members


def make_invalid(members, kind):
    m = dict(members)
    if kind == "missing-name":
        del m["name"]
    elif kind == "empty-name":
        m["name"] = ""
    elif kind == "email-without-at":
        m["email"] = m["email"].replace("@", " at ")
    elif kind == "negative-age":
        m["age"] = -m["age"]
    elif kind == "age-as-string":
        m["age"] = str(m["age"])
    elif kind == "tag-is-number":
        m["tags"] = m["tags"] + [42]
    # keep the shuffled order of what is left
    return [(k, m[k]) for k, _ in members if k in m]


def record_text(members):
    parts = []
    for k, v in members:
        text = dumps_escaped(v) if k == "bio" else dumps_raw(v)
        parts.append(dumps_raw(k) + ":" + text)
    return "{" + ",".join(parts) + "}"


def generate(name, target, seed):
    rng = random.Random(f"{seed}/{name}")
    ms = 1_700_000_000_000
    records = []  # (push id, members)
    size = 2
    while size < target:
        ms += rng.randint(1, 5000)
        pid = push_id(rng, ms)
        members = make_record(rng, len(records), ms)
        records.append((pid, members))
        size += len(record_text(members).encode()) + 24
    n = len(records)
    bad = sorted(rng.sample(range(n), max(1, round(n * INVALID_SHARE))))
    for j, idx in enumerate(bad):
        pid, members = records[idx]
        records[idx] = (pid, make_invalid(members, INVALID_KINDS[j % len(INVALID_KINDS)]))
    rng.shuffle(records)  # members of the keyed object in random, not key, order
    body = "{" + ",".join(dumps_raw(pid) + ":" + record_text(m) for pid, m in records) + "}"
    return body.encode(), n, len(bad)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    manifest = ["size\tbytes\trecords\tinvalid\tsha256"]
    for name, target in SIZES.items():
        data, n, bad = generate(name, target, SEED)
        json.loads(data)  # must be valid JSON
        with open(os.path.join(out, name + ".json"), "wb") as f:
            f.write(data)
        digest = hashlib.sha256(data).hexdigest()
        manifest.append(f"{name}\t{len(data)}\t{n}\t{bad}\t{digest}")
        print(f"{name}.json {len(data)} bytes, {n} records, {bad} invalid, sha256 {digest[:16]}")
    with open(os.path.join(out, "manifest.tsv"), "w") as f:
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
