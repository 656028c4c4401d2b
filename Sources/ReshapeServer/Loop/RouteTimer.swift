import CLibUV

/// A one-shot timer for a route's `timeout`. `stop` before it fires cancels it; either way
/// the handle is closed and freed by libuv's close callback, which releases this object.
final class RouteTimer {
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var action: (() -> Void)?

    init(loop: UnsafeMutablePointer<uv_loop_t>, milliseconds: Int, action: @escaping () -> Void) {
        self.action = action
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passRetained(self).toOpaque()
        uv_timer_start(
            timer,
            { handle in
                guard let handle, let data = handle.pointee.data else { return }
                let routeTimer = Unmanaged<RouteTimer>.fromOpaque(data).takeUnretainedValue()
                let action = routeTimer.action
                routeTimer.stop()
                action?()
            }, UInt64(max(milliseconds, 1)), 0)
    }

    /// Cancels the timer (a no-op once fired or stopped).
    func stop() {
        guard action != nil else { return }
        action = nil
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { handle in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<RouteTimer>.fromOpaque(data).release()
            handle.deallocate()
        }
    }
}
