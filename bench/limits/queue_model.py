#!/usr/bin/env python3
"""The admitted p99 a single FIFO worker can give at a utilization, as bench/limits/load.sh
measures it: requests arrive at random (Poisson), each spends F ms away from the CPU (its
fetch) and then D ms of the worker's CPU (its pipeline), first come first served.

    python3 bench/limits/queue_model.py [D_MS] [F_MS]     (defaults 0.85 and 0.65: 150 KB)

Prints p50 and p99 of a request's time for utilizations 0.25 to 0.65: how far any one-core
schedule that runs whole pipelines in arrival order is from the unloaded F + D.
"""
import random
import sys


def percentiles(rho, d, f, n=400_000, seed=1):
    rng = random.Random(seed)
    rate = rho / d
    t = 0.0
    ready = []
    for _ in range(n):
        t += rng.expovariate(rate)
        ready.append(t + f)
    ready.sort()
    free = 0.0
    times = []
    for at in ready:
        start = max(at, free)
        free = start + d
        times.append(free - at + f)
    times.sort()
    return times[n // 2], times[int(n * 0.99)]


def main():
    d = float(sys.argv[1]) if len(sys.argv) > 1 else 0.85
    f = float(sys.argv[2]) if len(sys.argv) > 2 else 0.65
    print(f"pipeline {d} ms of CPU, fetch {f} ms: unloaded {d + f:.2f} ms")
    print("| worker busy | p50 ms | p99 ms | p99 / unloaded |")
    print("|---:|---:|---:|---:|")
    for rho in (0.25, 0.35, 0.45, 0.55, 0.65):
        p50, p99 = percentiles(rho, d, f)
        print(f"| {rho:.0%} | {p50:.2f} | {p99:.2f} | {p99 / (d + f):.2f} |")


if __name__ == "__main__":
    main()
