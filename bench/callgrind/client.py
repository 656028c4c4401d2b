#!/usr/bin/env python3
"""Sends N GETs over one keep-alive connection and checks each answer is a 200.

    python3 bench/callgrind/client.py PORT PATH N
"""
import http.client
import sys


def main():
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    for i in range(count):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200 or not body:
            sys.exit(f"client: request {i} answered {response.status}")
    connection.close()


if __name__ == "__main__":
    main()
