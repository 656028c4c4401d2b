import CCurl
import Glibc
import ReshapeProxy
import ReshapeRules

/// One fetch in flight: a curl easy handle set up for its request, the header list it sends
/// and the body it receives. Retained by the multi handle (via CURLOPT_PRIVATE) until it
/// finishes or is cancelled; `UpstreamClient.release` gives that retain back.
final class UpstreamTransfer {
    let easy: UnsafeMutableRawPointer
    /// Held for as long as curl may read it.
    let headerList: HeaderList
    /// This fetch's own header lines (its trace headers), in nodes linked in front of the
    /// shared `headerList`: curl reads one list, and the shared part is built once, not per fetch.
    private var ownLines: (first: UnsafeMutablePointer<curl_slist>, count: Int)?
    private(set) var body: [UInt8] = []
    let maxBodyBytes: Int
    /// The body outgrew `maxBodyBytes` as it arrived (without a Content-Length that said so first).
    private(set) var exceededLimit = false
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Cleared when the transfer is cancelled, so it never runs.
    var completion: ((UpstreamResult, AttemptEnd) -> Void)?
    /// An event stream's body goes here as it arrives, instead of into `body`.
    var streamHandler: ((UnsafeRawBufferPointer) -> Void)?
    /// The upstream whose connections this transfer opens, for the idle pool.
    private(set) var upstreamName = ""
    /// Where the connections it opens are watched. Strong: a weak reference's side table is
    /// held by pointer bits LeakSanitizer cannot follow, and nothing here refers back.
    private(set) var sockets: SocketWatches?
    /// Where a large body's buffer comes from (and goes back to when the fetch is done).
    var spareBodies: SpareBodies?
    /// Asked whether the body may take what it needs, for the memory budget: its
    /// `Content-Length` when the headers say (`exact`), else each time it grows past what was
    /// said (in `sizeStep`s). False pauses the transfer until the budget has room.
    var sized: ((_ bytes: Int, _ exact: Bool) -> Bool)?
    private var saidSize = 0
    private static let sizeStep = 64 << 10

    init(
        easy: UnsafeMutableRawPointer, headerList: HeaderList, maxBodyBytes: Int,
        completion: @escaping (UpstreamResult, AttemptEnd) -> Void
    ) {
        self.easy = easy
        self.headerList = headerList
        self.maxBodyBytes = maxBodyBytes
        self.completion = completion
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
        freeOwnLines()
    }

    /// The list curl sends: `lines` in nodes of this transfer's own, then the shared list.
    private func linkOwnLines(_ lines: [NameValue]) -> UnsafeMutablePointer<curl_slist>? {
        freeOwnLines()
        var head = headerList.list
        for line in lines.reversed() {
            let node = UnsafeMutablePointer<curl_slist>.allocate(capacity: 1)
            node.initialize(to: curl_slist(data: strdup(HeaderList.line(for: line)), next: head))
            head = node
        }
        if let head, !lines.isEmpty { ownLines = (head, lines.count) }
        return head
    }

    /// Frees only the nodes `linkOwnLines` made; the shared list is its `HeaderList`'s.
    private func freeOwnLines() {
        guard let (first, count) = ownLines else { return }
        var node: UnsafeMutablePointer<curl_slist>? = first
        for _ in 0..<count {
            guard let current = node else { break }
            node = current.pointee.next
            free(current.pointee.data)
            current.deallocate()
        }
        ownLines = nil
    }

