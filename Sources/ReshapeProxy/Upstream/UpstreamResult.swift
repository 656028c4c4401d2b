/// How one upstream fetch ended.
package enum UpstreamResult: Sendable {
    case response(UpstreamResponse)
    case failure(UpstreamFailure, message: String)
}

/// What an upstream answered.
package struct UpstreamResponse: Sendable {
    package var status: Int
    package var contentType: String?
    package var body: [UInt8]
    /// The upstream's `Retry-After`, passed on with a 429 it answered.
    package var retryAfter: String?
    /// The upstream's `Cache-Control`, which may forbid or shorten caching the answer.
    package var cacheControl: String?
    /// The upstream's `ETag` (Firebase's, asked for by a conditional route), as it sent it.
    package var entityTag: String?

    package init(
        status: Int, contentType: String?, body: [UInt8], retryAfter: String? = nil, cacheControl: String? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.retryAfter = retryAfter
        self.cacheControl = cacheControl
    }
}

/// Why a fetch produced no usable response; the metrics label and the problem code follow from it.
package enum UpstreamFailure: String, Sendable, CaseIterable {
    case dns
    case connect
    case tls
    case timeout
    case tooLarge = "too-large"
    case transfer
    case other
    /// Not contacted: its circuit is open after repeated failures (see `circuitOpen`).
    case unavailable
    /// It redirected where the upstream's `redirects:` does not allow (or has none for a write).
    case redirectRefused = "redirect-refused"
    /// Not contacted: its `max-in-flight` fetches were out and its `queue` full, absent, or
    /// waited on past its timeout (see `saturated`).
    case saturated
    /// Not contacted: the process's memory budget had no room for it before its time ran out.
    case loadShed = "load-shed"
}

extension UpstreamResult {
    private static let circuitOpenPrefix = "the upstream's circuit is open after repeated failures; next try in "

    /// A fetch refused because the upstream's circuit is open; the next probe is `retryAfterSeconds` away.
    package static func circuitOpen(retryAfterSeconds: Int) -> UpstreamResult {
        .failure(.unavailable, message: circuitOpenPrefix + "\(retryAfterSeconds) s")
    }

    /// The seconds a `circuitOpen` message names, for the answer's `Retry-After`.
    static func circuitRetryAfter(_ message: String) -> Int? {
        guard message.hasPrefix(circuitOpenPrefix) else { return nil }
        return Int(message.dropFirst(circuitOpenPrefix.count).prefix { $0.isNumber })
    }
}

extension UpstreamResult {
    private static let saturatedInfix = "; retry in "

    /// A fetch refused because its upstream has `max-in-flight` fetches out and no place in
    /// its queue came free; `reason` says which, and a client may retry after `retryAfterSeconds`.
    package static func saturated(_ reason: String, retryAfterSeconds: Int) -> UpstreamResult {
        .failure(.saturated, message: reason + saturatedInfix + "\(retryAfterSeconds) s")
    }

    /// The seconds a `saturated` message names, for the answer's `Retry-After`.
    static func saturatedRetryAfter(_ message: String) -> Int? {
        guard let range = message.ranges(of: saturatedInfix).last else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }
}
