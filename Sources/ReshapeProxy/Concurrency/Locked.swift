import Glibc

/// A value only touched under a pthread mutex. Used instead of `Synchronization.Mutex`, whose
/// Linux implementation is a futex ThreadSanitizer cannot see: under TSan every contended
/// access through it was reported as a race (a false one), hiding the real ones. TSan
/// intercepts pthread mutexes, so the sanitizer run stays meaningful.
package final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
