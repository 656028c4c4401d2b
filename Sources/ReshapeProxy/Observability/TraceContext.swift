/// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a request arrives
/// with or starts, and the ones its upstream fetches carry. Ids come from the caller's random
/// source, so this stays pure and testable.
package struct TraceContext: Sendable, Equatable {
    /// 16 bytes, as 32 lowercase hex digits; never all zeros.
    package var traceID: String
    /// The span this context's holder is in: the caller's span when parsed, ours when started.
    package var spanID: String
    /// The `sampled` flag (bit 0 of trace-flags).
    package var sampled: Bool
    /// The caller's `tracestate`, passed on unchanged (nil when absent or unusable).
    package var traceState: String?

    package init(traceID: String, spanID: String, sampled: Bool, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.sampled = sampled
        self.traceState = traceState
    }

    /// A client's `traceparent`, or nil when it is absent or invalid (an invalid one is never
    /// forwarded: the request starts a trace of its own). Version 00 must be exactly 55
    /// characters; a later version is read by its first four fields, as the spec asks.
    package static func parse(traceparent: String?, tracestate: String?) -> TraceContext? {
        guard let traceparent else { return nil }
        let bytes = Array(traceparent.utf8)
        guard bytes.count >= 55, bytes[2] == 0x2D, bytes[35] == 0x2D, bytes[52] == 0x2D else { return nil }
        let version = bytes[0..<2]
        let traceID = bytes[3..<35]
        let parentID = bytes[36..<52]
        let flags = bytes[53..<55]
        guard isLowerHex(version), isLowerHex(traceID), isLowerHex(parentID), isLowerHex(flags) else { return nil }
        guard version.elementsEqual("00".utf8) ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == 0x2D),
            !version.elementsEqual("ff".utf8),
            traceID.contains(where: { $0 != 0x30 }), parentID.contains(where: { $0 != 0x30 })
        else { return nil }
        let flagBits = hexValue(flags.first!) << 4 | hexValue(flags.last!)
        return TraceContext(
            traceID: String(decoding: traceID, as: UTF8.self), spanID: String(decoding: parentID, as: UTF8.self),
            sampled: flagBits & 1 == 1, traceState: validTraceState(tracestate))
    }

    /// A new trace, for a request that came without a usable `traceparent`.
    package static func start(sampled: Bool, using random: inout some RandomNumberGenerator) -> TraceContext {
        TraceContext(
            traceID: randomHex(bytes: 16, using: &random), spanID: randomHex(bytes: 8, using: &random),
            sampled: sampled)
    }

    /// A child span in the same trace: a fresh span id, the same trace, flags and state.
    package func child(using random: inout some RandomNumberGenerator) -> TraceContext {
        TraceContext(
            traceID: traceID, spanID: Self.randomHex(bytes: 8, using: &random), sampled: sampled,
            traceState: traceState)
    }

    /// This context as the `traceparent` value a fetch sends (version 00).
    package var traceparent: String { "00-" + traceID + "-" + spanID + (sampled ? "-01" : "-00") }

    /// A `tracestate` worth passing on: printable ASCII, within the spec's 512-character bound.
    static func validTraceState(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= 512,
            value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else { return nil }
        return value
    }

    static func randomHex(bytes: Int, using random: inout some RandomNumberGenerator) -> String {
        let digits: StaticString = "0123456789abcdef"
        while true {
            var allZero = true
            // Written straight into the string: ids are made for every request and fetch.
            let text = String(unsafeUninitializedCapacity: bytes * 2) { text in
                var word: UInt64 = 0
                for index in 0..<bytes {
                    // Eight bytes per draw.
                    if index % 8 == 0 { word = random.next() }
                    if word & 0xFF != 0 { allZero = false }
                    text[2 * index] = digits.utf8Start[Int(word >> 4 & 0x0F)]
                    text[2 * index + 1] = digits.utf8Start[Int(word & 0x0F)]
                    word >>= 8
                }
                return bytes * 2
            }
            if !allZero { return text }  // all zeros is invalid
        }
    }

    private static func isLowerHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func hexValue(_ byte: UInt8) -> Int {
        byte <= 0x39 ? Int(byte - 0x30) : Int(byte - 0x61 + 10)
    }
}
