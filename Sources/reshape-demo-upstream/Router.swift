// Maps a request to a reply: the Firebase-shaped database and its streams, the fault modes and
// the inspection endpoints (/echo, /_log, /_demo/streams). The connection does the I/O.

struct Router: Sendable {
    let log: RequestLog
    /// The live database: reads, writes and streams.
    let store: DemoStore
    /// How often an open stream sends `keep-alive`.
    let keepAliveMilliseconds: Int
    let pushIds = PushIds()
    let seenTags = SeenTags()
    let streamRefusals = StreamRefusals()
    /// `HOST:PORT` of the second listener `/redirect/` sends requests to; nil: this one.
    let redirectHost: String?

    init(
        log: RequestLog, store: DemoStore = DemoStore(), keepAliveMilliseconds: Int = 30_000,
        redirectHost: String? = nil
    ) {
        self.log = log
        self.store = store
        self.keepAliveMilliseconds = keepAliveMilliseconds
        self.redirectHost = redirectHost
    }

    /// Body of `/fault/invalid-json`: the syntax error is at line 3, column 5 (a `]` where a
    /// member name must be). The same position is sent in the headers below so tests need not
    /// hard-code it.
    static let invalidJSONBody = "{\n  \"name\": \"Ada\",\n    ]\n}\n"
    static let invalidJSONLine = 3
    static let invalidJSONColumn = 5

    func reply(to request: DemoRequest) -> DemoReply {
        let path = request.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)

