#!/usr/bin/env python3
"""Sends N GETs over one keep-alive connection and checks each answer is a 200.

    python3 bench/callgrind/client.py PORT PATH N [ACCEPT_ENCODING]

With ACCEPT_ENCODING (gzip, br, zstd) each GET sends it, and each answer must come back in
that coding; without it, each sends `Accept-Encoding: identity`. With EXPECT=429 (in the
environment), every answer after the first must be a 429 instead (a route whose limit admits
one request). The last answer's body size is printed as `bytes: N` for the caller to report.
"""
import http.client
import os
import sys


def main():
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    coding = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    headers = {"Accept-Encoding": coding or "identity"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    expect = int(os.environ.get("EXPECT", "200"))
    size = 0
    for i in range(count):
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        wanted = 200 if i == 0 else expect
        if response.status != wanted or not body:
            sys.exit(f"client: request {i} answered {response.status}, not {wanted}")
        if coding and wanted == 200 and response.getheader("Content-Encoding") != coding:
            sys.exit(f"client: request {i} came back as {response.getheader('Content-Encoding')}, not {coding}")
        size = len(body)
    connection.close()
    print(f"bytes: {size}")


if __name__ == "__main__":
    main()
