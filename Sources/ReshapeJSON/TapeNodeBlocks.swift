#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Large node blocks kept from tapes that are gone, for the next large parse. A block of a
/// megabyte or more is its own mapping (the server fixes malloc's mmap threshold), so without
/// this every large document would fault in fresh zeroed pages for its nodes. At most
/// `maximumKept` blocks and `maximumKeptBytes` in all are kept; anything else is freed.
enum TapeNodeBlocks {
    static let minimumBytes = 1 << 20
    static let maximumKept = 2
    static let maximumKeptBytes = 64 << 20

    private struct Block {
        let nodes: UnsafeMutablePointer<TapeNode>
        let capacity: Int
    }

    nonisolated(unsafe) private static var kept: [Block] = []
    nonisolated(unsafe) private static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        return lock
    }()

    private static func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }

    /// A kept block of at least `capacity` nodes and at most four times that (the smallest
    /// such: a small document does not pin a large block), or nil: the caller allocates.
    /// Small requests never take one.
    static func take(capacity: Int) -> (nodes: UnsafeMutablePointer<TapeNode>, capacity: Int)? {
        guard capacity * MemoryLayout<TapeNode>.stride >= minimumBytes else { return nil }
        return locked {
            var best: Int? = nil
            for (index, block) in kept.enumerated() where block.capacity >= capacity && block.capacity <= 4 * capacity {
                if best.map({ block.capacity < kept[$0].capacity }) ?? true { best = index }
            }
            guard let best else { return nil }
            let block = kept.remove(at: best)
            return (block.nodes, block.capacity)
        }
    }

    /// Keeps a large block of a tape that is gone, or frees it.
    static func give(_ nodes: UnsafeMutablePointer<TapeNode>, capacity: Int) {
        let bytes = capacity * MemoryLayout<TapeNode>.stride
        guard bytes >= minimumBytes else { return free(nodes) }
        let evicted: Block? = locked {
            let keptBytes = kept.reduce(0) { $0 + $1.capacity * MemoryLayout<TapeNode>.stride }
            if kept.count < maximumKept && keptBytes + bytes <= maximumKeptBytes {
                kept.append(Block(nodes: nodes, capacity: capacity))
                return nil
            }
            // Full: keep the larger of this block and the smallest kept one.
            guard let smallest = kept.indices.min(by: { kept[$0].capacity < kept[$1].capacity }),
                kept[smallest].capacity < capacity,
                keptBytes - kept[smallest].capacity * MemoryLayout<TapeNode>.stride + bytes <= maximumKeptBytes
            else { return Block(nodes: nodes, capacity: capacity) }
            let old = kept[smallest]
            kept[smallest] = Block(nodes: nodes, capacity: capacity)
            return old
        }
        if let evicted { free(evicted.nodes) }
    }

    /// How many blocks are kept now (for tests).
    static var keptCount: Int { locked { kept.count } }

    /// Frees every kept block (for tests that need to start from none).
    static func drain() {
        let all = locked {
            defer { kept.removeAll() }
            return kept
        }
        for block in all { free(block.nodes) }
    }
}
