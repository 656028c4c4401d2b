/// How one upstream fetch ended.
public enum UpstreamResult: Sendable {
    /// `retryAfter` is the upstream's `Retry-After`, passed on with a 429 it answered;
    /// `cacheControl` its `Cache-Control`, which may forbid or shorten caching the answer.
    case response(status: Int, contentType: String?, body: [UInt8], retryAfter: String? = nil, cacheControl: String? = nil)
    case failure(UpstreamFailure, message: String)
}

/// Why a fetch produced no usable response; the metrics label and the problem code follow from it.
public enum UpstreamFailure: String, Sendable, CaseIterable {
    case dns
    case connect
    case tls
    case timeout
    case tooLarge = "too-large"
    case transfer
    case other
}
