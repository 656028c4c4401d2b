import XCTest

@testable import ReshapeServer

/// The blocks a loop's connections keep their uv handles in: side by side in chunks, each chunk
/// given back once none of its blocks is used.
final class BlockSlabTests: XCTestCase {
    func testBlocksAreDistinctAlignedAndTheirChunksGoBackWhenAllAreFreed() {
        let slab = BlockSlab(byteCount: ConnectionHandles.byteCount)
        XCTAssertEqual(slab.blockSize % 64, 0)
        XCTAssertGreaterThanOrEqual(slab.blockSize, ConnectionHandles.byteCount)
        let perChunk = BlockSlab.chunkSize / slab.blockSize
        let blocks = (0..<(perChunk * 3 + 1)).map { _ in slab.allocate() }
        XCTAssertEqual(Set(blocks).count, blocks.count)
        XCTAssertTrue(blocks.allSatisfy { UInt(bitPattern: $0) % 64 == 0 })
        XCTAssertEqual(slab.chunkCount, 4, "full chunks before a new one")
        for (index, block) in blocks.enumerated() {
            let other = blocks.filter { $0 != block }
            XCTAssertTrue(
                other.allSatisfy { abs(block.distance(to: $0)) >= slab.blockSize }, "block \(index) overlaps another")
            // Writing a whole block must not reach another's bytes.
            block.initializeMemory(as: UInt8.self, repeating: UInt8(index % 251), count: slab.blockSize)
        }
        for (index, block) in blocks.enumerated() {
            XCTAssertEqual(block.load(fromByteOffset: slab.blockSize - 1, as: UInt8.self), UInt8(index % 251))
        }
        for block in blocks.dropLast() { slab.deallocate(block) }
        XCTAssertEqual(slab.chunkCount, 1, "only the chunk of the block still used is kept")
        slab.deallocate(blocks.last!)
        XCTAssertEqual(slab.chunkCount, 0)
        let again = slab.allocate()
        XCTAssertEqual(slab.chunkCount, 1)
        slab.deallocate(again)
    }

    func testAFreedBlockIsHandedOutAgainBeforeANewChunk() {
        let slab = BlockSlab(byteCount: 100)
        let first = slab.allocate()
        let second = slab.allocate()
        slab.deallocate(first)
        XCTAssertEqual(slab.allocate(), first)
        XCTAssertEqual(slab.chunkCount, 1)
        slab.deallocate(first)
        slab.deallocate(second)
    }
}