    /// Sets the easy handle up for `request`, the handle's sockets watched by `sockets`, and
    /// retains this transfer for curl.
    func configure(for request: UpstreamRequest, sockets: SocketWatches) {
        let retained = Unmanaged.passRetained(self).toOpaque()
        upstreamName = request.upstreamName
        self.sockets = sockets
        reshape_easy_setopt_string(easy, CURLOPT_URL, request.url)
        reshape_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        reshape_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        reshape_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        reshape_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds)
        reshape_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMilliseconds)
        reshape_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")  // every encoding curl was built with
        reshape_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Waiting for a connection being set up, to learn whether it multiplexes, pays over TLS,
        // where ALPN says so during the handshake. Over cleartext it is HTTP/1.1, and curl only
        // learns that from the first response: a route's parallel fetches would wait for it
        // and then queue on one connection instead of each opening its own.
        if request.url.hasPrefix("https:") { reshape_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1) }
        reshape_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBodyBytes))
        reshape_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1)
        reshape_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2)
        reshape_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        reshape_easy_setopt_pointer(easy, CURLOPT_PRIVATE, retained)
        reshape_easy_setopt_write_function(easy, upstreamWriteCallback)
        // curl never reuses a connection idle longer than the pool keeps one; the pool's sweep
        // closes those that nobody asks for.
        let maxAge = max(1, (request.idlePool.idleTimeoutMilliseconds + 999) / 1000)
        reshape_easy_setopt_long(easy, CURLOPT_MAXAGE_CONN, maxAge)
        let watches = Unmanaged.passUnretained(sockets).toOpaque()
        reshape_easy_setopt_opensocket_function(easy, upstreamOpenSocketCallback)
        // The transfer, not the watches: a new connection belongs to this transfer's upstream.
        reshape_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, retained)
        reshape_easy_setopt_closesocket_function(easy, upstreamCloseSocketCallback)
        reshape_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, watches)
        reshape_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, retained)
        if request.method != "GET" { reshape_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        // curl sends a request again, on a new connection, when a reused one turns out closed
        // before any answer byte; for a fetch that must not be sent twice (a POST) that could be a
        // second write upstream. A connection of its own leaves curl nothing to resend.
        if !request.retryable { reshape_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1) }
        if let body = request.body {
            setBody(body)
        } else if request.method == "POST" || request.method == "PUT" || request.method == "PATCH" {
            setBody([])  // `Content-Length: 0`: some servers refuse a write without a length (411)
        }
        reshape_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, linkOwnLines(request.traceHeaders))
    }

    /// Sends `body` with its length. curl copies it (and frees the copy when the handle is
    /// reset or cleaned up), so nothing here must outlive this call; `Content-Type` is among
    /// the request's headers, which replaces the form type curl would send by default.
    private func setBody(_ body: [UInt8]) {
        reshape_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        body.withUnsafeBytes { bytes in
            // An empty array may have no storage: curl still needs a valid pointer.
            var empty: UInt8 = 0
            if let base = bytes.baseAddress, !bytes.isEmpty {
                reshape_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: base))
            } else {
                reshape_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, &empty)
            }
        }
    }

    /// What became of a piece of the body.
    enum Receipt {
        case kept
        /// Past `maxBodyBytes`: the transfer fails.
        case refused
        /// The memory budget has no room: curl holds the piece until the transfer is resumed.
        case paused
    }

    /// Keeps a piece of the body curl received, refuses it (past `maxBodyBytes`), or pauses.
    func receive(_ data: UnsafeRawBufferPointer) -> Receipt {
        if let streamHandler {
            streamHandler(data)
            return .kept
        }
        guard body.count + data.count <= maxBodyBytes else {
            exceededLimit = true
            return .refused
        }
        if body.isEmpty {
            // Sized once from Content-Length, when sent: growing by doubling would copy a large
            // body several times and leave up to twice its size allocated.
            var length: curl_off_t = -1
            reshape_easy_getinfo_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
            if length > 0 && length <= maxBodyBytes {
                if let sized, !sized(Int(length), true) { return .paused }
                saidSize = Int(length)
                if let spareBodies {
                    body = spareBodies.take(capacity: Int(length))
                } else {
                    body.reserveCapacity(Int(length))
                }
            }
        }
        if body.count + data.count > saidSize, let sized {
            let needed = ((body.count + data.count) / Self.sizeStep + 1) * Self.sizeStep
            guard sized(needed, false) else { return .paused }
            saidSize = needed
        }
        body.append(contentsOf: data)
        return .kept
    }
}
