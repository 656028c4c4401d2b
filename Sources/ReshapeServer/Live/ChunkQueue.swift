/// A live stream's chunks on one connection: one write on its way at a time, and what comes
/// meanwhile framed into one buffer that goes out when that write completes. A client that reads
/// slowly then holds one growing buffer, counted against its `buffer` bound, instead of a write
/// request per event (whose bookkeeping outweighs a small patch many times), and a client that
/// keeps up gets several events in one write.
struct ChunkQueue {
    private(set) var inFlight = false
    /// Framed chunks waiting for the write in flight.
    private(set) var waiting: [UInt8] = []

    /// The buffers of one chunk written at once: its size line and own bytes, the shared bytes
    /// where they are, and the CRLF that ends it.
    struct Write {
        let head: [UInt8]
        let body: [UInt8]
        let tail: [UInt8]
    }

    /// A chunk to write now, or nil when it waits (copied into `waiting`).
    mutating func add(_ chunk: StreamChunk) -> Write? {
        guard inFlight else {
            inFlight = true
            return Write(head: Self.sizeLine(chunk.count) + chunk.own, body: chunk.shared, tail: Self.crlf)
        }
        waiting += Self.sizeLine(chunk.count)
        waiting += chunk.own
        waiting += chunk.shared
        waiting += Self.crlf
        return nil
    }

    /// The write in flight completed: what waited, to write now (still in flight), or nil.
    mutating func writeDone() -> [UInt8]? {
        guard !waiting.isEmpty else {
            inFlight = false
            return nil
        }
        defer { waiting = [] }
        return waiting
    }

    /// Everything waiting, to write at once ahead of the stream's last chunk; nil when nothing.
    mutating func takeAll() -> [UInt8]? {
        guard !waiting.isEmpty else { return nil }
        defer { waiting = [] }
        return waiting
    }

    /// A chunk's size line: its length in hex, CRLF.
    private static func sizeLine(_ count: Int) -> [UInt8] { Array((String(count, radix: 16) + "\r\n").utf8) }
    private static let crlf: [UInt8] = [13, 10]
}
