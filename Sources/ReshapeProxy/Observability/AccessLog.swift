import ReshapeJSON
import ReshapeRules

/// One JSON line per answered request. Query strings are left out (clients put tokens
/// there) and every upstream secret is redacted.
public struct AccessLogEntry: Sendable {
    public var timeMilliseconds: Int
    public var method: String
    public var path: String
    public var route: String?
    public var status: Int
    public var upstreamStatus: Int?
    public var durationMilliseconds: Double
    public var upstreamMilliseconds: Double?
    public var bytes: Int
    public var dropped: [DroppedElement]
    public var errorCode: String?
    /// Upstream fetches the request made (its route's fetches and follow-ups).
    public var fetches: Int
    /// The trace the request belongs to (32 lowercase hex digits), to find its spans by.
    public var traceID: String?
    /// A live subscription's events sent (`live_events`), on the line written as it ends.
    public var liveEvents: Int?

    public init(
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

    public func line(redactor: Redactor) -> [UInt8] {
        var object = JSONObject()
        object["time_ms"] = .number(JSONNumber(timeMilliseconds))
        object["method"] = .string(method)
        object["path"] = .string(redactor.redact(path))
        if let route { object["route"] = .string(route) }
        object["status"] = .number(JSONNumber(status))
        if let upstreamStatus { object["upstream_status"] = .number(JSONNumber(upstreamStatus)) }
        object["duration_ms"] = .number(JSONNumber(uncheckedText: String(format3(durationMilliseconds))))
        if let upstreamMilliseconds {
            object["upstream_ms"] = .number(JSONNumber(uncheckedText: format3(upstreamMilliseconds)))
        }
        object["bytes"] = .number(JSONNumber(bytes))
        object["fetches"] = .number(JSONNumber(fetches))
        object["dropped"] = .number(JSONNumber(dropped.count))
        if !dropped.isEmpty {
            object["dropped_elements"] = .array(
                dropped.prefix(20).map {
                    .object(
                        JSONObject([
                            "pointer": .string($0.pointer), "type": .string($0.type),
                            "reason": .string(redactor.redact($0.reason)),
                        ]))
                })
        }
        if let errorCode { object["error"] = .string(errorCode) }
        if let traceID { object["trace_id"] = .string(traceID) }
        if let liveEvents { object["live_events"] = .number(JSONNumber(liveEvents)) }
        return JSON.object(object).serialized() + [0x0A]
    }

    private func format3(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = thousandths % 1000
        return "\(thousandths / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }
}
