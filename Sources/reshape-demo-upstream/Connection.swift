#if canImport(Glibc)
    import Glibc
#endif

/// Serves one client connection until it closes: parse a request, ask the router, act.
/// Blocking, one thread per connection: the demo is a test tool, not the product.
struct Connection {
    static let headLimit = 64 * 1024
    static let bodyLimit = 64 * 1024 * 1024

    let fd: Int32
    let router: Router
    let log: RequestLog

    func run() {
        let reader = SocketReader(fd: fd)
        defer { close(fd) }
        while true {
            let head: [UInt8]
            switch reader.readHead(limit: Connection.headLimit) {
            case .closed: return
            case .tooLarge:
                _ = send(
                    .firebaseError(431, "Request head larger than \(Connection.headLimit) bytes."), keepAlive: false,
                    head: false)
                return
            case .head(let bytes): head = bytes
            }
            guard var request = Connection.parseHead(head) else {
                _ = send(.firebaseError(400, "Malformed request head."), keepAlive: false, head: false)
                return
            }
            switch readBody(of: request, from: reader) {
            case .success(let body): request.body = body
            case .failure(let problem):
                _ = send(problem.response, keepAlive: false, head: false)
                return
            }
            guard serve(request, reader: reader) else { return }
        }
    }

    /// Acts on one request; false when the connection must end.
    private func serve(_ request: DemoRequest, reader: SocketReader) -> Bool {
        // Reads of the log and the demo's controls are inspection, not traffic: not logged. The
        // key set is traffic: tests count how often Reshape fetched it.
        let isLogRead =
            request.path == "/_log" || (request.path.hasPrefix("/_demo/") && request.path != "/_demo/jwks.json")
        let id = isLogRead ? nil : log.begin(request)
        let keepAlive = request.keepAlive
        let headOnly = request.method == "HEAD"

        switch router.reply(to: request) {
        case .respond(let response):
            if let id { log.markAnswering(id) }
            guard send(response, keepAlive: keepAlive, head: headOnly) else {
                if let id { log.markClientAborted(id) }
                return false
            }
        case .hang:
            _ = reader.waitForClose(milliseconds: nil)
            if let id { log.markClientAborted(id) }
            return false
        case .delayed(let milliseconds, let response):
            if reader.waitForClose(milliseconds: milliseconds) {
                if let id { log.markClientAborted(id) }
                return false
            }
            if let id { log.markAnswering(id) }
            guard send(response, keepAlive: keepAlive, head: headOnly) else {
                if let id { log.markClientAborted(id) }
                return false
            }
        case .resetMidBody(let response, let sentBytes):
            var bytes = response.head(keepAlive: true)
            bytes += response.body.prefix(sentBytes)
            _ = writeAll(bytes)
            // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            return false
        case .stallMidBody(let response, let sentBytes):
            var bytes = response.head(keepAlive: true)
            bytes += response.body.prefix(sentBytes)
            _ = writeAll(bytes)
            _ = reader.waitForClose(milliseconds: nil)
            if let id { log.markClientAborted(id) }
            return false
        case .closeWithoutAnswer:
            return false
        case .stream(let location):
            guard let stream = router.store.subscribe(location) else {
                _ = send(.firebaseError(503, "No descriptor left for another stream."), keepAlive: false, head: false)
                return false
            }
            if let id { log.markAnswering(id) }
            let outcome = StreamConnection(fd: fd, stream: stream, keepAliveMilliseconds: router.keepAliveMilliseconds)
                .run()
            router.store.unsubscribe(stream)
            // A stream the server ended (a final event, or a drop) counts as completed.
            if let id { outcome == .clientLeft ? log.markClientAborted(id) : log.markCompleted(id) }
            return false
        }
        if let id { log.markCompleted(id) }
        return keepAlive
    }

    private func send(_ response: DemoResponse, keepAlive: Bool, head: Bool) -> Bool {
        var bytes = response.head(keepAlive: keepAlive)
        if !head { bytes += response.body }
        return writeAll(bytes)
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private struct BodyProblem: Error {
        let response: DemoResponse
        static let bad = BodyProblem(response: .firebaseError(400, "Bad request body framing."))
        static let tooLarge = BodyProblem(response: .firebaseError(413, "Request body too large."))
    }

    private func readBody(of request: DemoRequest, from reader: SocketReader) -> Result<[UInt8], BodyProblem> {
        if let encoding = request.header("transfer-encoding") {
            guard encoding.lowercased() == "chunked", request.header("content-length") == nil else {
                return .failure(.bad)
            }
            var body: [UInt8] = []
            while true {
                guard let line = reader.readLine() else { return .failure(.bad) }
                let sizeText = String(decoding: line, as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingSpaces, radix: 16), size >= 0 else { return .failure(.bad) }
                if size == 0 {
                    while let trailer = reader.readLine(), !trailer.isEmpty {}
                    return .success(body)
                }
                guard body.count + size <= Connection.bodyLimit else { return .failure(.tooLarge) }
                guard let chunk = reader.read(count: size), reader.readLine()?.isEmpty == true else {
                    return .failure(.bad)
                }
                body += chunk
            }
        }
        guard let lengthText = request.header("content-length") else { return .success([]) }
        guard let length = Int(lengthText.trimmingSpaces), length >= 0 else { return .failure(.bad) }
        guard length <= Connection.bodyLimit else { return .failure(.tooLarge) }
        guard let body = reader.read(count: length) else { return .failure(.bad) }
        return .success(body)
    }

    /// Parses a request line and header fields; nil when they are malformed.
    static func parseHead(_ head: [UInt8]) -> DemoRequest? {
        var lines = headLines(head)
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].hasPrefix("/") || requestLine[1] == "*",
            requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0"
        else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
            let name = String(line[..<colon])
            guard !name.contains(" ") && !name.contains("\t") else { return nil }
            headers.append((name, String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        return DemoRequest(
            method: String(requestLine[0]), target: String(requestLine[1]),
            version: String(requestLine[2]), headers: headers)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }),
            let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

/// The lines of a request head, split at CRLF (a bare LF is tolerated). Split as bytes:
/// in a Swift String "\r\n" is one Character and would never match "\n".
func headLines(_ head: [UInt8]) -> [String] {
    head.split(separator: 10, omittingEmptySubsequences: false).map { line in
        String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
    }
}
