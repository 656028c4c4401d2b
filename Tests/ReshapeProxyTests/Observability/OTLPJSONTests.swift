import ReshapeJSON
import XCTest

@testable import ReshapeProxy

/// The OTLP/HTTP JSON body's shape; the integration test decodes it with opentelemetry-proto.
final class OTLPJSONTests: XCTestCase {
    func testAnExportRequestCarriesResourceScopeAndSpans() throws {
        let span = Span(
            traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7", parentSpanID: nil,
            name: "GET /users/{id}", kind: .server, startUnixNanoseconds: 1_700_000_000_000_000_000,
            endUnixNanoseconds: 1_700_000_000_002_000_000,
            attributes: [
                ("http.response.status_code", .int(200)), ("http.route", .string("/users/{id}")),
                ("reshape.cached", .bool(false)),
            ], failed: false)
        let text = String(decoding: OTLPJSON.exportRequest(serviceName: "reshape", spans: [span]), as: UTF8.self)
        XCTAssertEqual(
            text,
            #"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"reshape"}}]},"#
                + #""scopeSpans":[{"scope":{"name":"reshape"},"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","#
                + #""spanId":"00f067aa0ba902b7","name":"GET /users/{id}","kind":2,"startTimeUnixNano":"1700000000000000000","#
                + #""endTimeUnixNano":"1700000000002000000","attributes":[{"key":"http.response.status_code","#
                + #""value":{"intValue":"200"}},{"key":"http.route","value":{"stringValue":"/users/{id}"}},"#
                + #"{"key":"reshape.cached","value":{"boolValue":false}}],"status":{"code":0}}]}]}]}"#)
    }
}
