import Glibc
import ReshapeJSON

/// The tapes of the last answers views were made of, so that twenty views of one cached answer
/// parse it once (issue 26's cost: the parse is a third of a view). Found by the answer's
/// bytes, compared whole: a cache hit hands over the same buffer, which compares at once.
/// Bounded in count and bytes; one per rule set (`ServingRules`), shared by the workers.
package final class ViewTapes: Sendable {
    private let entries = Locked<[(bytes: [UInt8], tape: JSONTape)]>([])
    static let maxEntries = 8
    /// Answers larger than this are parsed for each view: a few would fill the bound.
    static let maxBodyBytes = 4 << 20
    static let maxTotalBytes = 16 << 20

    package init() {}

    /// The tape of `body`; nil when it is not JSON.
    func tape(of body: [UInt8]) -> JSONTape? {
        let candidates = entries.withLock { $0 }
        if let hit = candidates.first(where: { Self.same($0.bytes, body) }) { return hit.tape }
        guard let tape = try? JSONTape.parse(body) else { return nil }
        guard body.count <= Self.maxBodyBytes else { return tape }
        entries.withLock { list in
            list.insert((body, tape), at: 0)
            var total = 0
            list = Array(
                list.prefix { entry in
                    total += entry.bytes.count
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
