import CCurl
import ReshapeProxy
import ReshapeRules

/// Event streams (`Accept: text/event-stream`) on the same multi handle and loop as fetches:
/// no total timeout, a stall bound instead, and the body handed on as it arrives. No retries
/// or circuit here: the live hub reconnects a stream itself.
extension UpstreamClient {
    /// Opens a stream for `request`. `received` gets the body's bytes as they arrive, once the
    /// upstream answered 200 with `text/event-stream` (any other answer's body is dropped); `ended` runs once when the
    /// transfer ends, with its status or failure, unless it is cancelled first. A stream that
    /// sends nothing, comments included, for `stallSeconds` fails. nil: no transfer could be made.
    func startStream(
        _ request: UpstreamRequest, stallSeconds: Int,
        received: @escaping (UnsafeRawBufferPointer) -> Void,
        ended: @escaping (UpstreamResult) -> Void
    ) -> UpstreamTransfer? {
        var request = request
        request.headers.removeAll { $0.name.lowercased() == "accept" }
        request.headers.append(NameValue(name: "Accept", value: "text/event-stream"))
        request.timeoutMilliseconds = 0  // curl: no total timeout
        request.maxBodyBytes = Int(Int64.max)  // the body is handed on, not kept
        guard let easy = idleHandles.popLast() ?? curl_easy_init() else { return nil }
        sockets.idlePool(request.upstreamName, rule: request.idlePool)
        let transfer = UpstreamTransfer(
            easy: easy, headerList: headerList(for: request), maxBodyBytes: request.maxBodyBytes
        ) { result, _ in ended(result) }
        var isStream: Bool?
        transfer.streamHandler = { [unowned transfer] bytes in
            if isStream == nil { isStream = Self.isEventStream(transfer.easy) }
            guard isStream == true else { return }
            received(bytes)
        }
        transfer.configure(for: request, sockets: sockets)
        reshape_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        reshape_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, stallSeconds))
        transfers.insert(ObjectIdentifier(transfer))
        curl_multi_add_handle(multi, easy)
        return transfer
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
    func cancelStream(_ transfer: UpstreamTransfer) {
        guard transfers.remove(ObjectIdentifier(transfer)) != nil else { return }
        transfer.completion = nil
        transfer.streamHandler = nil
        release(transfer)
    }
}
