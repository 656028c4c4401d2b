import Synchronization

/// A counter several threads increment.
final class AtomicCounter: Sendable {
    private let storage = Synchronization.Atomic<Int>(0)
    func increment() { storage.add(1, ordering: .sequentiallyConsistent) }
    var value: Int { storage.load(ordering: .sequentiallyConsistent) }
}
