import XCTest

@testable import ReshapeProxy

/// `LiveAdmission`: who a worker lets subscribe, and the counts it keeps; the impossible
/// events in a child process (DeathTest.swift).
final class LiveAdmissionTests: XCTestCase {
    private let host = "https://db.example.com"

    func testTheFirstSubscriberOpensAStreamAndLaterOnesJoinIt() {
        var admission = LiveAdmission(maxStreamsPerHost: 2)
        XCTAssertFalse(admission.hasStreams(route: "users"))
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none), .open)
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .open), .join)
        XCTAssertEqual(admission.subscribers, ["users": 2])
        XCTAssertEqual(admission.streamsPerRoute, ["users": 1])
        XCTAssertEqual(admission.streamsPerHost, [host: 1])
        XCTAssertTrue(admission.hasStreams(route: "users"))
        XCTAssertFalse(admission.hasStreams(route: "user"))
    }

    func testARouteAtItsMaxSubscribersRefusesTheNextUntilOneLeaves() {
        var admission = LiveAdmission(maxStreamsPerHost: 2)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 2, existing: .none)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 2, existing: .open)
        XCTAssertEqual(
            admission.subscribe(route: "users", host: host, maxSubscribers: 2, existing: .open),
            .refuse(.tooManySubscribers))
        // The limit is the route's: another route's subscribers do not count.
        XCTAssertEqual(admission.subscribe(route: "user", host: host, maxSubscribers: 2, existing: .none), .open)
        admission.unsubscribed(route: "users")
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 2, existing: .open), .join)
        XCTAssertEqual(admission.subscribers, ["users": 2, "user": 1])
    }

    func testTheRouteLimitComesBeforeTheHostLimit() {
        var admission = LiveAdmission(maxStreamsPerHost: 1)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 1, existing: .none)
        XCTAssertEqual(
            admission.subscribe(route: "users", host: host, maxSubscribers: 1, existing: .none),
            .refuse(.tooManySubscribers))
    }

    func testAHostAtItsStreamCapRefusesANewStreamButNotAJoin() {
        var admission = LiveAdmission(maxStreamsPerHost: 2)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
        // Across routes: the cap is the host's.
        _ = admission.subscribe(route: "user", host: host, maxSubscribers: 10, existing: .none)
        XCTAssertEqual(
            admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none),
            .refuse(.tooManyStreams(limit: 2)))
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .open), .join)
        // Another host has its own.
        XCTAssertEqual(
            admission.subscribe(route: "users", host: "http://other:8080", maxSubscribers: 10, existing: .none), .open)
        // A refused client is not counted.
        XCTAssertEqual(admission.subscribers, ["users": 3, "user": 1])
        XCTAssertEqual(admission.streamsPerHost, [host: 2, "http://other:8080": 1])
    }

    func testAClosedStreamFreesItsPlaceForTheNext() {
        var admission = LiveAdmission(maxStreamsPerHost: 1)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
        admission.unsubscribed(route: "users")
        admission.streamClosed(route: "users", host: host)
        XCTAssertFalse(admission.hasStreams(route: "users"))
        XCTAssertEqual(admission, LiveAdmission(maxStreamsPerHost: 1))
        XCTAssertEqual(admission.subscribe(route: "user", host: host, maxSubscribers: 10, existing: .none), .open)
    }

    func testAStreamThatIsOverIsReplacedInItsPlaceEvenAtTheCap() {
        var admission = LiveAdmission(maxStreamsPerHost: 2)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .over), .replace)
        XCTAssertEqual(admission.streamsPerRoute, ["users": 1])
        XCTAssertEqual(admission.streamsPerHost, [host: 1])
        // At the cap, a stream that is over is still replaced: its successor takes its place
        // in the count, so the host gets no more streams than before; a new key is refused.
        _ = admission.subscribe(route: "user", host: host, maxSubscribers: 10, existing: .none)
        XCTAssertEqual(admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .over), .replace)
        XCTAssertEqual(admission.streamsPerHost, [host: 2])
        XCTAssertEqual(
            admission.subscribe(route: "other", host: host, maxSubscribers: 10, existing: .none),
            .refuse(.tooManyStreams(limit: 2)))
        XCTAssertEqual(admission.subscribers, ["users": 3, "user": 1])
    }

    func testAReplacedStreamLeavesTheCountsToItsSuccessor() {
        var admission = LiveAdmission(maxStreamsPerHost: 2)
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
        admission.unsubscribed(route: "users")
        _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .over)
        // The old one's close is not reported (the hub no longer holds it under the key); the
        // successor's is, and nothing is left.
        admission.unsubscribed(route: "users")
        admission.streamClosed(route: "users", host: host)
        XCTAssertEqual(admission, LiveAdmission(maxStreamsPerHost: 2))
    }

    func testLeavingARouteWithoutSubscribersTraps() throws {
        try expectTrap(containing: "impossible event 'unsubscribed' in state 'a route without subscribers'") {
            var admission = LiveAdmission(maxStreamsPerHost: 2)
            _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
            admission.unsubscribed(route: "user")
        }
    }

    func testClosingAStreamThatWasNotCountedTraps() throws {
        try expectTrap(containing: "impossible event 'streamClosed' in state 'a route or host without streams'") {
            var admission = LiveAdmission(maxStreamsPerHost: 2)
            _ = admission.subscribe(route: "users", host: host, maxSubscribers: 10, existing: .none)
            admission.streamClosed(route: "users", host: "http://other:8080")
        }
    }
}
