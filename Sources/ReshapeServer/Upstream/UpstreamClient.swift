import CCurl
import CLibUV
import Glibc
import ReshapeProxy
import ReshapeRules

// The upstream client: one curl multi handle driven by the worker's libuv loop, after curl's
// docs/examples/multi-uv.c. curl says which sockets to watch (socket callback → uv_poll) and
// when to wake it (timer callback → uv_timer); we call curl_multi_socket_action and drain
// finished transfers. Nothing blocks the loop: DNS, connect, TLS and transfer all run here.

/// One fetch in flight. Retained by the multi handle (via CURLOPT_PRIVATE) until it finishes
/// or is cancelled.
final class UpstreamTransfer {
    fileprivate let easy: UnsafeMutableRawPointer
    /// Held for as long as curl may read it.
    fileprivate let headerList: HeaderList
    fileprivate var body: [UInt8] = []
    fileprivate let maxBodyBytes: Int
    fileprivate var exceededLimit = false
    fileprivate let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    fileprivate let started = Clock.now()
    fileprivate var completion: ((UpstreamResult, Double) -> Void)?

    fileprivate init(easy: UnsafeMutableRawPointer, headerList: HeaderList, maxBodyBytes: Int,
                     completion: @escaping (UpstreamResult, Double) -> Void) {
        self.easy = easy
        self.headerList = headerList
        self.maxBodyBytes = maxBodyBytes
        self.completion = completion
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
    }
}

/// A request's headers as the curl list its transfer sends. Lists that recur (an upstream's
/// own headers, a route's fixed ones) are built once and shared, not per request; transfers
/// keep the list they started with alive, so a reload that changes the headers never frees a
/// list curl is still reading.
final class HeaderList {
    let headers: [NameValue]
    let forBody: Bool
    let list: UnsafeMutablePointer<curl_slist>?

    init(_ headers: [NameValue], forBody: Bool) {
        self.headers = headers
        self.forBody = forBody
        var list: UnsafeMutablePointer<curl_slist>?
        // curl reads `Name:` with nothing after it as "remove this header"; `Name;` sends it empty.
        for header in headers {
            list = curl_slist_append(list, header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)")
        }
        // curl would add `Expect: 100-continue` to a large body and wait for the upstream's
        // interim answer (up to a second) before sending it; an empty value stops that. Only
        // with a body: curl compares every list entry against the headers it sets itself, per
        // transfer, so a GET's list carries nothing it does not need.
        if forBody { list = curl_slist_append(list, "Expect:") }
        self.list = list
    }

    deinit { curl_slist_free_all(list) }
}

/// One upstream socket's uv_poll handle, kept for the socket's whole life rather than per
/// transfer: a kept-alive connection serves many requests, and re-creating the handle for each
/// cost an allocation, an ioctl and several epoll_ctl calls per request. It is closed when curl
/// closes the socket (CURLOPT_CLOSESOCKETFUNCTION). Only sockets curl opened through
/// CURLOPT_OPENSOCKETFUNCTION are kept so: others (the threaded resolver's socketpair) are
/// closed by curl directly, so their handle goes when curl stops watching them.
private final class SocketWatch {
    let poll = UnsafeMutablePointer<uv_poll_t>.allocate(capacity: 1)
    let fd: curl_socket_t
    unowned let client: UpstreamClient
    /// The uv events being polled now (0 when stopped).
    var polled: Int32 = 0
    /// Whether curl currently wants events for this socket.
    var wanted = false
    /// A connection socket (kept until curl closes it), not a helper descriptor.
    let isConnection: Bool

    init(fd: curl_socket_t, client: UpstreamClient, isConnection: Bool) {
        self.fd = fd
        self.client = client
        self.isConnection = isConnection
    }
}

final class UpstreamClient {
    private let loop: UnsafeMutablePointer<uv_loop_t>
    private let multi: UnsafeMutableRawPointer
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var transfers: Set<ObjectIdentifier> = []
    /// Finished easy handles, reset for reuse: creating one per request costs allocations and
    /// setup that a reset avoids. Connections live in the multi handle's cache either way.
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private static let maxIdleHandles = 256
    /// Recurring header lists, a few per upstream (see `headerList(for:)`).
    private var headerLists: [String: [HeaderList]] = [:]
    /// Hashes of header sets recently built for one request only, per upstream: a set seen
    /// again is cached. Only hashes, so no forwarded credential is kept for the purpose.
    private var recentMisses: [String: [Int]] = [:]
    private static let cachedListsPerUpstream = 4
    private static let rememberedMisses = 16
    private var watches: [curl_socket_t: SocketWatch] = [:]
    /// Sockets curl opened through `socketOpening` and has not closed yet.
    private var connectionSockets: Set<curl_socket_t> = []

