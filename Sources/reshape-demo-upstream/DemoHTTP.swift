// The request and response values the demo's connection loop and router exchange.

/// One parsed HTTP/1.x request.
struct DemoRequest: Sendable {
    var method: String
    /// The request target exactly as received (`/users.json?print=pretty`).
    var target: String
    var version: String
    /// Header fields in the order received, names as sent.
    var headers: [(name: String, value: String)]
    var body: [UInt8] = []

    /// The target up to `?`, still percent-encoded.
    var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// Query parameters in order, percent-decoded (`+` is a space).
    var query: [(name: String, value: String)] {
        guard let mark = target.firstIndex(of: "?") else { return [] }
        return target[target.index(after: mark)...].split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (percentDecoded(parts[0]), parts.count > 1 ? percentDecoded(parts[1]) : "")
        }
    }

    func queryValue(_ name: String) -> String? { query.last { $0.name == name }?.value }

    func header(_ name: String) -> String? {
        headers.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether the connection stays open after this exchange (HTTP/1.1 default on, 1.0 off).
    var keepAlive: Bool {
        let connection = header("connection")?.lowercased() ?? ""
        if version == "HTTP/1.0" { return connection.contains("keep-alive") }
        return !connection.contains("close")
    }
}

/// One HTTP response with a Content-Length body.
struct DemoResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]

    static func json(_ value: DemoValue, status: Int = 200, pretty: Bool = false) -> DemoResponse {
        DemoResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array((value.text(pretty: pretty) + (pretty ? "\n" : "")).utf8))
    }

    /// A Firebase-style error: `{"error": "..."}`.
    static func firebaseError(_ status: Int, _ message: String) -> DemoResponse {
        json(.object([("error", .string(message))]), status: status)
    }

    /// The status line and headers, including Content-Length and Connection.
    func head(keepAlive: Bool, contentLength: Int? = nil) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(DemoResponse.reason(status))\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        // A 204 has no body and must not announce one (RFC 9110 §8.6).
        if status != 204 { text += "Content-Length: \(contentLength ?? body.count)\r\n" }
        text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        text += "Server: reshape-demo-upstream\r\n\r\n"
        return Array(text.utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 412: return "Precondition Failed"
        case 413: return "Payload Too Large"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}

/// What the connection loop should do for one request. Faults are not plain responses.
enum DemoReply: Sendable {
    case respond(DemoResponse)
    /// Never answer; wait for the client to close and record that.
    case hang
    /// Answer after `milliseconds`, unless the client closes first.
    case delayed(milliseconds: Int, DemoResponse)
    /// Send the head (with the full Content-Length) and `sentBytes` of the body, then reset.
    case resetMidBody(DemoResponse, sentBytes: Int)
    /// Send the head and `sentBytes` of the body, then nothing more until the client closes.
    case stallMidBody(DemoResponse, sentBytes: Int)
    /// Close the connection without answering (an "empty reply").
    case closeWithoutAnswer
    /// Serve a Firebase event stream of this location (decoded segments) until it ends.
    case stream([String])
}

private func percentDecoded(_ text: Substring) -> String {
    let input = Array(text.utf8)
    var bytes: [UInt8] = []
    var i = 0
    while i < input.count {
        let byte = input[i]
        if byte == UInt8(ascii: "+") {
            bytes.append(UInt8(ascii: " "))
        } else if byte == UInt8(ascii: "%"), i + 2 < input.count,
            let value = UInt8(String(decoding: input[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            i += 2
        } else {
            bytes.append(byte)  // a stray '%' is kept as it came
        }
        i += 1
    }
    return String(decoding: bytes, as: UTF8.self)
}
