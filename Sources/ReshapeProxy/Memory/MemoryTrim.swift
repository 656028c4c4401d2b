/// When the process asks the allocator to hand its free memory back to the system
/// (`malloc_trim`): once a load has ended. glibc keeps freed memory in its arenas, and after a
/// burst (ten thousand requests in flight at once, large bodies under the memory budget) what
/// stays allocated among the freed pages keeps RSS at the burst's peak. Trimming walks every
/// arena, and pages it gives back fault in again when used, so it is not done while a load goes
/// on, nor after a small one. Pure: the figures come in, sampled every few seconds.
package struct MemoryTrim: Sendable {
    /// Open client connections and requests in flight, summed over the workers.
    package struct Load: Sendable, Equatable {
        package var connections: Int
        package var requests: Int

        package init(connections: Int, requests: Int) {
            self.connections = connections
            self.requests = requests
        }

        static let none = Load(connections: 0, requests: 0)
    }

    /// A fall of at least this many connections, or requests in flight, is a load that ended;
    /// fewer leave too little behind to be worth a walk over the heap.
    package static let minimumFall = 1000

    /// The most connections, and the most requests in flight, since the last trim.
    private var highest = Load.none
    /// Whether the memory budget held anything at the last sample.
    private var budgetWasBusy = false

    package init() {}

    /// A sample: `peak`, the most at once of each since the last sample, `now` as many at this
    /// moment, and whether the memory budget holds bytes now. True when memory should be handed
    /// back now: connections or requests in flight fell to half their height or less, by at
    /// least `minimumFall` (many requests answered, on connections that may stay open idle; many
    /// connections closed), or the budget has just emptied.
    package mutating func sampled(peak: Load, now: Load, budgetBusy: Bool) -> Bool {
        highest.connections = max(highest.connections, peak.connections, now.connections)
        highest.requests = max(highest.requests, peak.requests, now.requests)
        let budgetEmptied = budgetWasBusy && !budgetBusy
        budgetWasBusy = budgetBusy
        let fell =
            Self.fell(from: highest.connections, to: now.connections)
            || Self.fell(from: highest.requests, to: now.requests)
        guard fell || budgetEmptied else { return false }
        highest = now
        return true
    }

    private static func fell(from height: Int, to now: Int) -> Bool {
        height - now >= minimumFall && now <= height / 2
    }
}
