// Threads and a lock straight from pthreads, so the demo needs no Foundation: statically linked,
// Foundation would bring its ICU data into the container image of a test tool.
#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body` on a new detached thread.
func spawnDetachedThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    defer { pthread_attr_destroy(&attributes) }
    var thread = pthread_t()
    let result = pthread_create(
        &thread, &attributes,
        { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, context)
    if result != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        body()  // no thread to be had (resource limit): serve on the caller's thread instead
    }
}

/// A mutual-exclusion lock over a heap-allocated pthread mutex (it must not move).
final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}
