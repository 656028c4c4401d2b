"""A real OTLP/HTTP JSON receiver for the tracing tests.

POST /v1/traces bodies are decoded with the opentelemetry-proto package: its
ExportTraceServiceRequest, through protobuf's json_format, checks every field's
name and type. OTLP's JSON carries trace and span ids as hex where protobuf's
mapping expects base64, so ids are converted first. Each span is written as one
JSON line to the file named by the first argument; a body that does not decode
is answered 400 and written as {"error": ...}. The port is printed once listening.
"""

import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

OUT = sys.argv[1]
ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def hex_ids_to_base64(body):
    for resource_spans in body.get("resourceSpans", []):
        for scope_spans in resource_spans.get("scopeSpans", []):
            for span in scope_spans.get("spans", []):
                for field in ID_FIELDS:
                    if field in span:
                        span[field] = base64.b64encode(bytes.fromhex(span[field])).decode()


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def write(lines):
    with open(OUT, "a", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line) + "\n")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces":
            return self.answer(404)
        if self.headers.get("Content-Type") != "application/json":
            write([{"error": "content type " + str(self.headers.get("Content-Type"))}])
            return self.answer(415)
        try:
            body = json.loads(data)
            hex_ids_to_base64(body)
            request = ParseDict(body, ExportTraceServiceRequest())
        except Exception as error:  # any decoding failure is the test's finding
            write([{"error": repr(error)}])
            return self.answer(400)
        lines = []
        for resource_spans in request.resource_spans:
            service = {a.key: value(a.value) for a in resource_spans.resource.attributes}.get("service.name")
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(
                        {
                            "service": service,
                            "traceId": span.trace_id.hex(),
                            "spanId": span.span_id.hex(),
                            "parentSpanId": span.parent_span_id.hex(),
                            "name": span.name,
                            "kind": span.kind,
                            "start": span.start_time_unix_nano,
                            "end": span.end_time_unix_nano,
                            "status": span.status.code,
                            "attributes": {a.key: value(a.value) for a in span.attributes},
                        }
                    )
        write(lines)
        self.answer(200)

    def answer(self, status):
        body = b"{}"
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening on %d" % server.server_address[1], flush=True)
server.serve_forever()
