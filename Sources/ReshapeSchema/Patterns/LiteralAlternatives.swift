#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Alternatives of literal text, each anchored at the start, the end, both or neither.
final class LiteralAlternatives {
    struct Branch {
        let bytes: [UInt8]
        let atStart: Bool
        let atEnd: Bool
    }

    struct Span {
        let bytes: UnsafePointer<UInt8>
        let count: Int
        let atStart: Bool
        let atEnd: Bool
    }

    /// Every branch's bytes, one after the other, and where each branch is in them.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let spans: UnsafeMutableBufferPointer<Span>

    init(_ branches: [Branch]) {
        // At least one byte, so every span has an address.
        storage = .allocate(capacity: max(1, branches.reduce(0) { $0 + $1.bytes.count }))
        spans = .allocate(capacity: branches.count)
        var offset = 0
        for (k, branch) in branches.enumerated() {
            _ = UnsafeMutableBufferPointer(rebasing: storage[offset..<(offset + branch.bytes.count)]).initialize(
                from: branch.bytes)
            spans.initializeElement(
                at: k,
                to: Span(
                    bytes: UnsafePointer(storage.baseAddress! + offset),
                    count: branch.bytes.count, atStart: branch.atStart, atEnd: branch.atEnd))
            offset += branch.bytes.count
        }
    }

    deinit {
        storage.deallocate()
        spans.deallocate()
    }

    @inline(__always)
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        while k < spans.count {
            if Self.matches(spans[k], text) { return true }
            k &+= 1
        }
        return false
    }

    @inline(__always)
    static func matches(_ literal: Span, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = literal.count
        guard n <= text.count else { return false }
        guard n > 0 else { return !(literal.atStart && literal.atEnd) || text.isEmpty }
        let base = text.baseAddress!
        if literal.atStart && literal.atEnd { return n == text.count && memcmp(base, literal.bytes, n) == 0 }
        if literal.atStart { return memcmp(base, literal.bytes, n) == 0 }
        if literal.atEnd { return memcmp(base + (text.count - n), literal.bytes, n) == 0 }
        // Find the first byte with memchr, then compare the rest.
        let first = Int32(literal.bytes[0])
        var at = base
        let last = base + (text.count - n)
        while at <= last {
            guard let found = memchr(at, first, last - at + 1) else { return false }
            let candidate = found.assumingMemoryBound(to: UInt8.self)
            if n == 1 || memcmp(candidate + 1, literal.bytes + 1, n - 1) == 0 { return true }
            at = UnsafePointer(candidate) + 1
        }
        return false
    }
}
