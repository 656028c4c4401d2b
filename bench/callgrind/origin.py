#!/usr/bin/env python3
"""A keep-alive HTTP/1.1 origin for bench/callgrind/run.sh: serves DIR/NAME.json as JSON.

    python3 bench/callgrind/origin.py DIR PORT
"""
import http.server
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a real origin: the proxy reuses its connection

    def do_GET(self):
        name = os.path.basename(self.path.split("?", 1)[0])
        path = os.path.join(self.server.directory, name)
        if not name.endswith(".json") or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    directory, port = sys.argv[1], int(sys.argv[2])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.directory = directory
    server.serve_forever()


if __name__ == "__main__":
    main()
