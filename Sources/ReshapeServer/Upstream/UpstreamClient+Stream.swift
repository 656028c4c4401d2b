import CCurl
import ReshapeProxy
import ReshapeRules

/// One upstream event stream across the redirects that led to it: the transfer open now.
final class UpstreamStream {
    /// The stream request, as the rule builds it (`Accept: text/event-stream`, no total timeout).
    let request: UpstreamRequest
    let stallSeconds: Int
    /// The transfer open now; nil between a redirect's end and the next hop, and once ended.
    fileprivate(set) var transfer: UpstreamTransfer?
    /// Redirects followed to reach the transfer open now.
    fileprivate(set) var hops = 0
    fileprivate let received: (UnsafeRawBufferPointer) -> Void
    /// Cleared when the stream is cancelled or has ended, so it runs at most once.
    fileprivate var ended: ((UpstreamResult) -> Void)?

    fileprivate init(
        request: UpstreamRequest, stallSeconds: Int, received: @escaping (UnsafeRawBufferPointer) -> Void,
        ended: @escaping (UpstreamResult) -> Void
    ) {
        self.request = request
        self.stallSeconds = stallSeconds
        self.received = received
        self.ended = ended
    }

    fileprivate func end(_ result: UpstreamResult) {
        let ended = self.ended
        self.ended = nil
        ended?(result)
    }
}

/// Event streams (`Accept: text/event-stream`) on the same multi handle and loop as fetches:
/// no total timeout, a stall bound instead, and the body handed on as it arrives. No retries
/// or circuit here: the live hub reconnects a stream itself. Redirects are followed as the
/// upstream's `redirects:` allows (`RedirectPolicy`), each reconnection from the rule's own URL.
extension UpstreamClient {
    /// Opens a stream for `request`. `received` gets the body's bytes as they arrive, once the
    /// upstream answered 200 with `text/event-stream` (any other answer's body is dropped); `ended` runs once when the
    /// stream ends, with its status or failure, unless it is cancelled first. A stream that
    /// sends nothing, comments included, for `stallSeconds` fails. nil: no transfer could be made.
    func startStream(
        _ request: UpstreamRequest, stallSeconds: Int,
        received: @escaping (UnsafeRawBufferPointer) -> Void,
        ended: @escaping (UpstreamResult) -> Void
    ) -> UpstreamStream? {
        var request = request
        request.headers.removeAll { $0.name.lowercased() == "accept" }
        request.headers.append(NameValue(name: "Accept", value: "text/event-stream"))
        request.timeoutMilliseconds = 0  // curl: no total timeout
        request.maxBodyBytes = Int(Int64.max)  // the body is handed on, not kept
        let stream = UpstreamStream(request: request, stallSeconds: stallSeconds, received: received, ended: ended)
        return openTransfer(of: stream, url: request.url) ? stream : nil
    }

    /// Opens the stream's transfer to `url`; false: no transfer could be made.
    private func openTransfer(of stream: UpstreamStream, url: String) -> Bool {
        guard let easy = idleHandles.popLast() ?? reshape_curl_easy_init() else { return false }
        var request = stream.request
        request.url = url
        sockets.idlePool(request.upstreamName, rule: request.idlePool)
        let transfer = UpstreamTransfer(
            easy: easy, headerList: headerList(for: request), maxBodyBytes: request.maxBodyBytes
        ) { [unowned self] result, end in self.transferEnded(of: stream, result, end) }
        var isStream: Bool?
        let received = stream.received
        transfer.streamHandler = { [unowned transfer] bytes in
            if isStream == nil { isStream = Self.isEventStream(transfer.easy) }
            guard isStream == true else { return }
            received(bytes)
        }
        transfer.configure(for: request, sockets: sockets)
        reshape_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        reshape_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, stream.stallSeconds))
        stream.transfer = transfer
        transfers.insert(ObjectIdentifier(transfer))
        reshape_curl_multi_add_handle(multi, easy)
        return true
    }

    /// A stream's transfer ended: a redirect the policy allows opens the next hop, one it
    /// refuses ends the stream with `redirect-refused`; anything else ends it as it ended.
    private func transferEnded(of stream: UpstreamStream, _ result: UpstreamResult, _ end: AttemptEnd) {
        stream.transfer = nil
        guard case .redirected(let status, let location) = end, let policy = stream.request.redirects else {
            return stream.end(result)
        }
        let upstream = stream.request.upstreamName
        switch policy.decide(status: status, location: location, method: "GET", hopsDone: stream.hops) {
        case .follow(let url):
            metrics.upstreamRedirected(upstream: upstream, followed: true)
            stream.hops += 1
            if !openTransfer(of: stream, url: url) {
                stream.end(.failure(.other, message: "cannot create a transfer"))
            }
        case .refuse(let reason):
            metrics.upstreamRedirected(upstream: upstream, followed: false)
            stream.end(.failure(.redirectRefused, message: reason))
        }
    }

    /// Whether the answer curl has the head of is a 200 `text/event-stream`.
    private static func isEventStream(_ easy: UnsafeMutableRawPointer) -> Bool {
        var status = 0
        reshape_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        var type: UnsafeMutableRawPointer?
        reshape_easy_getinfo_pointer(easy, CURLINFO_CONTENT_TYPE, &type)
        guard status == 200, let type else { return false }
        return String(cString: type.assumingMemoryBound(to: CChar.self)).lowercased().hasPrefix("text/event-stream")
    }

    /// Closes a stream now; its `ended` never runs. Not from inside its `received`: curl's
    /// callbacks may not remove their own transfer.
    func cancelStream(_ stream: UpstreamStream) {
        stream.ended = nil
        guard let transfer = stream.transfer, transfers.remove(ObjectIdentifier(transfer)) != nil else { return }
        stream.transfer = nil
        transfer.completion = nil
        transfer.streamHandler = nil
        release(transfer)
    }
}
