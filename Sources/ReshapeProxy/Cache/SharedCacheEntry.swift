import ReshapeJSON
import ReshapeRules

/// A cached answer as replicas share it (in Redis): one JSON line with its windows, measured
/// from a wall-clock store time every replica reads alike, then the body bytes as answered.
///
///     {"v":1,"t":1764040000123,"f":30000,"w":30000,"e":600000,"d":1,"h":[["Content-Type","application/json"],...]}\n<body>
package enum SharedCacheEntry {
    /// The shared store's key for an answer: the digest already covers route, rules and request.
    package static func key(_ key: CacheKey) -> String { "reshape:v1:" + key.digest }

    /// How long the store should keep the entry: until its last window closes.
    package static func lifetimeMilliseconds(_ stored: ResponseCache.Stored) -> Int {
        max(
            1,
            Int(
                ((max(stored.staleWhileRevalidateUntil, stored.staleIfErrorUntil) - stored.storedAt) * 1000).rounded(
                    .up)))
    }

    /// `now` (monotonic seconds) and `unixMilliseconds` are the same instant on two clocks.
    package static func encode(_ stored: ResponseCache.Stored, now: Double, unixMilliseconds: Int) -> [UInt8] {
        let storedUnix = unixMilliseconds - Int(((now - stored.storedAt) * 1000).rounded())
        func milliseconds(_ until: Double) -> JSON {
            .number(JSONNumber(Int(((until - stored.storedAt) * 1000).rounded())))
        }
        let header = JSON.object(
            JSONObject([
                "v": .number(JSONNumber(1)), "t": .number(JSONNumber(storedUnix)),
                "f": milliseconds(stored.freshUntil), "w": milliseconds(stored.staleWhileRevalidateUntil),
                "e": milliseconds(stored.staleIfErrorUntil), "d": .number(JSONNumber(stored.dropped)),
                "h": .array(stored.headers.map { .array([.string($0.name), .string($0.value)]) }),
            ]))
        return header.serialized() + [0x0A] + stored.body
    }

    /// The entry as this replica's `Stored`, or nil when it is malformed or past every window.
    package static func decode(_ bytes: [UInt8], route: Route, now: Double, unixMilliseconds: Int) -> ResponseCache
        .Stored?
    {
        guard let newline = bytes.firstIndex(of: 0x0A),
            case .object(let header)? = try? JSON.parse(Array(bytes[..<newline])),
            case .number(let version)? = header["v"], version.intValue == 1,
            let stored = number(header["t"]), let fresh = number(header["f"]), let revalidate = number(header["w"]),
            let onError = number(header["e"]), let dropped = number(header["d"]),
            case .array(let pairs)? = header["h"]
        else { return nil }
        // Anything `encode` could not have written for this route is a miss: a negative value (a
        // store time near Int.min made `now - t` overflow, a trap), a store time in the future
        // beyond clock skew, or a window longer than the route's policy allows (it would be
        // served as fresh, with a huge max-age, until evicted).
        guard let policy = route.cache, stored >= 0, dropped >= 0,
            stored <= unixMilliseconds + maxClockSkewMilliseconds,
            (0...policy.ttlMilliseconds + 1).contains(fresh),
            (0...policy.ttlMilliseconds + policy.staleWhileRevalidateMilliseconds + 1).contains(revalidate),
            (0...policy.ttlMilliseconds + policy.staleIfErrorMilliseconds + 1).contains(onError)
        else { return nil }
        let elapsed = unixMilliseconds - stored
        var headers: [NameValue] = []
        for pair in pairs {
            // Only what `encode` writes, with values that are one visible-ASCII header line: an entry
            // read from Redis is untrusted, and a `Content-Length`, `Set-Cookie` or a line break
            // from it would go out in the answer's head.
            guard case .array(let parts) = pair, parts.count == 2, case .string(let name) = parts[0],
                case .string(let value) = parts[1], ResponseCache.Stored.keptHeaderNames.contains(name),
                value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
            else {
                return nil
            }
            headers.append(NameValue(name: name, value: value))
        }
        let age = Double(max(0, elapsed)) / 1000
        let storedAt = now - age
        let entry = ResponseCache.Stored(
            body: Array(bytes[(newline + 1)...]), headers: headers, dropped: dropped, storedAt: storedAt,
            freshUntil: storedAt + Double(fresh) / 1000,
            staleWhileRevalidateUntil: storedAt + Double(revalidate) / 1000,
            staleIfErrorUntil: storedAt + Double(onError) / 1000,
            route: route.name, fingerprint: route.fingerprint, forwarded: route.varyHeaders)
        return now < max(entry.staleWhileRevalidateUntil, entry.staleIfErrorUntil, entry.freshUntil) ? entry : nil
    }

    /// How far ahead of this replica's clock another replica's may be.
    static let maxClockSkewMilliseconds = 60_000

    private static func number(_ value: JSON?) -> Int? {
        if case .number(let number)? = value { return number.intValue }
        return nil
    }
}
