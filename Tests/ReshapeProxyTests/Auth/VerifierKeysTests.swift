import ReshapeAuth
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// When a verifier's key set is fetched, and what requests are checked with meanwhile.
final class VerifierKeysTests: XCTestCase {
    /// RFC 7517 appendix A.1's EC public key.
    static let keys: KeySet = {
        let text = #"""
            {"keys":[{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM","kid":"1"}]}
            """#
        guard case .success(let keys) = KeySet.parse(Array(text.utf8)) else { fatalError("the RFC's key set") }
        return keys
    }()

    func testTheFirstRequestStartsTheFetchAndTheNextOnesWaitForIt() {
        var machine = VerifierKeys()
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 0)), "wait, start")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 0.1)), "wait")
        XCTAssertNotNil(machine.fetchEnded(Self.keys, maxAgeSeconds: 300, now: 0.2).keys)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 1)), "keys")
    }

    func testMaxAgeIsBoundedAndAStaleSetIsUsedWhileItIsFetchedAgain() {
        var machine = VerifierKeys()
        _ = machine.lookUp(refetch: false, now: 0)
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: 5, now: 0)
        // max-age=5 is raised to a minute.
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 59)), "keys")
        XCTAssertEqual(
            describe(machine.lookUp(refetch: false, now: 61)), "keys, start", "answered with the keys in hand")
        XCTAssertEqual(machine.stateName, "fetching", "and fetched again meanwhile")
        XCTAssertEqual(describe(machine.lookUp(refetch: true, now: 61.5)), "wait", "a new kid waits for that fetch")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 62)), "keys")
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: 10_000_000, now: 100)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 100 + 86_399)), "keys")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 100 + 86_401)), "keys, start", "a day at most")
    }

    func testWithoutMaxAgeTheSetLivesAnHour() {
        var machine = VerifierKeys()
        _ = machine.lookUp(refetch: false, now: 0)
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: nil, now: 0)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 3_599)), "keys")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 3_601)), "keys, start")
    }

    func testAnUnknownKeyRefetchesAtMostEveryThirtySeconds() {
        var machine = VerifierKeys()
        _ = machine.lookUp(refetch: false, now: 0)
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: 3_600, now: 0)
        XCTAssertEqual(describe(machine.lookUp(refetch: true, now: 1)), "wait, start", "the first one at once")
        XCTAssertEqual(describe(machine.lookUp(refetch: true, now: 1.5)), "wait", "joins the fetch running")
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: 3_600, now: 2)
        XCTAssertEqual(describe(machine.lookUp(refetch: true, now: 20)), "keys", "too soon: the keys in hand")
        XCTAssertEqual(describe(machine.lookUp(refetch: true, now: 31.5)), "wait, start")
    }

    func testAFailedRefreshKeepsTheKeysInHand() {
        var machine = VerifierKeys()
        _ = machine.lookUp(refetch: false, now: 0)
        _ = machine.fetchEnded(Self.keys, maxAgeSeconds: 60, now: 0)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 61)), "keys, start")
        XCTAssertNotNil(machine.fetchEnded(nil, maxAgeSeconds: nil, now: 62).keys)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 63)), "keys")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 62 + 61)), "keys, start", "tried after a minute")
    }

    func testAFailedFirstFetchRefusesForAWhileThenTriesAgain() {
        var machine = VerifierKeys()
        _ = machine.lookUp(refetch: false, now: 0)
        XCTAssertNil(machine.fetchEnded(nil, maxAgeSeconds: nil, now: 1).keys)
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 2)), "none")
        XCTAssertEqual(describe(machine.lookUp(refetch: false, now: 6.5)), "wait, start")
    }

    func testAFetchEndingWhenNoneRunsTraps() throws {
        try expectTrap(containing: "impossible event 'fetchEnded' in state 'empty'") {
            var machine = VerifierKeys()
            _ = machine.fetchEnded(nil, maxAgeSeconds: nil, now: 0)
        }
    }

    private func describe(_ lookup: VerifierKeys.Lookup) -> String {
        switch lookup {
        case .now(let keys, let start): (keys == nil ? "none" : "keys") + (start ? ", start" : "")
        case .wait(let start): start ? "wait, start" : "wait"
        }
    }
}
