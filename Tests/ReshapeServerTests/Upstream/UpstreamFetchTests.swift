import ReshapeProxy
import ReshapeTestSupport
import XCTest

@testable import ReshapeServer

/// `UpstreamFetch.Phase`'s transitions that need no transfer or loop: a fetch completes once,
/// a cancelled one never, and an event in a phase that cannot take it traps.
final class UpstreamFetchTests: XCTestCase {
    private func fetch(_ calls: @escaping (UpstreamResult) -> Void) -> UpstreamFetch {
        let request = UpstreamRequest(
            method: "GET", url: "http://u/x.json", headers: [], body: nil, timeoutMilliseconds: 1000,
            connectTimeoutMilliseconds: 1000, maxBodyBytes: 1, upstreamName: "u")
        return UpstreamFetch(request: request, plan: UpstreamHealth.Fetch(request, now: 0)) { result, _ in calls(result)
        }
    }

    func testAFetchCompletesOnceAndIsDone() {
        var results = 0
        let fetch = fetch { _ in results += 1 }
        XCTAssertEqual(fetch.phaseName, "between")
        fetch.finish(.failure(.other, message: "first"))
        fetch.finish(.failure(.other, message: "second"))
        XCTAssertEqual(results, 1)
        XCTAssertTrue(fetch.isDone)
    }

    func testACancelledFetchNeverCompletes() {
        var results = 0
        let fetch = fetch { _ in results += 1 }
        XCTAssertNil(fetch.cancel(), "no transfer was out")
        XCTAssertEqual(fetch.phaseName, "done")
        fetch.finish(.failure(.other, message: "late"))
        XCTAssertEqual(results, 0)
    }

    func testAnAttemptGetsWhatIsLeftOfTheFetchsTime() {
        let attempt = fetch { _ in }.attemptRequest(timeoutMilliseconds: 400)
        XCTAssertEqual(attempt.url, "http://u/x.json")
        XCTAssertEqual(attempt.timeoutMilliseconds, 400)
        XCTAssertEqual(attempt.connectTimeoutMilliseconds, 400)
    }

    func testATransferEndingWithNoTransferOutTraps() throws {
        try expectTrap(containing: "impossible event 'transferEnded' in state 'between'") {
            fetch { _ in }.transferEnded()
        }
    }

    func testARetryDueAfterACancelTraps() throws {
        try expectTrap(containing: "impossible event 'retryDue' in state 'done'") {
            let fetch = fetch { _ in }
            _ = fetch.cancel()
            _ = fetch.retryDue()
        }
    }
}
