import ReshapeRules

/// The machine's vocabulary: what the driver reports (`Event`), what it is told to do
/// (`Action`), and the states' names. The states and transitions are in
/// HTTPConnectionStateMachine.swift.
extension HTTPConnectionStateMachine {
    /// The current state's case name (docs/architecture.md draws them).
    package var stateName: String { name.rawValue }

    /// Each state's name, one case per `State` case, in declaration order: the diagram test
    /// reads them from here.
    package enum StateName: String, CaseIterable, Sendable {
        case awaitingFirstRequest, idle, readingHead, readingBody, readingDone, streaming, closed
    }

    var name: StateName {
        switch state {
        case .awaitingFirstRequest: .awaitingFirstRequest
        case .idle: .idle
        case .readingHead: .readingHead
        case .readingBody: .readingBody
        case .readingDone: .readingDone
        case .streaming: .streaming
        case .closed: .closed
        }
    }

    package enum Event: Sendable {
        /// The parser saw the first byte of a request.
        case messageBegan
        /// A piece of the request target.
        case urlBytes(Int)
        /// Pieces of header (or chunked trailer) names and values: `bytes` of them, `fields` of
        /// which begin a new field. The driver may gather a read's pieces into one event.
        case headerBytes(fields: Int, bytes: Int)
        /// The head is complete; `head` is what it says about the body to come.
        case headersComplete(RequestHead)
        /// A piece of the body, after any chunked framing.
        case bodyBytes(Int)
        /// The request is complete, body included.
        case messageComplete(HTTPRequest)
        /// The parser refused the bytes; `reason` is its error name (e.g. `HPE_INVALID_CHUNK_SIZE`).
        case parseError(reason: String)
        /// The client closed its side, or the socket failed.
        case peerClosed
        /// The answer to the request dispatched with `id`.
        case responseReady(id: Int, HTTPResponse)
        /// The same, rendered already (a cached answer's kept head).
        case renderedReady(id: Int, RenderedAnswer)
        /// The answer to the request dispatched with `id` is a live stream: its head is written
        /// in turn, then `streamOpened`.
        case streamReady(id: Int, headers: [NameValue] = [])
        /// The live stream ended and its last event is written: end the answer and close.
        case streamEnded
        /// The header timer ran out (`startHeaderTimer`).
        case headerTimeout
        /// The body timer ran out (`startBodyTimer`).
        case bodyTimeout
        /// The idle timer ran out (`startIdleTimer`).
        case idleTimeout
        /// Bytes written to the client have waited for the socket for the idle timeout with
        /// none going out (the driver's send timer, armed while written bytes wait and again
        /// whenever some go out): the client reads nothing.
        case sendTimeout
        /// The server is shutting down: finish what was read, keep nothing alive.
        case drain
    }

    package enum Action: Sendable, Equatable {
        /// Run the request; its answer comes back as `responseReady(id:)`.
        case dispatch(id: Int, HTTPRequest)
        /// A response's head and body, kept apart so a large body is written from where it was
        /// rendered (one `writev`) instead of being copied behind its head. `answer`: the id of
        /// the request it answers, whose memory is held until the write is done; nil for an
        /// interim `100 Continue` or a stream's head and end.
        case write(head: [UInt8], body: [UInt8], answer: Int? = nil)
        /// Close once queued writes are done: the client's end came (or its socket failed),
        /// so nothing it sends is left to read.
        case close
        /// Close once queued writes are done, lingering: every close the server decides (after
        /// an answer that does not keep alive, a refusal, a drain, an idle connection, a
        /// stream's end), since the client may still be sending: a refusal or a
        /// `Connection: close` stopped reading with its input unread, pipelined requests wait
        /// behind a paused read, or a request crosses the close. Closed with bytes unread, the
        /// socket would answer them with a reset, which can drop answers before the client
        /// reads them (RFC 9112 §9.6); so the sending side is shut down after the last write,
        /// and what still comes is read and discarded until the client closes its side, for a
        /// bounded time and size.
        case lingeringClose
        /// Close now, dropping the writes still queued (and the memory their answers hold):
        /// the client takes none of them.
        case abort
        /// The client is gone: stop the upstream work for this request.
        case cancel(id: Int)
        /// The stream's head is written: its events may follow, and the socket is read only to
        /// notice the client leaving.
        case streamOpened(id: Int)
        /// Read no more requests from this connection, ever.
        case stopReading
        /// Stop reading for now: as many requests as may be pipelined await their answers.
        case pauseReading
        /// Read again after `pauseReading` (unless reading stopped meanwhile).
        case resumeReading
        /// From the start of a request head (or of the connection) to the head's end.
        case startHeaderTimer
        /// The head is complete, or the connection stops reading.
        case stopHeaderTimer
        /// From a complete head to the end of its body (`bodyTimeoutMilliseconds`). Never runs
        /// with the header timer, so both may share one timer.
        case startBodyTimer
        /// The body is complete, or the request was refused.
        case stopBodyTimer
        /// A request was refused `503 load-shed` at its head, its body unread, because the loop
        /// runs late (`shedding`): count it as shed.
        case shedAtHead
        /// No request is being read and none awaits its answer.
        case startIdleTimer
        /// A request begins.
        case stopIdleTimer
    }

    /// The sizes of the request being read, checked against `limits` as they grow.
    struct RequestCounts: Sendable, Equatable {
        var urlBytes = 0
        /// The target and every header name and value; trailers count on after the head.
        var headerBytes = 0
        var headerCount = 0
        var bodyBytes = 0

        func adding(headerBytes bytes: Int, fields: Int) -> RequestCounts {
            var counts = self
            counts.headerBytes += bytes
            counts.headerCount += fields
            return counts
        }
    }
}
