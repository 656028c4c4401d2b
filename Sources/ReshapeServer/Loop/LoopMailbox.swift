import CLibUV
import ReshapeProxy

/// Work handed to one loop from any thread: queued under a lock, run on the loop's thread when
/// its async handle fires. After `close`, posts are dropped (the loop is going away).
/// Unchecked: the handle pointer is only given to `uv_async_send` off the loop (libuv's one
/// thread-safe call) and closed on the loop's own thread, after which nothing sends.
final class LoopMailbox: @unchecked Sendable {
    private let async: UnsafeMutablePointer<uv_async_t>
    private let queue = Locked<(work: [@Sendable () -> Void], closed: Bool)>(([], false))

    init(loop: UnsafeMutablePointer<uv_loop_t>) {
        async = UnsafeMutablePointer<uv_async_t>.allocate(capacity: 1)
        uv_async_init(loop, async) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<LoopMailbox>.fromOpaque(data).takeUnretainedValue().runQueued()
        }
        async.pointee.data = Unmanaged.passRetained(self).toOpaque()
    }

    /// False when the mailbox is closed: the work will never run.
    @discardableResult
    func post(_ work: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.work.append(work)
            return true
        }
        // Several sends before the loop wakes coalesce into one callback, which takes them all.
        if accepted { uv_async_send(async) }
        return accepted
    }

    private func runQueued() {
        let work = queue.withLock { state -> [@Sendable () -> Void] in
            defer { state.work = [] }
            return state.work
        }
        for item in work { item() }
    }

    /// On the loop's thread: drops what is queued and closes the handle, which releases this.
    func close() {
        let wasOpen = queue.withLock { state -> Bool in
            defer {
                state.closed = true
                state.work = []
            }
            return !state.closed
        }
        guard wasOpen else { return }
        uv_close(reshape_async_handle(async)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<LoopMailbox>.fromOpaque(data).release()
            handle.deallocate()
        }
    }
}