    private let metrics: Metrics

    init(loop: UnsafeMutablePointer<uv_loop_t>, metrics: Metrics) {
        self.loop = loop
        self.metrics = metrics
        multi = curl_multi_init()
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let me = Unmanaged.passUnretained(self).toOpaque()
        reshape_multi_setopt_socket_function(multi, upstreamSocketCallback)
        reshape_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, me)
        reshape_multi_setopt_timer_function(multi, upstreamTimerCallback)
        reshape_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, me)
        reshape_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 64)
        reshape_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 256)
        reshape_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    /// Starts a fetch; `completion` runs on this loop unless the transfer is cancelled first.
    func start(_ request: UpstreamRequest, completion: @escaping (UpstreamResult, Double) -> Void) -> UpstreamTransfer? {
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
            completion(.failure(.other, message: "cannot create a transfer"), 0)
            return nil
        }
        let transfer = UpstreamTransfer(easy: easy, headerList: headerList(for: request), maxBodyBytes: request.maxBodyBytes,
                                        completion: completion)
        let retained = Unmanaged.passRetained(transfer).toOpaque()
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
        reshape_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        reshape_easy_setopt_pointer(easy, CURLOPT_PRIVATE, retained)
        reshape_easy_setopt_write_function(easy, upstreamWriteCallback)
        let me = Unmanaged.passUnretained(self).toOpaque()
        reshape_easy_setopt_opensocket_function(easy, upstreamOpenSocketCallback)
        reshape_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, me)
        reshape_easy_setopt_closesocket_function(easy, upstreamCloseSocketCallback)
        reshape_easy_setopt_pointer(easy, CURLOPT_CLOSESOCKETDATA, me)
        reshape_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, retained)
        if request.method != "GET" { reshape_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        if let body = request.body {
            setBody(body, on: easy)
        } else if request.method == "POST" || request.method == "PUT" || request.method == "PATCH" {
            setBody([], on: easy)  // `Content-Length: 0`: some servers refuse a write without a length (411)
        }
        reshape_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headerList.list)
        transfers.insert(ObjectIdentifier(transfer))
        curl_multi_add_handle(multi, easy)
        return transfer
    }

    /// Sends `body` with its length. curl copies it (and frees the copy when the handle is
    /// reset or cleaned up), so nothing here must outlive this call; `Content-Type` is among
    /// the request's headers, which replaces the form type curl would send by default.
    private func setBody(_ body: [UInt8], on easy: UnsafeMutableRawPointer) {
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

    /// The curl list for a request's headers. A set that recurs (the upstream's headers plus a
    /// route's fixed ones) is cached; one carrying forwarded client headers usually differs per
    /// request and is built for that request alone. Lists are only ever reused for an exactly
    /// equal header set, so one client's headers are never sent on another's request.
    private func headerList(for request: UpstreamRequest) -> HeaderList {
        let name = request.upstreamName
        let forBody = request.body != nil || request.method != "GET"
        if let list = headerLists[name]?.first(where: { $0.forBody == forBody && $0.headers == request.headers }) { return list }
        let list = HeaderList(request.headers, forBody: forBody)
        var hasher = Hasher()
        for header in request.headers {
            hasher.combine(header.name)
            hasher.combine(header.value)
        }
        let hash = hasher.finalize()
        var misses = recentMisses[name, default: []]
        if let index = misses.firstIndex(of: hash) {
            misses.remove(at: index)
            var lists = headerLists[name, default: []]
            if lists.count >= UpstreamClient.cachedListsPerUpstream { lists.removeFirst() }
            lists.append(list)
            headerLists[name] = lists
        } else {
            if misses.count >= UpstreamClient.rememberedMisses { misses.removeFirst() }
            misses.append(hash)
        }
        recentMisses[name] = misses
        return list
    }

    /// Removes a transfer at once (its client went away); its completion never runs.
    func cancel(_ transfer: UpstreamTransfer) {
        guard transfers.remove(ObjectIdentifier(transfer)) != nil else { return }
        transfer.completion = nil
        release(transfer)
    }

    /// Stops the timer and frees the multi handle; call when no transfer is left.
    func close() {
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        headerLists.removeAll()
        recentMisses.removeAll()
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { handle in
            handle?.deallocate()
        }
        curl_multi_cleanup(multi)
    }

    private func release(_ transfer: UpstreamTransfer) {
        curl_multi_remove_handle(multi, transfer.easy)
        if idleHandles.count < UpstreamClient.maxIdleHandles {
            curl_easy_reset(transfer.easy)
            idleHandles.append(transfer.easy)
        } else {
            curl_easy_cleanup(transfer.easy)
        }
        Unmanaged.passUnretained(transfer).release()
    }

    // MARK: - curl callbacks

    fileprivate func watch(socket fd: curl_socket_t, action: Int32) {
        if action == reshape_curl_poll_remove {
            // Keep the handle for the connection's next request. An idle kept-alive socket only
            // stays polled for reading (EOF from the upstream is then noticed and stops it);
            // polling it for writing would wake the loop for nothing.
            guard let watch = watches[fd] else { return }
            guard watch.isConnection else { return closeWatch(fd) }
            watch.wanted = false
            if watch.polled & Int32(UV_WRITABLE.rawValue) != 0 { stopPolling(watch) }
            return
        }
        let watch: SocketWatch
        if let existing = watches[fd] {
            watch = existing
        } else {
            watch = SocketWatch(fd: fd, client: self, isConnection: connectionSockets.contains(fd))
            uv_poll_init_socket(loop, watch.poll, fd)
            watch.poll.pointee.data = Unmanaged.passRetained(watch).toOpaque()
            watches[fd] = watch
        }
        watch.wanted = true
        var events: Int32 = 0
        if action == reshape_curl_poll_in || action == reshape_curl_poll_inout { events |= Int32(UV_READABLE.rawValue) }
        if action == reshape_curl_poll_out || action == reshape_curl_poll_inout { events |= Int32(UV_WRITABLE.rawValue) }
        guard events != watch.polled else { return }
        watch.polled = events
        uv_poll_start(watch.poll, events) { poll, status, events in
            guard let poll, let data = poll.pointee.data else { return }
            let watch = Unmanaged<SocketWatch>.fromOpaque(data).takeUnretainedValue()
            watch.client.pollEvent(watch, status: status, events: events)
        }
    }

    private func pollEvent(_ watch: SocketWatch, status: Int32, events: Int32) {
        guard watch.wanted else {
            // Data or EOF on an idle connection: curl checks the connection before reusing it.
            stopPolling(watch)
            return
        }
        var flags: Int32 = 0
        if status < 0 {
            flags = reshape_curl_csel_err
        } else {
            if events & Int32(UV_READABLE.rawValue) != 0 { flags |= reshape_curl_csel_in }
            if events & Int32(UV_WRITABLE.rawValue) != 0 { flags |= reshape_curl_csel_out }
        }
        socketAction(watch.fd, flags)
    }

    private func stopPolling(_ watch: SocketWatch) {
        uv_poll_stop(watch.poll)
        watch.polled = 0
    }

    fileprivate func socketOpening(family: Int32, type: Int32, protocol: Int32) -> curl_socket_t {
        let fd = socket(family, type, `protocol`)
        if fd >= 0 {
            connectionSockets.insert(fd)
            metrics.upstreamConnectionOpened()
        }
        return fd
    }

    /// curl is closing a socket: its poll handle goes first, so a new socket that gets the
    /// same descriptor starts clean.
    fileprivate func socketClosing(_ fd: curl_socket_t) {
        connectionSockets.remove(fd)
        closeWatch(fd)
        Glibc.close(fd)
    }

    private func closeWatch(_ fd: curl_socket_t) {
        guard let watch = watches.removeValue(forKey: fd) else { return }
        uv_poll_stop(watch.poll)
        uv_close(reshape_poll_handle(watch.poll)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            let watch = Unmanaged<SocketWatch>.fromOpaque(data).takeRetainedValue()
            watch.poll.deallocate()
        }
    }

    fileprivate func schedule(timeoutMilliseconds: Int) {
        if timeoutMilliseconds < 0 {
            uv_timer_stop(timer)
            return
        }
        // 0 means "now": run it on the loop's next turn rather than from inside curl's
        // callback (a new transfer then starts without waiting a millisecond).
        uv_timer_start(timer, { timer in
            guard let timer, let data = timer.pointee.data else { return }
            Unmanaged<UpstreamClient>.fromOpaque(data).takeUnretainedValue().socketAction(reshape_curl_socket_timeout, 0)
        }, UInt64(timeoutMilliseconds), 0)
    }

    private func socketAction(_ fd: curl_socket_t, _ flags: Int32) {
        var running: Int32 = 0
        curl_multi_socket_action(multi, fd, flags, &running)
        drainFinished()
    }

    private func drainFinished() {
        var pending: Int32 = 0
        while let message = curl_multi_info_read(multi, &pending) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var privatePointer: UnsafeMutableRawPointer?
            reshape_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<UpstreamTransfer>.fromOpaque(privatePointer).takeUnretainedValue()
            let result = outcome(of: transfer, code: code)
            let seconds = Clock.seconds(since: transfer.started)
            let completion = transfer.completion
            transfers.remove(ObjectIdentifier(transfer))
            release(transfer)
            completion?(result, seconds)
        }
    }

    private func outcome(of transfer: UpstreamTransfer, code: CURLcode) -> UpstreamResult {
        if code == CURLE_OK {
            var status = 0
            reshape_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            var contentType: UnsafeMutableRawPointer?
            reshape_easy_getinfo_pointer(transfer.easy, CURLINFO_CONTENT_TYPE, &contentType)
            let type = contentType.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            let success = (200..<300).contains(status)
            return .response(UpstreamResponse(status: status, contentType: type, body: transfer.body,
                             retryAfter: status >= 400 ? UpstreamClient.retryAfter(of: transfer.easy) : nil,
                             cacheControl: success ? UpstreamClient.cacheControl(of: transfer.easy) : nil))
        }
        let detail = String(cString: transfer.errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(.tooLarge, message: "the upstream body exceeds \(transfer.maxBodyBytes) bytes")
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return .failure(.dns, message: message)
        case CURLE_COULDNT_CONNECT: return .failure(.connect, message: message)
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timeout, message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            return .failure(.tls, message: message)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING:
            return .failure(.transfer, message: message)
        default: return .failure(.other, message: message)
        }
    }

    /// The upstream's `Retry-After` (the last one, if it sent several), read from the headers
    /// curl keeps for the finished transfer.
    private static func retryAfter(of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, "Retry-After", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let first = header else { return nil }
        let amount = first.pointee.amount
        if amount > 1 {
            var last: UnsafeMutablePointer<curl_header>?
            if curl_easy_header(easy, "Retry-After", amount - 1, UInt32(CURLH_HEADER), -1, &last) == CURLHE_OK,
               let value = last?.pointee.value {
                return String(cString: value)
            }
        }
        return first.pointee.value.map { String(cString: $0) }
    }

    /// Every `Cache-Control` header of the answer, joined as one list (RFC 9110 §5.3).
    private static func cacheControl(of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, "Cache-Control", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let first = header else { return nil }
        var values: [String] = []
        for index in 0..<first.pointee.amount {
            var each: UnsafeMutablePointer<curl_header>?
            if curl_easy_header(easy, "Cache-Control", index, UInt32(CURLH_HEADER), -1, &each) == CURLHE_OK,
               let value = each?.pointee.value {
                values.append(String(cString: value))
            }
        }
        return values.joined(separator: ", ")
    }

    fileprivate static func append(_ data: UnsafeRawBufferPointer, to transfer: UpstreamTransfer) -> Bool {
        guard transfer.body.count + data.count <= transfer.maxBodyBytes else {
            transfer.exceededLimit = true
            return false
        }
        if transfer.body.isEmpty {
            // Sized once from Content-Length, when sent: growing by doubling would copy a large
            // body several times and leave up to twice its size allocated.
            var length: curl_off_t = -1
            reshape_easy_getinfo_off(transfer.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
            if length > 0 && length <= transfer.maxBodyBytes { transfer.body.reserveCapacity(Int(length)) }
        }
        transfer.body.append(contentsOf: data)
        return true
    }
}

