import Glibc
import ReshapeJSON

/// The tapes of the last answers views were made of, so that twenty views of one cached answer
/// parse it once (issue 26's cost: the parse costs more than the view made on its tape). Found
/// by the answer's bytes, compared whole: a cache hit hands over the same buffer, which
/// compares at once.
/// Bounded in count and bytes; one per rule set (`ServingRules`), shared by the workers.
package final class ViewTapes: Sendable {
    private let entries = Locked<[(bytes: [UInt8], tape: JSONTape)]>([])
    static let maxEntries = 8
    /// An answer whose tape (its bytes and its nodes) is larger than this is parsed for each
    /// view: a few would fill the bound.
    static let maxEntryBytes = 4 << 20
    /// What the kept tapes may hold together: their bytes and their nodes (`cost`). A node is
    /// 16 bytes, so a document of small values holds several times its length in nodes.
    static let maxTotalBytes = 16 << 20

    package init() {}

    /// The memory a kept entry holds: the answer's bytes and the tape's node block.
    static func cost(_ tape: JSONTape) -> Int { tape.bytes.count + tape.nodeBytes }

    /// What the kept tapes hold together (`cost` summed), for tests.
    var heldBytes: Int { entries.withLock { $0.reduce(0) { $0 + Self.cost($1.tape) } } }

    /// The tape of `body`; nil when it is not JSON.
    func tape(of body: [UInt8]) -> JSONTape? {
        let candidates = entries.withLock { $0 }
        if let hit = candidates.first(where: { Self.same($0.bytes, body) }) { return hit.tape }
        guard let tape = try? JSONTape.parse(body) else { return nil }
        guard Self.cost(tape) <= Self.maxEntryBytes else { return tape }
        entries.withLock { list in
            list.insert((body, tape), at: 0)
            var total = 0
            list = Array(
                list.prefix { entry in
                    total += Self.cost(entry.tape)
                    return total <= Self.maxTotalBytes
                }.prefix(Self.maxEntries))
        }
        return tape
    }

    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                x.baseAddress == y.baseAddress || a.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0
            }
        }
    }
}
