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
        let out = JSONTextWriter(capacity: 256 + dropped.count * 160)
        func name(_ key: StaticString, first: Bool = false) {
            out.appendRaw(first ? "\"" : ",\"")
            out.appendRaw(key)
            out.appendRaw("\":")
        }
        func number(_ text: String) { out.appendRaw(Array(text.utf8)) }
        out.appendRaw("{")
        name("time_ms", first: true)
        number(String(timeMilliseconds))
        name("method")
        out.appendString(method)
        name("path")
        out.appendString(redactor.redact(path))
        if let route {
            name("route")
            out.appendString(route)
        }
        name("status")
        number(String(status))
        if let upstreamStatus {
            name("upstream_status")
            number(String(upstreamStatus))
        }
        name("duration_ms")
        number(format3(durationMilliseconds))
        if let upstreamMilliseconds {
            name("upstream_ms")
            number(format3(upstreamMilliseconds))
        }
        name("bytes")
        number(String(bytes))
        name("fetches")
        number(String(fetches))
        name("dropped")
        number(String(dropped.count))
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
            number(String(liveEvents))
        }
        if let authReason {
            name("auth_reason")
            out.appendString(authReason)
        }
        out.appendRaw("}\n")
        var line: [UInt8] = []
        out.copy(into: &line)
        return line
    }

    private func format3(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        return "\(thousandths / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }
}
