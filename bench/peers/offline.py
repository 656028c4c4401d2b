#!/usr/bin/env python3
"""Offline figures: the users transform over one file, as whole processes, timed.

    offline.py --file 8mb.json --size 8mb --reshape BIN --rules DIR --python VENV_PYTHON \
               --simdjson BIN --work DIR --runs N --json OUT.json

Each tool is first run once with its output kept and checked equal to `reshape apply`'s
(check.py's comparison, member order included); that run also warms the page cache. Then it
is run N times with stdout and stderr to /dev/null, each time pinned to core 0 with
`taskset -c 0`, and the wall time of the whole process (start, reading the file, the work,
writing the answer, exit) is kept. The JSON written has best and median seconds per tool.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    for a in ("--file", "--size", "--reshape", "--rules", "--python", "--simdjson", "--work", "--json"):
        ap.add_argument(a, required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--jq", default="jq")
    o = ap.parse_args()

    tools = [
        # name, what it does, command, checked against reshape's answer
        ("reshape apply", "parse → keyed-to-array → validate → wrap → write",
         [o.reshape, "apply", "--rules", o.rules, "--route", "users", "--param", f"size={o.size}", o.file], True),
        ("jq 1.6", "the same transform (transform.jq)",
         [o.jq, "-c", "-f", os.path.join(HERE, "transform.jq"), o.file], True),
        ("Python + orjson", "the same transform (py_transform.py)",
         [o.python, os.path.join(HERE, "py_transform.py"), o.file], True),
        ("simdjson (a) parse only", "read + DOM parse, nothing written",
         [o.simdjson, "parse", o.file], False),
        ("simdjson (b) DOM transform", "parse → sort, validate → to_string per record",
         [o.simdjson, "transform", o.file], True),
    ]
    ref_path = os.path.join(o.work, "offline-reshape.json")
    size = os.path.getsize(o.file)
    results = []
    for name, what, cmd, checked in tools:
        slug = name.split()[0].lower() if checked else "simdjson-parse"
        out_path = ref_path if name == "reshape apply" else os.path.join(o.work, f"offline-{slug}.json")
        with open(out_path, "wb") as out:
            r = subprocess.run(["taskset", "-c", "0"] + cmd, stdout=out, stderr=subprocess.PIPE)
        if r.returncode != 0:
            sys.exit(f"offline: {name} failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
        if checked and name != "reshape apply":
            d = check.diff(check.load(ref_path, True), check.load(out_path, True), "")
            if d:
                sys.exit(f"offline: {name}'s answer differs from reshape apply's at {d[0]}: {d[1]}")
        times = []
        for _ in range(o.runs):
            t0 = time.perf_counter()
            r = subprocess.run(["taskset", "-c", "0"] + cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - t0)
            if r.returncode != 0:
                sys.exit(f"offline: {name} failed on a timed run ({r.returncode})")
        best, median = min(times), statistics.median(times)
        results.append({"name": name, "what": what, "command": "taskset -c 0 " + shlex.join(cmd),
                        "checked": checked, "runs": o.runs, "best_s": best, "median_s": median,
                        "bytes": size})
        print(f"offline {name:<28} best {best * 1000:8.1f} ms  median {median * 1000:8.1f} ms  "
              f"{size / best / 1e6:7.1f} MB/s best", file=sys.stderr)
    with open(o.json, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
