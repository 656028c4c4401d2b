#!/usr/bin/env python3
"""Compare a peer's JSON answer with Reshape's, as parsed JSON.

    check.py REFERENCE CANDIDATE [--any-member-order] [--label NAME]

Arrays must be equal element by element, in order. Object members must be equal in the same
order, unless --any-member-order is given (for lua-cjson, which decodes objects into Lua
tables and so cannot keep member order). Numbers compare by value (1 == 1.0), strings by code
point. Exits 0 when equal; otherwise prints the first difference as a JSON Pointer with both
values, and exits 1.
"""
import json
import sys


class Obj(list):
    """An object as its list of (name, value) pairs, so member order is kept and compared."""


def load(path, ordered):
    with open(path, "rb") as f:
        data = f.read()
    try:
        return json.loads(data, object_pairs_hook=Obj if ordered else dict)
    except ValueError as e:
        raise SystemExit(f"{path}: not JSON ({e}); first bytes: {data[:200]!r}")


def esc(name):
    return name.replace("~", "~0").replace("/", "~1")


def short(v):
    if isinstance(v, Obj):
        v = dict(v)
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 300 else s[:300] + "..."


def diff(a, b, ptr):
    """The first difference between a and b, as (pointer, message), or None."""
    if isinstance(a, Obj) and isinstance(b, Obj):
        names_a, names_b = [k for k, _ in a], [k for k, _ in b]
        if names_a != names_b:
            return ptr or "/", f"member names/order differ: {names_a} vs {names_b}"
        for (k, va), (_, vb) in zip(a, b):
            d = diff(va, vb, f"{ptr}/{esc(k)}")
            if d:
                return d
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return ptr or "/", f"member names differ: {sorted(a)} vs {sorted(b)}"
        for k in a:
            d = diff(a[k], b[k], f"{ptr}/{esc(k)}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list) and not isinstance(a, Obj) and not isinstance(b, Obj):
        for i, (va, vb) in enumerate(zip(a, b)):
            d = diff(va, vb, f"{ptr}/{i}")
            if d:
                return d
        if len(a) != len(b):
            return ptr or "/", f"array lengths differ: {len(a)} vs {len(b)}"
        return None
    # bool is an int in Python: keep true apart from 1
    if type(a) is bool or type(b) is bool:
        same = a is b
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        same = a == b
    else:
        same = type(a) is type(b) and a == b
    return None if same else (ptr or "/", f"{short(a)} vs {short(b)}")


def main():
    args = [a for a in sys.argv[1:]]
    ordered = "--any-member-order" not in args
    label = "candidate"
    if "--label" in args:
        i = args.index("--label")
        label = args[i + 1]
        del args[i:i + 2]
    args = [a for a in args if a != "--any-member-order"]
    if len(args) != 2:
        raise SystemExit(__doc__)
    ref, cand = load(args[0], ordered), load(args[1], ordered)
    d = diff(ref, cand, "")
    if d:
        print(f"MISMATCH {label}: at {d[0]}: reference vs {label}: {d[1]}", file=sys.stderr)
        print(f"  reference: {args[0]}\n  {label}: {args[1]}", file=sys.stderr)
        sys.exit(1)
    n = len(ref.get("objects", [])) if isinstance(ref, dict) else \
        len(dict(ref).get("objects", [])) if isinstance(ref, Obj) else 0
    order = "member order compared" if ordered else "member order ignored"
    print(f"ok {label}: equal to the reference ({n} objects, {order})")


if __name__ == "__main__":
    main()
