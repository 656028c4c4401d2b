/// Every key's GCRA time, shared by all the workers of the process: a limit is the process's,
/// not each loop's. Split into shards, each with its own lock, picked by the key's hash, so two
/// loops contend only when their keys share a shard, and never on one lock for all. Bounded:
/// at most `capacity` keys (split evenly over the shards), the least recently seen forgotten
/// first. Forgetting a key only grants it more (a full burst), never less.
package final class LimitTable: Sendable {
    /// 64 shards (fewer for a tiny capacity): with 4 to 16 loops, two requests rarely want
    /// the same lock.
    static let maxShards = 64

    private let shards: [Locked<LimitShard>]
    package let capacity: Int

    package init(capacity: Int) {
        let total = max(capacity, 1)
        self.capacity = total
        // The capacity split exactly: the first shards take one more of the remainder.
        let count = min(Self.maxShards, total)
        shards = (0..<count).map { index in
            Locked(LimitShard(capacity: total / count + (index < total % count ? 1 : 0)))
        }
    }

    /// Decides one request of `key` under `gcra` at `now`, storing its new time when admitted.
    package func decide(_ key: LimitKey, _ gcra: GCRA, now: Double) -> GCRA.Verdict {
        shard(key).withLock { shard in
            let verdict = gcra.decide(tat: shard.tat(of: key), now: now)
            if case .admitted(let tat, _, _) = verdict { shard.store(key, tat: tat) }
            return verdict
        }
    }

    /// Gives back a request `decide` admitted under `gcra`.
    package func refund(_ key: LimitKey, _ gcra: GCRA) {
        shard(key).withLock { shard in
            if let tat = shard.tat(of: key) { shard.store(key, tat: gcra.refund(tat: tat)) }
        }
    }

    /// Keys held now (`reshape_limit_keys`).
    package var count: Int {
        shards.reduce(0) { $0 + $1.withLock { $0.count } }
    }

    private func shard(_ key: LimitKey) -> Locked<LimitShard> {
        shards[Int(key.low % UInt64(shards.count))]
    }
}

/// One shard: keys' times in a dictionary, and their order of use as a list threaded through
/// an array of slots (indices, not references: no allocation per key once the array is grown).
struct LimitShard {
    private struct Slot {
        var key: LimitKey
        var tat: Double
        var newer: Int
        var older: Int
    }

    private let capacity: Int
    private var index: [LimitKey: Int] = [:]
    private var slots: [Slot] = []
    /// The most and least recently seen slots; -1: none.
    private var newest = -1
    private var oldest = -1

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { index.count }

    /// The key's time, marking it seen.
    mutating func tat(of key: LimitKey) -> Double? {
        guard let slot = index[key] else { return nil }
        touch(slot)
        return slots[slot].tat
    }

    mutating func store(_ key: LimitKey, tat: Double) {
        if let slot = index[key] {
            slots[slot].tat = tat
            touch(slot)
            return
        }
        let slot: Int
        if slots.count < capacity {
            slot = slots.count
            slots.append(Slot(key: key, tat: tat, newer: -1, older: -1))
        } else {
            // Full: the least recently seen key's slot is reused.
            slot = oldest
            unlink(slot)
            index[slots[slot].key] = nil
            slots[slot] = Slot(key: key, tat: tat, newer: -1, older: -1)
        }
        index[key] = slot
        linkNewest(slot)
    }

    private mutating func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer
        let older = slots[slot].older
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }

    private mutating func linkNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }
}
