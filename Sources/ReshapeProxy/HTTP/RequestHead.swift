import ReshapeRules

/// What a complete request head says about its body, and whether it may be shed before its
/// body is read, for `HTTPConnectionStateMachine`.
package struct RequestHead: Sendable, Equatable {
    /// The declared `Content-Length`, when there is exactly one valid one.
    package var contentLength: Int?
    package var chunked: Bool
    /// `Expect: 100-continue` on an HTTP/1.1 request (RFC 9110 §10.1.1: never to HTTP/1.0).
    package var expectsContinue: Bool
    /// The target is an admin endpoint (`/_reshape/...`): health, readiness and metrics are
    /// never shed.
    package var toAdmin: Bool

    package init(
        contentLength: Int? = nil, chunked: Bool = false, expectsContinue: Bool = false, toAdmin: Bool = false
    ) {
        self.contentLength = contentLength
        self.chunked = chunked
        self.expectsContinue = expectsContinue
        self.toAdmin = toAdmin
    }

    /// Read from the header fields as received, and the request target's bytes. Ambiguous
    /// framing is refused later, at the message's end (`RequestFraming`); here an unclear
    /// length only means "no promise".
    package init(headers: [NameValue], versionMajor: Int, versionMinor: Int, target: [UInt8] = []) {
        var lengths: [String] = []
        var chunked = false
        var expects = false
        for header in headers {
            if RequestFraming.equalsIgnoringCase(header.name, "content-length") {
                lengths.append(header.value)
            } else if RequestFraming.equalsIgnoringCase(header.name, "transfer-encoding") {
                chunked = true
            } else if RequestFraming.equalsIgnoringCase(header.name, "expect") {
                let value = header.value.filter { $0 != " " && $0 != "\t" }
                expects = expects || RequestFraming.equalsIgnoringCase(value, "100-continue")
            }
        }
        let length = lengths.count == 1 ? Int(lengths[0].filter { $0 != " " && $0 != "\t" }) : nil
        self.init(
            contentLength: length.flatMap { $0 >= 0 ? $0 : nil }, chunked: chunked,
            expectsContinue: expects && versionMajor == 1 && versionMinor >= 1,
            toAdmin: target.starts(with: Router.adminPrefix.utf8))
    }

    /// Whether a body follows the head.
    package var bodyExpected: Bool { chunked || (contentLength ?? 0) > 0 }
}
