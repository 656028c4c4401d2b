/// Reads a `text/event-stream` as it arrives, in chunks cut anywhere (inside a line, inside a
/// UTF-8 sequence, between CR and LF), and dispatches whole events (WHATWG HTML §9.2.6: lines end
/// in CRLF, LF or CR; `:` starts a comment; a blank line dispatches; a leading BOM is skipped).
/// Bounded: a line or an event's data longer than `maxEventBytes` is an error, not unbounded memory.
public struct ServerSentEventParser: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// An event (its data lines together) or a single line exceeded the bound.
        case eventTooLarge(limit: Int)
    }

    public let maxEventBytes: Int

    public init(maxEventBytes: Int = 64 << 20) {
        self.maxEventBytes = maxEventBytes
    }

    /// Feeds the next bytes; returns the events they completed, in order.
    public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> [ServerSentEvent] {
        fatalError("ServerSentEventParser.feed: not built yet")
    }

    /// Feeds the next bytes; returns the events they completed, in order.
    public mutating func feed(_ bytes: [UInt8]) throws(Failure) -> [ServerSentEvent] {
        try bytes.withUnsafeBufferPointer { buffer throws(Failure) in try feed(buffer) }
    }

    /// Comment lines (`: keep-alive`) seen so far: a stream that sends only those is alive.
    public private(set) var commentsSeen = 0
}
