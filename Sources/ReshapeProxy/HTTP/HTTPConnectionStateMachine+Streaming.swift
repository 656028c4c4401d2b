import ReshapeRules
import ReshapeStateMachines

/// A live route's answer as the connection writes it: a head, then chunks the server writes
/// itself, and the last chunk once the stream ends. See `State.streaming`.
extension HTTPConnectionStateMachine {
    mutating func streamReady(_ id: Int, headers: [NameValue]) -> [Action] {
        switch state {
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody, .readingDone:
            guard let index = slots.firstIndex(where: { $0.id == id }), slots[index].isPending,
                !slots[index].headOnly
            else {
                impossible("streamReady(id: \(id))", in: stateName)
            }
            slots[index].answer = .stream(headers)
            return flush()
        case .closed: return []
        case .streaming: impossible("streamReady(id: \(id))", in: stateName)
        }
    }

    /// The stream ended (its last event is written): the last chunk, then close.
    mutating func streamEnded() -> [Action] {
        switch state {
        case .streaming:
            state = .closed
            return [.write(head: Self.lastChunk, body: []), .lingeringClose]
        // The client left first.
        case .closed: return []
        case .awaitingFirstRequest, .idle, .readingHead, .readingBody, .readingDone:
            impossible("streamEnded", in: stateName)
        }
    }

    /// Writes a stream's head; the requests read after it are cancelled, and the socket is
    /// only watched for the client leaving from now on.
    mutating func openStream(_ id: Int, headers: [NameValue]) -> [Action] {
        var actions: [Action] = [.write(head: Self.streamHead(date: date, headers: headers), body: [])]
        switch state {
        case .readingBody(_, .body), .readingBody(_, .bodyAfterContinue): actions.append(.stopBodyTimer)
        case .readingHead, .awaitingFirstRequest: actions.append(.stopHeaderTimer)
        case .idle, .readingBody(_, .none), .readingDone: break
        case .streaming, .closed: impossible("openStream", in: stateName)
        }
        actions.append(.stopIdleTimer)
        // Later streams too: one connection carries one stream.
        actions += slots.filter(\.hasWork).map { .cancel(id: $0.id) }
        slots.removeAll()
        paused = false
        state = .streaming(id: id)
        actions.append(.streamOpened(id: id))
        return actions
    }

    /// A live stream's head: chunked, never stored, and the connection ends with the stream.
    static func streamHead(date: String, headers: [NameValue] = []) -> [UInt8] {
        var head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        head += "Transfer-Encoding: chunked\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        if !date.isEmpty { head += "Date: \(date)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)
}
