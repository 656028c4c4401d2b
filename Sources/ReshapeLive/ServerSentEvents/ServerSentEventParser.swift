/// Reads a `text/event-stream` as it arrives, in chunks cut anywhere (inside a line, inside a
/// UTF-8 sequence, between CR and LF), and dispatches whole events (WHATWG HTML §9.2.6: lines end
/// in CRLF, LF or CR; `:` starts a comment; a blank line dispatches; a leading BOM is skipped).
/// Any chunking of the same bytes yields the same events.
///
/// Bytes are decoded as UTF-8 with invalid sequences replaced by U+FFFD, as the spec decodes the
/// whole stream first: CR, LF and `:` are ASCII and never inside a valid sequence, so splitting
/// lines on bytes first and decoding each value after gives the same text.
///
/// Bounded: a line or an event's data longer than `maxEventBytes` is an error, not unbounded
/// memory. An event the stream never finishes (no blank line before it ends) is never dispatched.
public struct ServerSentEventParser: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// An event (its data lines together) or a single line exceeded the bound.
        case eventTooLarge(limit: Int)
    }

    public let maxEventBytes: Int

    public init(maxEventBytes: Int = 64 << 20) {
        self.maxEventBytes = maxEventBytes
    }

    /// Comment lines (`: keep-alive`) seen so far: a stream that sends only those is alive.
    public private(set) var commentsSeen = 0

    /// The stream's last event ID (the spec's "last event ID string"): set by an `id:` field when
    /// its event ends (at the blank line, even if the event had no data), and kept across events.
    /// Empty until the stream sets one, or after it sets an empty one; when reconnecting, send it
    /// as `Last-Event-ID` unless empty.
    public private(set) var lastEventID = ""

    /// The reconnection delay the stream asked for with its last valid `retry:` field (ASCII
    /// digits only; a value that does not fit an `Int` is ignored); nil until it sends one.
    public private(set) var retryMilliseconds: Int?

    /// Where the next byte falls, for what only the first bytes of a line or stream may mean.
    private enum Position: Sendable {
        /// No line has ended yet: a UTF-8 BOM at the start of this line is skipped.
        case firstLine
        /// The last byte fed was a CR that ended a line: an LF now belongs to that line end.
        case afterCarriageReturn
        /// Anywhere else.
        case inStream
    }

    private var position = Position.firstLine
    /// The start of a line that an earlier chunk ended inside.
    private var partialLine: [UInt8] = []
    /// The event being read: its data lines (raw bytes, each followed by LF), its `event:` name,
    /// its own `id:`, and the last-event-ID buffer its `id:` sets.
    private var data: [UInt8] = []
    private var eventName = ""
    private var eventID: String?
    private var lastEventIDBuffer = ""
    /// Set by the first failure; the stream is then unusable and every feed throws it again.
    private var failure: Failure?

    /// Buffers larger than this are released after use rather than kept for the next event.
    private static let keptCapacity = 1 << 16

    /// Feeds the next bytes; returns the events they completed, in order. After a throw, events
    /// completed earlier in the same chunk are lost and every later feed throws again.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> [ServerSentEvent] {
        if let failure { throw failure }
        var events: [ServerSentEvent] = []
        let count = bytes.count
        var start = 0
        if position == .afterCarriageReturn, count > 0 {
            position = .inStream
            if bytes[0] == LineBreaks.lineFeed { start = 1 }
        }
        while start < count {
            guard let end = LineBreaks.first(in: bytes, from: start) else {
                // The chunk ends inside a line: keep its start for the next chunk.
                try checkBound(partialLine.count + (count - start))
                partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
                break
            }
            let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
            if partialLine.isEmpty {
                try readLine(piece, into: &events)
            } else {
                try checkBound(partialLine.count + piece.count)
                var line: [UInt8] = []
                swap(&line, &partialLine)
                line.append(contentsOf: piece)
                try line.withUnsafeBufferPointer { (line) throws(Failure) in try readLine(line, into: &events) }
                line.removeAll(keepingCapacity: line.capacity <= Self.keptCapacity)
                swap(&line, &partialLine)
            }
            start = end + 1
            if bytes[end] == LineBreaks.carriageReturn {
                if start == count {
                    position = .afterCarriageReturn
                } else if bytes[start] == LineBreaks.lineFeed {
                    start += 1
                }
            }
        }
        return events
    }

    /// Feeds the next bytes; returns the events they completed, in order.
    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [ServerSentEvent] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try feed(buffer) }
    }

    private mutating func checkBound(_ size: Int) throws(Failure) {
        guard size > maxEventBytes else { return }
        let failure = Failure.eventTooLarge(limit: maxEventBytes)
        self.failure = failure
        partialLine = []
        data = []
        throw failure
    }

    /// Interprets one whole line, without its line end.
    private mutating func readLine(_ whole: UnsafeBufferPointer<UInt8>, into events: inout [ServerSentEvent])
        throws(Failure)
    {
        try checkBound(whole.count)
        var line = whole
        if position == .firstLine {
            position = .inStream
            if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
                line = UnsafeBufferPointer(rebasing: line[3...])
            }
        }
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        let colon = UInt8(ascii: ":")
        if first == colon {
            commentsSeen += 1
            return
        }
        var split = 0
        while split < line.count, line[split] != colon { split += 1 }
        let field = UnsafeBufferPointer(rebasing: line[..<split])
        var valueStart = min(split + 1, line.count)
        if valueStart < line.count, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let value = UnsafeBufferPointer(rebasing: line[valueStart...])

        if Self.field(field, is: "data") {
            try checkBound(data.count + value.count + 1)
            data.append(contentsOf: value)
            data.append(LineBreaks.lineFeed)
        } else if Self.field(field, is: "event") {
            eventName = String(decoding: value, as: UTF8.self)
        } else if Self.field(field, is: "id") {
            guard !value.contains(0) else { return }
            let id = String(decoding: value, as: UTF8.self)
            lastEventIDBuffer = id
            eventID = id
        } else if Self.field(field, is: "retry") {
            if let milliseconds = Self.decimal(value) { retryMilliseconds = milliseconds }
        }
        // Any other field is ignored, as the spec says.
    }

    /// Ends the event at a blank line: an event with no data lines dispatches nothing.
    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll(keepingCapacity: data.capacity <= Self.keptCapacity)
            eventName = ""
            eventID = nil
        }
        guard !data.isEmpty else { return }
        data.removeLast()  // the LF after the last data line
        let name = eventName.isEmpty ? "message" : eventName
        events.append(ServerSentEvent(name: name, data: String(decoding: data, as: UTF8.self), id: eventID))
    }

    private static func field(_ field: UnsafeBufferPointer<UInt8>, is name: StaticString) -> Bool {
        name.withUTF8Buffer { $0.elementsEqual(field) }
    }

    /// The value as a base-10 integer when it is one or more ASCII digits and fits an `Int`.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty else { return nil }
        var result = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            result = sum
        }
        return result
    }
}