private let upstreamSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, Int32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
    _, fd, action, client, _ in
    guard let client else { return 0 }
    Unmanaged<UpstreamClient>.fromOpaque(client).takeUnretainedValue().watch(socket: fd, action: action)
    return 0
}

private let upstreamOpenSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = {
    client, _, address in
    guard let client, let address else { return CURL_SOCKET_BAD }
    return Unmanaged<UpstreamClient>.fromOpaque(client).takeUnretainedValue()
        .socketOpening(family: address.pointee.family, type: address.pointee.socktype, protocol: address.pointee.protocol)
}

private let upstreamCloseSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = { client, fd in
    guard let client else { return Glibc.close(fd) }
    Unmanaged<UpstreamClient>.fromOpaque(client).takeUnretainedValue().socketClosing(fd)
    return 0
}

private let upstreamTimerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, timeout, client in
    guard let client else { return 0 }
    Unmanaged<UpstreamClient>.fromOpaque(client).takeUnretainedValue().schedule(timeoutMilliseconds: timeout)
    return 0
}

private let upstreamWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, userData in
    guard let data, let userData else { return 0 }
    let transfer = Unmanaged<UpstreamTransfer>.fromOpaque(userData).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    // Returning less than was given makes curl fail with CURLE_WRITE_ERROR: an oversized
    // body is refused, never truncated.
    return UpstreamClient.append(bytes, to: transfer) ? size * count : 0
}
