/// Large upstream body buffers of finished fetches, kept by reference for the next large
/// body. A buffer of a megabyte or more is its own mapping (the server fixes malloc's mmap
/// threshold), so a new one per large body faults in fresh zeroed pages. A kept buffer is
/// reused in place once the request that read it is done with it; while something still holds
/// it, taking it gives a new buffer instead (value semantics: nothing already read changes).
/// One per worker, on its loop; at most `maximumKept` buffers.
final class SpareBodies {
    static let minimumBytes = 1 << 20
    static let maximumKept = 2

    private var kept: [[UInt8]] = []

    /// An empty buffer with room for `capacity` bytes: the smallest kept one that fits and is
    /// at most twice that (a small body does not pin a large buffer), else a new one.
    func take(capacity: Int) -> [UInt8] {
        var best: Int? = nil
        if capacity >= SpareBodies.minimumBytes {
            for (index, body) in kept.enumerated()
            where body.capacity >= capacity && body.capacity <= 2 * capacity
                && best.map({ body.capacity < kept[$0].capacity }) ?? true
            {
                best = index
            }
        }
        if let index = best {
            var body = kept.remove(at: index)
            // Unique, the buffer is emptied in place; still read by a request, this gives a new
            // buffer of its capacity (at most twice what is needed) and leaves the old one be.
            body.removeAll(keepingCapacity: true)
            return body
        }
        var body: [UInt8] = []
        body.reserveCapacity(capacity)
        return body
    }

    /// Remembers a finished body's buffer (another reference to it, not a copy).
    func keep(_ body: [UInt8]) {
        guard body.capacity >= SpareBodies.minimumBytes else { return }
        kept.append(body)
        if kept.count > SpareBodies.maximumKept { kept.removeFirst() }
    }

    var keptCount: Int { kept.count }
}
