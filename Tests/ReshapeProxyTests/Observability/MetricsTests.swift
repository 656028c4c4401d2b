import XCTest

@testable import ReshapeProxy

final class MetricsTests: XCTestCase {
    private func lines(_ text: String) -> Set<String> { Set(text.split(separator: "\n").map(String.init)) }

    func testExpositionMergesWorkersIntoPrometheusText() {
        let first = Metrics()
        let second = Metrics()
        first.recordRequest(route: "users", status: 200, seconds: 0.003)
        second.recordRequest(route: "users", status: 200, seconds: 0.2)
        second.recordRequest(route: "users", status: 502, seconds: 0.01)
        first.recordUpstream(upstream: "firebase", seconds: 0.002, failure: nil)
        second.recordUpstream(upstream: "firebase", seconds: 5, failure: .timeout)
        first.recordDropped(route: "users", type: "User", count: 2)
        first.connectionOpened()
        second.connectionOpened()
        second.connectionClosed()
        first.requestStarted()
        let text = Metrics.exposition([first, second], digest: "abc123", reloads: 1, reloadFailures: 2)
        let got = lines(text)
        for expected in [
            "# TYPE reshape_requests_total counter",
            "reshape_requests_total{route=\"users\",status=\"200\"} 2",
            "reshape_requests_total{route=\"users\",status=\"502\"} 1",
            "# TYPE reshape_request_duration_seconds histogram",
            "reshape_request_duration_seconds_bucket{route=\"users\",le=\"0.005\"} 1",
            "reshape_request_duration_seconds_bucket{route=\"users\",le=\"0.01\"} 2",
            "reshape_request_duration_seconds_bucket{route=\"users\",le=\"0.25\"} 3",
            "reshape_request_duration_seconds_bucket{route=\"users\",le=\"+Inf\"} 3",
            "reshape_request_duration_seconds_count{route=\"users\"} 3",
            "reshape_upstream_duration_seconds_count{upstream=\"firebase\"} 2",
            "reshape_upstream_errors_total{upstream=\"firebase\",kind=\"timeout\"} 1",
            "reshape_dropped_elements_total{route=\"users\",type=\"User\"} 2",
            "reshape_open_connections 1",
            "reshape_requests_in_flight 1",
            "reshape_rules_info{digest=\"abc123\"} 1",
            "reshape_rule_reloads_total{result=\"ok\"} 1",
            "reshape_rule_reloads_total{result=\"refused\"} 2",
        ] {
            XCTAssertTrue(got.contains(expected), "missing: \(expected)\n\(text)")
        }
        XCTAssertTrue(text.hasSuffix("\n"))
    }

    func testLabelValuesAreEscaped() {
        let metrics = Metrics()
        metrics.recordDropped(route: "r", type: "Say \"hi\"\\\n")
        let text = Metrics.exposition([metrics], digest: "d", reloads: 0, reloadFailures: 0)
        XCTAssertTrue(text.contains("type=\"Say \\\"hi\\\"\\\\\\n\"} 1"), text)
    }

    func testRetriesAndCircuitsAreExposedAndTheWorstCircuitStateWins() {
        let first = Metrics()
        let second = Metrics()
        first.upstreamRetried(upstream: "firebase", reason: "reset")
        second.upstreamRetried(upstream: "firebase", reason: "reset")
        second.upstreamRetried(upstream: "firebase", reason: "503")
        first.circuitRejected(upstream: "firebase")
        first.circuitState(upstream: "firebase", value: 0)
        second.circuitState(upstream: "firebase", value: 1)
        let got = lines(Metrics.exposition([first, second], digest: "d", reloads: 0, reloadFailures: 0))
        for expected in [
            "# TYPE reshape_upstream_retries_total counter",
            "reshape_upstream_retries_total{upstream=\"firebase\",reason=\"reset\"} 2",
            "reshape_upstream_retries_total{upstream=\"firebase\",reason=\"503\"} 1",
            "# TYPE reshape_upstream_circuit_state gauge",
            "reshape_upstream_circuit_state{upstream=\"firebase\"} 1",
            "# TYPE reshape_upstream_circuit_rejections_total counter",
            "reshape_upstream_circuit_rejections_total{upstream=\"firebase\"} 1",
        ] {
            XCTAssertTrue(got.contains(expected), "missing: \(expected)")
        }
        XCTAssertEqual(Metrics.circuitStates([first, second]), ["firebase": 1])
    }

    func testRequestRowsComeInTheOrderOfRouteBarStatusAsText() {
        let metrics = Metrics()
        for (route, status) in [("users", 200), ("users-by-id", 404), ("users", 502), ("users-by-id", 200)] {
            metrics.recordRequest(route: route, status: status, seconds: 0.01)
        }
        let rows = Metrics.exposition([metrics], digest: "d", reloads: 0, reloadFailures: 0)
            .split(separator: "\n").filter { $0.hasPrefix("reshape_requests_total{") }
        XCTAssertEqual(
            rows,
            [
                #"reshape_requests_total{route="users-by-id",status="200"} 1"#,
                #"reshape_requests_total{route="users-by-id",status="404"} 1"#,
                #"reshape_requests_total{route="users",status="200"} 1"#,
                #"reshape_requests_total{route="users",status="502"} 1"#,
            ])
    }
}
