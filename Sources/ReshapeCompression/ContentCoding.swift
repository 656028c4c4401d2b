/// A content coding this server can apply to an answer (RFC 9110 §8.4.1). `identity` is the
/// answer as rendered.
public enum ContentCoding: String, Sendable, CaseIterable {
    case zstd
    case br
    case gzip
    case identity

    /// The codings the server compresses with, most preferred first: when a client accepts
    /// several with the same q-value, the first of them here wins. zstd and brotli compress
    /// normalized JSON smaller than gzip at the levels chosen in `Compressor`, for less CPU.
    public static let serverPreference: [ContentCoding] = [.zstd, .br, .gzip]

    /// What goes in `Content-Encoding` (nil for identity, which sends none).
    public var headerValue: String? { self == .identity ? nil : rawValue }

    /// The suffix that makes a representation's strong `ETag` its own (RFC 9110 §8.8.3: each
    /// content coding is a different representation, so it needs a different tag).
    public var entityTagSuffix: String { self == .identity ? "" : "-" + rawValue }
}
