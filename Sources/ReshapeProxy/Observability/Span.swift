import ReshapeJSON

/// One finished span, as OpenTelemetry models it: what the request (a server span) or one of
/// its upstream fetches (a client span) did, and when.
package struct Span: Sendable {
    package enum Kind: Int, Sendable {
        /// SPAN_KIND_SERVER: the request Reshape answered.
        case server = 2
        /// SPAN_KIND_CLIENT: a fetch Reshape made.
        case client = 3
    }

    package enum Value: Sendable, Equatable {
        case string(String)
        case int(Int)
        case bool(Bool)
    }

    package var traceID: String
    package var spanID: String
    /// The caller's span for a server span that continued a client's trace; ours for a fetch.
    package var parentSpanID: String?
    package var name: String
    package var kind: Kind
    package var startUnixNanoseconds: UInt64
    package var endUnixNanoseconds: UInt64
    package var attributes: [(key: String, value: Value)]
    /// STATUS_CODE_ERROR: the request answered 5xx, or the fetch failed.
    package var failed: Bool

    package init(
        traceID: String, spanID: String, parentSpanID: String?, name: String, kind: Kind,
        startUnixNanoseconds: UInt64, endUnixNanoseconds: UInt64, attributes: [(key: String, value: Value)],
        failed: Bool
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.name = name
        self.kind = kind
        self.startUnixNanoseconds = startUnixNanoseconds
        self.endUnixNanoseconds = endUnixNanoseconds
        self.attributes = attributes
        self.failed = failed
    }
}

/// OTLP/HTTP's JSON encoding of an `ExportTraceServiceRequest` (the protobuf JSON mapping with
/// OTLP's exceptions: trace and span ids as hex, 64-bit integers as strings, enums as numbers).
package enum OTLPJSON {
    package static func exportRequest(serviceName: String, spans: [Span]) -> [UInt8] {
        let resource = JSON.object(
            JSONObject([
                "attributes": .array([attribute("service.name", .string(serviceName))])
            ]))
        let scope = JSON.object(JSONObject(["name": .string("reshape")]))
        let scopeSpans = JSON.object(JSONObject(["scope": scope, "spans": .array(spans.map(span))]))
        let resourceSpans = JSON.object(JSONObject(["resource": resource, "scopeSpans": .array([scopeSpans])]))
        return JSON.object(JSONObject(["resourceSpans": .array([resourceSpans])])).serialized()
    }

    static func span(_ span: Span) -> JSON {
        var object = JSONObject()
        object["traceId"] = .string(span.traceID)
        object["spanId"] = .string(span.spanID)
        if let parent = span.parentSpanID { object["parentSpanId"] = .string(parent) }
        object["name"] = .string(span.name)
        object["kind"] = .number(JSONNumber(span.kind.rawValue))
        object["startTimeUnixNano"] = .string(String(span.startUnixNanoseconds))
        object["endTimeUnixNano"] = .string(String(span.endUnixNanoseconds))
        object["attributes"] = .array(span.attributes.map { attribute($0.key, $0.value) })
        // STATUS_CODE_ERROR is 2; an unset status (0) is what a success reports.
        object["status"] = .object(JSONObject(["code": .number(JSONNumber(span.failed ? 2 : 0))]))
        return .object(object)
    }

    static func attribute(_ key: String, _ value: Span.Value) -> JSON {
        let any: JSON
        switch value {
        case .string(let text): any = .object(JSONObject(["stringValue": .string(text)]))
        case .int(let number): any = .object(JSONObject(["intValue": .string(String(number))]))
        case .bool(let flag): any = .object(JSONObject(["boolValue": .bool(flag)]))
        }
        return .object(JSONObject(["key": .string(key), "value": any]))
    }
}
