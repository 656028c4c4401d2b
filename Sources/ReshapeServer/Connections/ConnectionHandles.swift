import CLibUV

/// A client connection's three uv handles (its socket, the header-then-body timer and the idle
/// timer) in one block of its loop's `BlockSlab`, which an idle keep-alive connection holds for
/// as long as it lasts.
struct ConnectionHandles {
    let tcp: UnsafeMutablePointer<uv_tcp_t>
    let headerTimer: UnsafeMutablePointer<uv_timer_t>
    let idleTimer: UnsafeMutablePointer<uv_timer_t>

    private static let timerOffset = aligned(
        MemoryLayout<uv_tcp_t>.stride, to: MemoryLayout<uv_timer_t>.alignment)
    /// The size of a block that holds them.
    static let byteCount = timerOffset + 2 * MemoryLayout<uv_timer_t>.stride

    /// The handles in `block`, of at least `byteCount` bytes and 64-byte aligned.
    init(in block: UnsafeMutableRawPointer) {
        tcp = block.bindMemory(to: uv_tcp_t.self, capacity: 1)
        headerTimer = (block + Self.timerOffset).bindMemory(to: uv_timer_t.self, capacity: 2)
        idleTimer = headerTimer + 1
    }

    /// The block they are in.
    var block: UnsafeMutableRawPointer { UnsafeMutableRawPointer(tcp) }

    private static func aligned(_ offset: Int, to alignment: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }
}
