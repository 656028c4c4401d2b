import ReshapeJSON
import ReshapeRules

/// One JSON line per answered request. Query strings are left out (clients put tokens
/// there) and every upstream secret is redacted.
package struct AccessLogEntry: Sendable {
    package var timeMilliseconds: Int
    package var method: String
    package var path: String
    package var route: String?
    package var status: Int
    package var upstreamStatus: Int?
    package var durationMilliseconds: Double
    package var upstreamMilliseconds: Double?
    package var bytes: Int
    package var dropped: [DroppedElement]
    package var errorCode: String?
    /// Upstream fetches the request made (its route's fetches and follow-ups).
    package var fetches: Int
    /// The trace the request belongs to (32 lowercase hex digits), to find its spans by.
    package var traceID: String?
    /// A live subscription's events sent (`live_events`), on the line written as it ends.
    package var liveEvents: Int?
    /// Why an `auth` route refused the request's bearer token (`auth_reason`; never the token).
    package var authReason: String?

    package init(
        timeMilliseconds: Int, method: String, path: String, route: String?, status: Int, upstreamStatus: Int?,
        durationMilliseconds: Double, upstreamMilliseconds: Double?, bytes: Int, dropped: [DroppedElement],
        errorCode: String?,
        fetches: Int = 0, traceID: String? = nil
    ) {
        self.timeMilliseconds = timeMilliseconds
        self.method = method
        self.path = path
        self.route = route
        self.status = status
        self.upstreamStatus = upstreamStatus
        self.durationMilliseconds = durationMilliseconds
        self.upstreamMilliseconds = upstreamMilliseconds
        self.bytes = bytes
        self.dropped = dropped
        self.errorCode = errorCode
        self.fetches = fetches
        self.traceID = traceID
    }

    /// The line, written member by member (no JSON tree is built for it): the same text
    /// `JSON.object(...).serialized()` would give, with the members in this order.
    package func line(redactor: Redactor) -> [UInt8] {
        JSONTextWriter.bytes(capacity: 256 + dropped.count * 160) { write($0, redactor: redactor) }
    }

    private func write(_ out: JSONTextWriter, redactor: Redactor) {
        func name(_ key: StaticString, first: Bool = false) {
            out.appendRaw(first ? "\"" : ",\"")
            out.appendRaw(key)
            out.appendRaw("\":")
        }
        out.appendRaw("{")
        name("time_ms", first: true)
        out.appendInteger(timeMilliseconds)
        name("method")
        out.appendString(method)
        name("path")
        out.appendString(redactor.redact(path))
        if let route {
            name("route")
            out.appendString(route)
        }
        name("status")
        out.appendInteger(status)
        if let upstreamStatus {
            name("upstream_status")
            out.appendInteger(upstreamStatus)
        }
        name("duration_ms")
        writeThousandths(durationMilliseconds, to: out)
        if let upstreamMilliseconds {
            name("upstream_ms")
            writeThousandths(upstreamMilliseconds, to: out)
        }
        name("bytes")
        out.appendInteger(bytes)
        name("fetches")
        out.appendInteger(fetches)
        name("dropped")
        out.appendInteger(dropped.count)
        if !dropped.isEmpty {
            name("dropped_elements")
            out.appendRaw("[")
            for (index, element) in dropped.prefix(20).enumerated() {
                out.appendRaw(index == 0 ? "{" : ",{")
                name("pointer", first: true)
                out.appendString(element.pointer)
                name("type")
                out.appendString(element.type)
                name("reason")
                out.appendString(redactor.redact(element.reason))
                out.appendRaw("}")
            }
            out.appendRaw("]")
        }
        if let errorCode {
            name("error")
            out.appendString(errorCode)
        }
        if let traceID {
            name("trace_id")
            out.appendString(traceID)
        }
        if let liveEvents {
            name("live_events")
            out.appendInteger(liveEvents)
        }
        if let authReason {
            name("auth_reason")
            out.appendString(authReason)
        }
        out.appendRaw("}\n")
    }

    /// Milliseconds with three decimals (`12.034`).
    private func writeThousandths(_ value: Double, to out: JSONTextWriter) {
        let thousandths = Int((value * 1000).rounded())
        if thousandths < 0 { out.appendRaw("-") }
        let fraction = thousandths.magnitude % 1000
        out.appendInteger(Int(thousandths.magnitude / 1000))
        out.appendRaw(fraction < 10 ? ".00" : fraction < 100 ? ".0" : ".")
        out.appendInteger(Int(fraction))
    }
}