        if path == "/_log" {
            if request.queryValue("clear") == "1" { log.clear() }
            return .respond(.json(log.snapshot, pretty: request.queryValue("print") == "pretty"))
        }
        if segments.first == "_demo", let reply = identityControl(Array(segments.dropFirst()), request) { return reply }
        if segments.first == "_demo" {
            return demoControl(Array(segments.dropFirst()), request)
        }
        if let reply = redirect(segments, request) { return reply }
        if path == "/echo" || path.hasPrefix("/echo/") {
            return .respond(.json(echo(request)))
        }
        if segments.first == "fault" {
            return fault(Array(segments.dropFirst()), request)
        }
        // `/delay/MS/<any path>`: the answer to `<any path>`, after MS milliseconds (unless the
        // client leaves first), so fetch rules can ask for slowness in their path.
        if segments.first == "delay", segments.count > 2, let ms = Int(segments[1]), (0...600_000).contains(ms) {
            var inner = request
            let prefix = "/delay/\(segments[1])"
            inner.target = String(request.target.dropFirst(prefix.count))
            switch reply(to: inner) {
            case .respond(let response): return .delayed(milliseconds: ms, response)
            case let other: return other
            }
        }
        guard path.hasSuffix(".json") else {
            return .respond(.firebaseError(404, "Paths end in .json, as in Firebase: try /users.json"))
        }
        let dataPath = String(path.dropLast(".json".count)).split(separator: "/").map { percentDecodedPath(String($0)) }
        switch request.method {
        case "GET", "HEAD": break
        case "POST", "PUT", "PATCH", "DELETE": return write(request, at: dataPath)
        default:
            return .respond(.firebaseError(405, "The demo upstream serves GET, HEAD, POST, PUT, PATCH and DELETE."))
        }
        if request.method == "GET", request.header("accept")?.lowercased().contains("text/event-stream") == true {
            if let status = streamRefusals.take() {
                return .respond(.firebaseError(status, "Demo fault: this stream request is refused with \(status)."))
            }
            return .stream(dataPath)
        }
        // Firebase answers a missing path with 200 and `null`.
        var value = store.read(dataPath) ?? .null
        switch DemoQuery.of(request) {
        case .failure(let refusal): return .respond(.firebaseError(400, refusal.message))
        case .success(let query?): value = query.answer(value)
        case .success(nil): break
        }
        if request.queryValue("shallow") == "true" { value = value.shallow }
        if request.queryValue("print") == "silent" {
            return .respond(DemoResponse(status: 204, headers: [], body: []))
        }
        // As Firebase's front end marks every read (docs/firebase.md).
        var answer = DemoResponse.json(value, pretty: request.queryValue("print") == "pretty")
        answer.headers.append(("Cache-Control", "no-cache"))
        if request.header("x-firebase-etag") == "true" {
            answer.headers.append(("ETag", DemoETag.of(store.read(dataPath))))
        }
        return .respond(answer)
    }

    private func fault(_ segments: [String], _ request: DemoRequest) -> DemoReply {
        switch segments.first ?? "" {
        case "hang":
            return .hang
        case "slow":
            let ms = max(0, min(Int(request.queryValue("ms") ?? "") ?? 1000, 600_000))
            return .delayed(milliseconds: ms, .json(.object([("slow", .bool(true)), ("ms", .int(ms))])))
        case "reset":
            let body = Array(DemoData.users.text(pretty: true).utf8)
            return .resetMidBody(.json(DemoData.users, pretty: true), sentBytes: min(100, body.count / 2))
        case "stall":
            let body = Array(DemoData.users.text(pretty: true).utf8)
            return .stallMidBody(.json(DemoData.users, pretty: true), sentBytes: min(100, body.count / 2))
        case "close":
            return .closeWithoutAnswer
        // `/fault/reset-once/TAG`: the first request with TAG has its connection closed without
        // an answer (a reset, for a retrying client); later ones are answered 200.
        case "reset-once":
            guard segments.count > 1 else { return .respond(.firebaseError(400, "Use /fault/reset-once/TAG.")) }
            if seenTags.firstTime(segments[1]) { return .closeWithoutAnswer }
            return .respond(.json(.object([("tag", .string(segments[1])), ("attempt", .int(2))])))
        // `/fault/status-once/NNN/TAG[?retry-after=S]`: status NNN the first time TAG is seen, 200 after.
        case "status-once":
            guard segments.count > 2, let status = Int(segments[1]), (400...599).contains(status) else {
                return .respond(.firebaseError(400, "Use /fault/status-once/NNN/TAG with NNN in 400...599."))
            }
            guard seenTags.firstTime(segments[2]) else {
                return .respond(.json(.object([("tag", .string(segments[2])), ("attempt", .int(2))])))
            }
            var response = DemoResponse.firebaseError(status, "Demo fault: status \(status) once.")
            if let seconds = request.queryValue("retry-after") { response.headers.append(("Retry-After", seconds)) }
            return .respond(response)
        case "status":
            guard segments.count > 1, let status = Int(segments[1]), (200...599).contains(status),
                status != 204, status != 304
            else {
                return .respond(.firebaseError(400, "Use /fault/status/NNN with NNN in 200...599 (not 204/304)."))
            }
            var response = DemoResponse.firebaseError(status, "Demo fault: status \(status).")
            // As a rate limiter or an overloaded server says when to come back.
            if let seconds = request.queryValue("retry-after") {
                response.headers.append(("Retry-After", seconds))
            } else if status == 429 || status == 503 {
                response.headers.append(("Retry-After", "7"))
            }
            return .respond(response)
        case "html":
            let page =
                "<!DOCTYPE html>\n<html><head><title>Maintenance</title></head>\n<body><h1>Down for maintenance</h1></body></html>\n"
            return .respond(
                DemoResponse(
                    status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8)))
        case "invalid-json":
            return .respond(
                DemoResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json; charset=utf-8"),
                        ("Demo-Error-Line", String(Router.invalidJSONLine)),
                        ("Demo-Error-Column", String(Router.invalidJSONColumn)),
                    ], body: Array(Router.invalidJSONBody.utf8)))
        case "big":
            let bytes = max(2, min(Int(request.queryValue("bytes") ?? "") ?? 1_000_000, 512 * 1024 * 1024))
            return .respond(
                DemoResponse(
                    status: 200, headers: [("Content-Type", "application/json")], body: Router.bigDocument(bytes: bytes)
                ))
        case "gzip":
            let plain = Array(DemoData.users.text().utf8)
            return .respond(
                DemoResponse(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json; charset=utf-8"), ("Content-Encoding", "gzip"),
                    ], body: Gzip.encodeStored(plain)))
        default:
            return .respond(
                .firebaseError(
                    404,
                    "Unknown fault. Known: hang, slow?ms=N, redirect/STATUS/HOST:PORT/<path>, reset, stall, close, reset-once/TAG, status/NNN, status-once/NNN/TAG, html, invalid-json, big?bytes=N, gzip."
                ))
        }
    }

    /// A write at `dataPath`, stored as Firebase stores it (streams of the locations it changes
    /// are told) and answered as Firebase answers: POST creates a child with a new push id and
    /// answers 201 with it as `name`; PUT and PATCH answer the data written; DELETE answers
    /// `null`. A body that is not JSON, or a PATCH body that is not an object, is a 400.
    private func write(_ request: DemoRequest, at dataPath: [String]) -> DemoReply {
        var write: DemoWrite
        switch DemoWrite.parse(method: request.method, path: dataPath, body: request.body) {
        case .failure(let refusal): return .respond(.firebaseError(400, refusal.message))
        case .success(let parsed): write = parsed
        }
        if request.method == "POST" {
            let pushId = pushIds.next()
            write.path.append(pushId)
            store.apply(write)
            return .respond(.json(.object([("name", .string(pushId))]), status: 201))
        }
        return conditionalWrite(write, request)
    }

    /// A valid keyed JSON object of at least `bytes` bytes (a few dozen more at most).
    static func bigDocument(bytes: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes + 64)
        out.append(UInt8(ascii: "{"))
        var index = 0
        while out.count + 1 < bytes {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let number = String(index)
            let key = "-Big" + String(repeating: "0", count: max(0, 16 - number.count)) + number
            out.append(contentsOf: Array("\"\(key)\":{\"name\":\"item \(index)\",\"value\":\(index)}".utf8))
            index += 1
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The request as received, so tests can check what Reshape forwarded.
    private func echo(_ request: DemoRequest) -> DemoValue {
        var headerObject: [(String, DemoValue)] = []
        for (name, value) in request.headers {
            let key = name.lowercased()
            if let index = headerObject.firstIndex(where: { $0.0 == key }),
                case .string(let old) = headerObject[index].1
            {
                headerObject[index].1 = .string(old + ", " + value)
            } else {
                headerObject.append((key, .string(value)))
            }
        }
        return .object([
            ("method", .string(request.method)),
            ("target", .string(request.target)),
            ("path", .string(request.path)),
            ("query", .object(lastWins(request.query))),
            ("queryList", .array(request.query.map { .array([.string($0.name), .string($0.value)]) })),
            ("version", .string(request.version)),
            ("headers", .object(headerObject)),
            ("headerList", .array(request.headers.map { .array([.string($0.name), .string($0.value)]) })),
            ("bodyBytes", .int(request.body.count)),
            ("body", .string(String(decoding: request.body, as: UTF8.self))),
        ])
    }

    /// Query parameters as object members; a repeated name keeps its last value (all are in `queryList`).
    private func lastWins(_ pairs: [(name: String, value: String)]) -> [(String, DemoValue)] {
        var members: [(String, DemoValue)] = []
        for (name, value) in pairs {
            if let index = members.firstIndex(where: { $0.0 == name }) {
                members[index].1 = .string(value)
            } else {
                members.append((name, .string(value)))
            }
        }
        return members
    }

    private func percentDecodedPath(_ segment: String) -> String {
        guard segment.contains("%") else { return segment }
        var bytes: [UInt8] = []
        let input = Array(segment.utf8)
        var i = 0
        while i < input.count {
            if input[i] == UInt8(ascii: "%"), i + 2 < input.count,
                let v = UInt8(String(decoding: input[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(v)
                i += 3
            } else {
                bytes.append(input[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Firebase-style push ids for created records: 20 characters, "-N" first, sorting in
/// creation order. Deterministic: a counter, not a clock.
final class PushIds: @unchecked Sendable {
    private let lock = Lock()
    private var count = 0

    func next() -> String {
        let number = lock.withLock {
            count += 1
            return count
        }
        let digits = String(number)
        return "-NrW0demo" + String(repeating: "0", count: max(0, 11 - digits.count)) + digits
    }
}

/// Tags of `/fault/*-once/` requests already seen, so only a tag's first request fails.
final class SeenTags: @unchecked Sendable {
    private let lock = Lock()
    private var seen: Set<String> = []

    func firstTime(_ tag: String) -> Bool {
        lock.withLock { seen.insert(tag).inserted }
    }
}
