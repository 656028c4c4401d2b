import CLibUV
import XCTest

@testable import ReshapeProxy
@testable import ReshapeServer

/// The exporter on a loop of its own, against the real OTLP receiver: its bound, its batches
/// and its counters.
final class SpanExporterTests: XCTestCase {
    private func span(_ index: Int) -> Span {
        Span(
            traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: String(format: "%016x", index + 1),
            parentSpanID: nil, name: "GET /x", kind: .server, startUnixNanoseconds: 1, endUnixNanoseconds: 2,
            attributes: [("reshape.index", .int(index))], failed: false)
    }

    func testAFullQueueDropsAndCountsWhatItCannotHoldAndTheRestIsExportedInBatches() throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        uv_loop_init(loop)
        let metrics = Metrics()
        let upstream = UpstreamClient(loop: loop, metrics: metrics)
        let exporter = SpanExporter(
            loop: loop, upstream: upstream, endpoint: "http://127.0.0.1:\(receiver.port)/v1/traces",
            serviceName: "exporter-test", metrics: metrics)
        let overflow = 52
        // All in one loop turn, as a burst of answers would: nothing leaves until the loop runs.
        for index in 0..<(SpanExporter.queueBound + overflow) { exporter.enqueue(span(index)) }
        func exposition() -> String { Metrics.exposition([metrics], digest: "d", reloads: 0, reloadFailures: 0) }
        XCTAssertTrue(
            exposition().contains(#"reshape_spans_dropped_total{reason="queue-full"} \#(overflow)"#), exposition())
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !exposition().contains("reshape_spans_exported_total \(SpanExporter.queueBound)\n") {
            // Returns after the loop has handled an event: the exporter's timer keeps it alive.
            uv_run(loop, UV_RUN_ONCE)
        }
        XCTAssertTrue(
            exposition().contains("reshape_spans_exported_total \(SpanExporter.queueBound)\n"), exposition())
        let lines = try receiver.lines()
        XCTAssertEqual(lines.count, SpanExporter.queueBound)
        XCTAssertTrue(lines.allSatisfy { $0["error"] == nil && $0["service"] as? String == "exporter-test" })
        let indices = lines.compactMap { ($0["attributes"] as? [String: Any])?["reshape.index"] as? Int }
        XCTAssertEqual(indices, Array(0..<SpanExporter.queueBound), "the first spans, in order")
        exporter.close()
        upstream.close()
        uv_run(loop, UV_RUN_DEFAULT)
        uv_loop_close(loop)
        loop.deallocate()
    }
}
