/// Blocks of one size carved from 64 KiB chunks, for what every client connection of a loop
/// holds for its whole life (its uv handles). Taken from malloc one by one, such blocks land in
/// the holes that requests in flight leave: after a burst of ten thousand connections, each
/// with a request, the few blocks of each idle connection lie across the pages the requests
/// used, and keep the allocator from handing those pages back. Here they sit side by side, and
/// a chunk goes back to malloc as soon as none of its blocks is used. Loop-confined.
final class BlockSlab {
    let blockSize: Int
    private let blocksPerChunk: Int
    /// Blocks of chunks that are not full, free to hand out.
    private var free: [UnsafeMutableRawPointer] = []
    /// Blocks in use, by chunk (its base address).
    private var used: [UnsafeMutableRawPointer: Int] = [:]

    static let chunkSize = 64 * 1024

    /// A slab of blocks of at least `byteCount` bytes, each aligned to 64 bytes (a cache line,
    /// which every uv handle's alignment divides).
    init(byteCount: Int) {
        blockSize = (byteCount + 63) / 64 * 64
        precondition(blockSize <= Self.chunkSize, "BlockSlab: a block larger than a chunk")
        blocksPerChunk = Self.chunkSize / blockSize
    }

    /// The chunks from malloc now.
    var chunkCount: Int { used.count }

    func allocate() -> UnsafeMutableRawPointer {
        if free.isEmpty { addChunk() }
        let block = free.removeLast()
        used[chunk(of: block), default: 0] += 1
        return block
    }

    /// Takes back a block from `allocate`; its chunk goes once none of its blocks is used.
    func deallocate(_ block: UnsafeMutableRawPointer) {
        let base = chunk(of: block)
        guard let count = used[base] else { preconditionFailure("BlockSlab: a block it did not hand out") }
        guard count == 1 else {
            used[base] = count - 1
            free.append(block)
            return
        }
        used[base] = nil
        let end = base + Self.chunkSize
        free.removeAll { $0 >= base && $0 < end }
        base.deallocate()
    }

    /// A new chunk, its blocks free, the lowest handed out first.
    private func addChunk() {
        let base = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: Self.chunkSize)
        used[base] = 0
        for index in (0..<blocksPerChunk).reversed() { free.append(base + index * blockSize) }
    }

    /// Chunks are aligned to their size: a block's chunk is its address rounded down.
    private func chunk(of block: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: block) & ~UInt(Self.chunkSize - 1))!
    }
}
