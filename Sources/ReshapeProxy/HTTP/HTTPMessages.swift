import ReshapeRules

/// A client request as the parser delivered it.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The request target exactly as sent (`/users?limitToFirst=2`).
    package var target: String
    package var versionMajor: Int
    package var versionMinor: Int
    package var headers: [NameValue]
    package var body: [UInt8]
    /// Whether the connection may carry another request after this one.
    package var keepAlive: Bool
    /// The client connected from a loopback address (127.0.0.0/8, ::1): set by the server, for
    /// admin endpoints that answer only local clients.
    package var fromLoopback = false
    /// The client's TCP peer address as text (`192.0.2.1`, `2001:db8::1`): set by the server,
    /// for `client-address` rate limits.
    package var peerAddress = ""

    package init(
        method: String, target: String, versionMajor: Int = 1, versionMinor: Int = 1,
        headers: [NameValue] = [], body: [UInt8] = [], keepAlive: Bool = true
    ) {
        self.method = method
        self.target = target
        self.versionMajor = versionMajor
        self.versionMinor = versionMinor
        self.headers = headers
        self.body = body
        self.keepAlive = keepAlive
    }

    /// The path part of the target, before `?`.
    package var path: Substring {
        queryMark.map { target[..<$0] } ?? target[...]
    }

    /// The raw query, after `?` ("" when there is none).
    package var rawQuery: Substring {
        queryMark.map { target[target.utf8.index(after: $0)...] } ?? ""
    }

    /// Where `?` is: searched as a byte, since `String.firstIndex(of:)` walks grapheme
    /// clusters, which is slow, and both parts are asked for a few times per request.
    private var queryMark: String.Index? {
        target.utf8.firstIndex(of: UInt8(ascii: "?"))
    }

    /// Whether a request may be followed by another on the same connection: HTTP/1.1 unless
    /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`; older never.
    package static func keepAlive(versionMajor: Int, versionMinor: Int, headers: [NameValue]) -> Bool {
        var close = false
        var keepAlive = false
        for header in headers where RequestFraming.equalsIgnoringCase(header.name, "connection") {
            for token in header.value.split(separator: ",") {
                let token = String(token.filter { $0 != " " && $0 != "\t" })
                if RequestFraming.equalsIgnoringCase(token, "close") { close = true }
                if RequestFraming.equalsIgnoringCase(token, "keep-alive") { keepAlive = true }
            }
        }
        if close { return false }
        if versionMajor > 1 || (versionMajor == 1 && versionMinor >= 1) { return true }
        return versionMajor == 1 && keepAlive
    }

    /// The first header with this name, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { RequestFraming.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every line of a header a client may repeat, joined by ", " (RFC 9110 §5.3); nil when absent.
    package func joinedHeader(_ name: String) -> String? {
        // No array of the values: nearly always there is one, or none (every request asks).
        var joined: String?
        for header in headers where RequestFraming.equalsIgnoringCase(header.name, name) {
            if let earlier = joined { joined = earlier + ", " + header.value } else { joined = header.value }
        }
        return joined
    }
}

/// A response ready to be written.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [NameValue]
    package var body: [UInt8]

    package init(status: Int, headers: [NameValue] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the header named exactly `name` (the names this server writes).
    package func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// JSON body with the given content type.
    package static func json(
        _ status: Int, _ body: [UInt8], contentType: String = "application/json",
        extraHeaders: [NameValue] = []
    ) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [NameValue(name: "Content-Type", value: contentType)] + extraHeaders, body: body)
    }

    /// The bytes on the wire. HEAD responses carry the GET's Content-Length and no body.
    package func serialized(headOnly: Bool, keepAlive: Bool, date: String = "") -> [UInt8] {
        var bytes = head(bodyBytes: body.count, keepAlive: keepAlive, date: date)
        if !headOnly { bytes += body }
        return bytes
    }

    /// The status line and headers, with `Content-Length: bodyBytes`, up to the blank line.
    /// A 304 carries none (it has no content, and its length would be the 200's), nor a 204
    /// (RFC 9110 §8.6). `date` is the `Date` value (IMF-fixdate), which the server supplies
    /// because only it has a clock; empty sends none.
    package func head(bodyBytes: Int, keepAlive: Bool, date: String = "") -> [UInt8] {
        // Built as bytes into one allocation: this runs once per response on the loop thread.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(160 + headers.count * 48)
        RenderedAnswer.appendStatusLine(status, date: date, to: &bytes)
        appendHeaderLines(bodyBytes: bodyBytes, to: &bytes)
        RenderedAnswer.appendEnd(keepAlive: keepAlive, to: &bytes)
        return bytes
    }

    /// Each header as `Name: value` and CRLF, then `Content-Length` where the status has one:
    /// what is the same for every client the answer goes to (`RenderedAnswer.lines`).
    func appendHeaderLines(bodyBytes: Int, to bytes: inout [UInt8]) {
        for header in headers {
            bytes.appendUTF8(header.name)
            bytes.appendUTF8(": ")
            bytes.appendUTF8(header.value)
            bytes.appendUTF8("\r\n")
        }
        if status != 304 && status != 204 {
            bytes.appendUTF8("Content-Length: ")
            bytes.appendDecimal(bodyBytes)
            bytes.appendUTF8("\r\n")
        }
    }

    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

extension HTTPRequest: Equatable {
    package static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.headers == rhs.headers && lhs.body == rhs.body
            && lhs.keepAlive == rhs.keepAlive
    }
}
