import Glibc

/// Monotonic time for durations.
enum Clock {
    static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time
    }

    /// Monotonic time in seconds, for durations computed by subtraction.
    static func monotonicSeconds() -> Double {
        let time = now()
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func seconds(since start: timespec) -> Double {
        let end = now()
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    static func unixMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
