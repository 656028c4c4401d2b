#!/usr/bin/env python3
"""Sends N GETs over one keep-alive connection and checks each answer is a 200.

    python3 bench/callgrind/client.py PORT PATH N [ACCEPT_ENCODING]

With ACCEPT_ENCODING (gzip, br, zstd) each GET sends it, and each answer must come back in
that coding; without it, each sends `Accept-Encoding: identity`. With EXPECT=429 (in the
environment), every answer after the first must be a 429 instead (a route whose limit admits
one request). With HEADERS=browser, each GET also sends the dozen headers a browser's fetch()
does (User-Agent, Accept, Accept-Language, Referer, Cookie, sec-ch-ua, ...). The last answer's
body size is printed as `bytes: N` for the caller to report.
"""
import http.client
import os
import sys


# What Chromium sends with a page's fetch() of a JSON API on another origin (values typical).
BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36",
    "Accept": "application/json, text/plain, */*",
    "Accept-Language": "en-GB,en;q=0.9,de;q=0.8",
    "Referer": "https://app.example.com/users",
    "Origin": "https://app.example.com",
    "Cookie": "session=2b7c5e1f9a8d4c3b; theme=dark",
    "sec-ch-ua": '"Chromium";v="131", "Not_A Brand";v="24"',
    "sec-ch-ua-mobile": "?0",
    "sec-ch-ua-platform": '"Linux"',
    "Sec-Fetch-Dest": "empty",
    "Sec-Fetch-Mode": "cors",
    "Sec-Fetch-Site": "same-site",
}


def main():
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    coding = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
    headers = {"Accept-Encoding": coding or "identity"}
    if os.environ.get("HEADERS") == "browser":
        headers.update(BROWSER)
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
