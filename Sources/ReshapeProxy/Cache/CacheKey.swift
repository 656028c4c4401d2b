import ReshapeDigest
import ReshapeRules

/// What selects one cached answer: the route, its path captures, the forwarded and
/// `vary-query` query parameters (Firebase's too, on a route with `firebase-query: true`),
/// and the values of the forwarded client headers, encoded length-prefixed so no two key
/// sets encode alike. Where the client's query or headers are part of it (a credential may
/// be), it is kept only as its SHA-256 digest, so credentials are never stored in clear and
/// two clients with different credentials can never share an answer. Where only the route
/// and the path are (claims too, never tokens), the local cache keys by the encoded bytes
/// themselves: compared in full, hashed with the process's seeded hasher, no SHA-256 per hit.
/// The shared cache (Redis) always gets the digest of the same bytes: every replica computes
/// the same key, and nobody can make two collide on purpose.
package struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    package let route: String
    private let identity: Identity

    private enum Identity: Equatable, Sendable {
        /// The encoded parts, holding nothing the client sent but its path.
        case encoded([UInt8])
        /// Hex SHA-256 of the encoded parts.
        case digest(String)
    }

    package init(route: String, digest: String) {
        self.route = route
        identity = .digest(digest)
    }

    private init(route: String, encoded: [UInt8], mayHoldCredentials: Bool) {
        self.route = route
        // A long encoding (long captures) is kept as its digest too: a stored key weighs at
        // most a little more than a digest, whatever the path (`extraBytes`).
        identity =
            mayHoldCredentials || encoded.count > Self.longestEncodedKey
            ? .digest(SHA256Digest.hex(encoded)) : .encoded(encoded)
    }

    /// The longest encoding kept as itself, and the buffer reserved for one.
    static let longestEncodedKey = 128
    static let reservedKeyBytes = 160

    /// What a stored key weighs beyond the 64-character digest that
    /// `ResponseCache.entryOverhead` counts: an encoding's buffer is larger.
    package var extraBytes: Int {
        switch identity {
        case .encoded(let bytes): max(0, bytes.capacity - 64)
        case .digest: 0
        }
    }

    /// Hex SHA-256 of the encoded parts: what a shared cache stores under.
    package var digest: String {
        switch identity {
        case .encoded(let bytes): SHA256Digest.hex(bytes)
        case .digest(let digest): digest
        }
    }

    /// True when the key is kept as a digest (the client's query or headers are part of it).
    package var isDigest: Bool {
        if case .digest = identity { return true }
        return false
    }

    package var description: String { route + "/" + digest.prefix(16) }

    /// The bytes hashed at once (an array's own hashing feeds the hasher byte by byte).
    package func hash(into hasher: inout Hasher) {
        hasher.combine(route)
        switch identity {
        case .encoded(let bytes): bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        case .digest(let digest): hasher.combine(digest)
        }
    }

    /// Nil when the request cannot be keyed (a query that is not valid percent-encoding, or a
    /// Firebase query Firebase would refuse: the request is refused anyway).
    package static func of(route: Route, parameters: [String: String], request: HTTPRequest) -> CacheKey? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.reservedKeyBytes)
        // Set once a part comes from the client's query or headers.
        var fromClient = false
        func add(_ text: String) {
            // The length in decimal, a colon, the bytes: no temporary String or Array per part.
            var length = text.utf8.count
            var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            var count = 0
            withUnsafeMutableBytes(of: &digits) { buffer in
                repeat {
                    buffer[count] = UInt8(ascii: "0") + UInt8(length % 10)
                    length /= 10
                    count += 1
                } while length > 0
                for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
            }
            bytes.append(0x3A)
            bytes.append(contentsOf: text.utf8)
        }
        add(route.name)
        add(route.fingerprint)
        if parameters.count == 1, let (name, value) = parameters.first {
            add(name)
            add(value)
        } else {
            for name in parameters.keys.sorted() {
                add(name)
                add(parameters[name] ?? "")
            }
        }
        var pairs: [(String, String)] = []
        if !route.forwardQuery.isEmpty || !(route.cache?.varyQuery.isEmpty ?? true) {
            let queryNames = Set(route.forwardQuery + (route.cache?.varyQuery ?? []))
            for pair in request.rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
                let equals = pair.firstIndex(of: "=")
                guard let name = PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true),
                    let value = PercentEncoding.decode(
                        equals.map { pair[pair.index(after: $0)...] } ?? "", plusIsSpace: true)
                else {
                    return nil
                }
                if queryNames.contains(name) { pairs.append((name, value)) }
            }
        }
        // By name, keeping the order of repeated names: `a=1&b=2` and `b=2&a=1` are one answer.
        for (name, value) in pairs.enumerated().sorted(by: { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) })
            .map(\.element)
        {
            fromClient = true
            add("q")
            add(name)
            add(value)
        }
        // Firebase's parameters as they are forwarded: checked, in a fixed order.
        if route.firebaseQuery != .off {
            guard let firebase = try? UpstreamRequestBuilder.firebaseQuery(route: route, rawQuery: request.rawQuery)
            else { return nil }
            for parameter in firebase.parameters {
                fromClient = true
                add("f")
                add(parameter.name)
                add(parameter.value)
            }
        }
        // Trace headers are never forwarded as sent (each fetch sends its own), so they select nothing.
        for name in route.forwardHeaders
        where ForwardedHeaderPolicy.mayForward(name) && !UpstreamRequestBuilder.isTraceHeader(name) {
            fromClient = true
            add("h")
            add(name.lowercased())
            // How many values follow, so that one header's values can never read as the next
            // header's name and values.
            var values = 0
            for header in request.headers where RequestFraming.equalsIgnoringCase(header.name, name) { values += 1 }
            add(String(values))
            for header in request.headers where RequestFraming.equalsIgnoringCase(header.name, name) {
                add(header.value)
            }
        }
        return CacheKey(route: route.name, encoded: bytes, mayHoldCredentials: fromClient)
    }
}
