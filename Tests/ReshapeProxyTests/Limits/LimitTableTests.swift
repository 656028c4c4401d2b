import ReshapeProxy
import XCTest

/// The table every loop shares: bounded, forgetting the least recently seen first, hashed keys.
final class LimitTableTests: XCTestCase {
    func testTheTableHoldsAtMostItsCapacityAndForgetsTheOldest() {
        let table = LimitTable(capacity: 640)
        let gcra = GCRA(count: 1, intervalSeconds: 3600, burst: 1)
        let kept = LimitKey(policy: "p", value: "kept")
        XCTAssertEqual(table.decide(kept, gcra, now: 0), .admitted(tat: 3600, remaining: 0, resetSeconds: 3600))
        for index in 0..<100_000 {
            _ = table.decide(LimitKey(policy: "p", value: "k\(index)"), gcra, now: 0)
            // `kept` is seen again and again: it is never the least recently seen.
            if index % 5 == 0 {
                guard case .limited = table.decide(kept, gcra, now: 0) else {
                    return XCTFail("the key seen most recently was forgotten at \(index)")
                }
            }
        }
        XCTAssertEqual(table.count, 640, "every shard full, none past its share")
        // The first keys are forgotten: a forgotten key is granted a full burst again.
        guard case .admitted = table.decide(LimitKey(policy: "p", value: "k0"), gcra, now: 0) else {
            return XCTFail("a forgotten key was refused")
        }
    }

    func testKeysAreHashedPerPolicy() {
        let a = LimitKey(policy: "a", value: "secret")
        XCTAssertNotEqual(a, LimitKey(policy: "b", value: "secret"))
        XCTAssertEqual(a, LimitKey(policy: "a", value: "secret"))
        // The policy's length is part of the key: no policy and value pair reads as another.
        XCTAssertNotEqual(LimitKey(policy: "ab", value: "c"), LimitKey(policy: "a", value: "bc"))
        // By bytes: canonically equivalent values are different keys, as they are upstream.
        XCTAssertNotEqual(LimitKey(policy: "a", value: "\u{e9}"), LimitKey(policy: "a", value: "e\u{301}"))
        XCTAssertNotEqual(a.high, a.low, "the halves are keyed apart")
    }

    func testRedisNamesAreTheFirstHalfOfASHA256EveryReplicaComputesAlike() {
        // hashlib.sha256(b"per-key\x00api-key-1").hexdigest()[:32]: the name earlier versions gave.
        XCTAssertEqual(LimitKey.sharedName(policy: "per-key", value: "api-key-1"), "f95af1806237848a8676bd9fc00eade9")
        XCTAssertEqual(LimitKey.sharedName(policy: "a", value: "secret"), "9c5997d231ef441e344368a9841eaff8")
        XCTAssertFalse(LimitKey.sharedName(policy: "a", value: "secret").contains("secret"))
    }

    func testLoopsSharingTheTableAdmitTheRateOnce() {
        let table = LimitTable(capacity: 1000)
        let gcra = GCRA(count: 10, intervalSeconds: 1, burst: 100)
        let key = LimitKey(policy: "p", value: "one")
        let admitted = LockedCount()
        // Eight threads at once, 1,000 tries each, all at one instant: exactly the burst.
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1000 {
                if case .admitted = table.decide(key, gcra, now: 5) { admitted.add() }
            }
        }
        XCTAssertEqual(admitted.value, 100)
    }
}

/// A count several threads add to.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
