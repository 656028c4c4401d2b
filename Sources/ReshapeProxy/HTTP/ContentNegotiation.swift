import ReshapeCompression
import ReshapeRules

/// Which representation of an answer a client gets, by its `Accept-Encoding` (RFC 9110 §12.5.3).
/// Each content coding is a representation of its own, with its own strong `ETag`, so that a
/// cache or client holding the gzip bytes never gets a 304 that would have it keep them for a
/// request that asked for something else. Pure: the bytes come from the `compress` the caller
/// hands in (the loop's compressor, or a cache entry that keeps what it compressed).
package enum ContentNegotiation {
    /// Whether the answer's coding depends on the client's `Accept-Encoding`: JSON (problems
    /// included) of at least `minimumBytes`. Everything else is identity for every client.
    package static func isNegotiable(_ response: HTTPResponse, minimumBytes: Int) -> Bool {
        guard response.status != 304, response.status != 204, response.body.count >= minimumBytes,
            response.header("Content-Encoding") == nil, let type = response.header("Content-Type")
        else { return false }
        return isJSON(type)
    }

    /// `application/json` or `application/problem+json`, parameters aside. The two this server
    /// writes are compared first, as they are: this runs for every answer.
    static func isJSON(_ contentType: String) -> Bool {
        if contentType == "application/json" || contentType == "application/problem+json" { return true }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        let trimmed = mediaType.filter { $0 != " " && $0 != "\t" }.lowercased()
        return trimmed == "application/json" || trimmed == "application/problem+json"
    }

    /// The answer as the client that sent `acceptEncoding` gets it. A negotiable answer names
    /// `Accept-Encoding` in `Vary` whichever coding wins, identity included: the next client's
    /// may differ. `compress` gives the body in a coding, or nil when that coding would not make
    /// it smaller, and the identity answer is sent instead.
    package static func represent(
        _ response: HTTPResponse, acceptEncoding: String?, minimumBytes: Int,
        compress: (ContentCoding) -> [UInt8]?
    ) -> HTTPResponse {
        guard isNegotiable(response, minimumBytes: minimumBytes) else { return response }
        var response = response
        CachingHeaders.addVary("Accept-Encoding", to: &response.headers)
        let coding = AcceptEncoding.choose(acceptEncoding)
        guard coding != .identity, let body = compress(coding) else { return response }
        return encoded(response, as: coding, body: body)
    }

    /// The answer in `coding`: its compressed `body`, `Content-Encoding`, and the identity
    /// answer's entity tag made this representation's own.
    static func encoded(_ response: HTTPResponse, as coding: ContentCoding, body: [UInt8]) -> HTTPResponse {
        var response = response
        response.body = body
        if let index = response.headers.firstIndex(where: { $0.name == "ETag" }) {
            response.headers[index].value = entityTag(response.headers[index].value, coding: coding)
        }
        if let value = coding.headerValue { response.headers.append(NameValue(name: "Content-Encoding", value: value)) }
        return response
    }

    /// The tag of `coding`'s representation: the identity tag with the coding's suffix inside
    /// the quotes (`"0123456789abcdef-gzip"`), still strong, still one per byte sequence.
    package static func entityTag(_ identityTag: String, coding: ContentCoding) -> String {
        guard identityTag.hasSuffix("\""), identityTag.count >= 2 else { return identityTag }
        return String(identityTag.dropLast()) + coding.entityTagSuffix + "\""
    }
}
