import CLibUV
import ReshapeJSON
import ReshapeProxy

/// A repeating timer on a worker's loop that tells `LoopLag` how late it fires: the loop's lag.
/// When shedding starts or stops, it says so in the log.
final class LoopLagWatch {
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private(set) var lag: LoopLag
    private var due: Double

    init(loop: UnsafeMutablePointer<uv_loop_t>, lag: LoopLag) {
        self.lag = lag
        due = Clock.monotonicSeconds() + lag.intervalSeconds
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        let milliseconds = UInt64(max(1, (lag.intervalSeconds * 1000).rounded()))
        uv_timer_start(
            timer,
            { timer in
                guard let timer, let data = timer.pointee.data else { return }
                Unmanaged<LoopLagWatch>.fromOpaque(data).takeUnretainedValue().ticked()
            }, milliseconds, milliseconds)
    }

    private func ticked() {
        let now = Clock.monotonicSeconds()
        if lag.ticked(due: due, now: now) {
            Log.event(
                lag.shedding ? "loop running late: shedding new requests" : "loop caught up: no longer shedding",
                ["lag_ms": .number(JSONNumber(Int(lag.lastLagSeconds * 1000)))])
        }
        due = now + lag.intervalSeconds
    }

    /// Stops the timer; the handle is freed once libuv has closed it.
    func close() {
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { handle in handle?.deallocate() }
    }
}
