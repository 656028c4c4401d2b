/// What the span exporter did: spans delivered to the OTLP endpoint, and spans lost (a full
/// queue, or an export that failed). Kept apart from the request metrics, as their own block.
struct SpanCounters {
    var exported = 0
    var droppedQueueFull = 0
    var droppedExportFailed = 0
}

extension Metrics {
    /// Why spans were dropped, as the metric's `reason` label.
    package enum SpanDropReason: String, Sendable {
        case queueFull = "queue-full"
        case exportFailed = "export-failed"
    }

    /// An export delivered `count` spans.
    package func recordSpansExported(_ count: Int) { spanCounters.withLock { $0.exported += count } }

    package func recordSpansDropped(_ count: Int, reason: SpanDropReason) {
        spanCounters.withLock {
            switch reason {
            case .queueFull: $0.droppedQueueFull += count
            case .exportFailed: $0.droppedExportFailed += count
            }
        }
    }

    static func spanExposition(_ workers: [Metrics]) -> String {
        var total = SpanCounters()
        for worker in workers {
            let counters = worker.spanCounters.withLock { $0 }
            total.exported += counters.exported
            total.droppedQueueFull += counters.droppedQueueFull
            total.droppedExportFailed += counters.droppedExportFailed
        }
        return """
            # HELP reshape_spans_exported_total Spans delivered to the OTLP endpoint.
            # TYPE reshape_spans_exported_total counter
            reshape_spans_exported_total \(total.exported)
            # HELP reshape_spans_dropped_total Spans not delivered, by reason.
            # TYPE reshape_spans_dropped_total counter
            reshape_spans_dropped_total{reason="queue-full"} \(total.droppedQueueFull)
            reshape_spans_dropped_total{reason="export-failed"} \(total.droppedExportFailed)

            """
    }
}
