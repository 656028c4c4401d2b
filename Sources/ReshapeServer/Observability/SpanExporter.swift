import CLibUV
import ReshapeJSON
import ReshapeProxy
import ReshapeRules
import Synchronization

/// Sends a worker's finished spans to the OTLP endpoint (OTLP/HTTP JSON), in batches, as POST
/// transfers on the worker's own curl multi: nothing blocks the loop and no answer waits for
/// it. Bounded: at most `queueBound` spans wait; past it new ones are dropped and counted. One
/// export is in flight at a time; a batch leaves when it is full or after `flushMilliseconds`.
final class SpanExporter {
    static let queueBound = 2048
    static let batchSize = 512
    static let flushMilliseconds: UInt64 = 1000
    /// Whether a failed export has been logged since the last one that succeeded: a collector
    /// that is down is said once for the process, not once per batch or per worker.
    private static let failureLogged = Atomic<Bool>(false)

    private let upstream: UpstreamClient
    private let endpoint: String
    private let serviceName: String
    private let metrics: Metrics
    private let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
    private var queue: [Span] = []
    /// The export in flight and how many spans it carries.
    private var exporting: (transfer: UpstreamFetch?, count: Int)?
    private var closed = false

    init(
        loop: UnsafeMutablePointer<uv_loop_t>, upstream: UpstreamClient, endpoint: String, serviceName: String,
        metrics: Metrics
    ) {
        self.upstream = upstream
        self.endpoint = endpoint
        self.serviceName = serviceName
        self.metrics = metrics
        queue.reserveCapacity(Self.batchSize)
        uv_timer_init(loop, timer)
        timer.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        uv_timer_start(timer, Self.tick, Self.flushMilliseconds, Self.flushMilliseconds)
    }

    private static let tick: uv_timer_cb = { timer in
        guard let timer, let data = timer.pointee.data else { return }
        Unmanaged<SpanExporter>.fromOpaque(data).takeUnretainedValue().flush()
    }

    /// Takes a finished span. A full batch is sent on the loop's next turn, not here: this
    /// runs as a request is answered, and encoding a batch would hold its answer back.
    func enqueue(_ span: Span) {
        guard !closed else { return }
        guard queue.count < Self.queueBound else { return metrics.recordSpansDropped(1, reason: .queueFull) }
        queue.append(span)
        if queue.count == Self.batchSize, exporting == nil {
            uv_timer_start(timer, Self.tick, 0, Self.flushMilliseconds)
        }
    }

    private func flush() {
        guard exporting == nil, !queue.isEmpty, !closed else { return }
        let count = min(queue.count, Self.batchSize)
        let body = OTLPJSON.exportRequest(serviceName: serviceName, spans: Array(queue.prefix(count)))
        queue.removeFirst(count)
        var request = UpstreamRequest(
            method: "POST", url: endpoint, headers: [NameValue(name: "Content-Type", value: "application/json")],
            body: body, timeoutMilliseconds: 10_000, connectTimeoutMilliseconds: 2_000, maxBodyBytes: 1 << 20,
            upstreamName: "(otlp)")
        // A batch sent twice (curl's resend on a closed kept-alive connection) is harmless, so it
        // may reuse connections like a read; it is not retried beyond that.
        request.retryable = true
        request.retry = RetryRule(attempts: 0, onReset: false, onConnectFailure: false, statuses: [], budgetPercent: 0)
        exporting = (nil, count)
        let transfer = upstream.start(request) { [weak self] result, _ in self?.finished(result, count: count) }
        // A transfer that could not start has reported already.
        if exporting != nil { exporting?.transfer = transfer }
    }

    private func finished(_ result: UpstreamResult, count: Int) {
        exporting = nil
        switch result {
        case .response(let response) where (200..<300).contains(response.status):
            metrics.recordSpansExported(count)
            Self.failureLogged.store(false, ordering: .relaxed)
        case .response(let response):
            failed(count, "the endpoint answered \(response.status)")
        case .failure(let kind, let message):
            failed(count, "\(kind.rawValue): \(message)")
        }
        // More waiting than a batch: the next one goes now rather than at the next tick.
        if queue.count >= Self.batchSize { uv_timer_start(timer, Self.tick, 0, Self.flushMilliseconds) }
    }

    private func failed(_ count: Int, _ reason: String) {
        metrics.recordSpansDropped(count, reason: .exportFailed)
        guard Self.failureLogged.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        Log.event(
            "span export failed; spans are dropped until an export succeeds",
            ["endpoint": .string(OTLPEndpoint.displayed(endpoint)), "error": .string(reason)])
    }

    /// Stops the timer and the export in flight; spans still queued are not sent.
    func close() {
        guard !closed else { return }
        closed = true
        if let transfer = exporting?.transfer { upstream.cancel(transfer) }
        exporting = nil
        queue.removeAll()
        uv_timer_stop(timer)
        uv_close(reshape_timer_handle(timer)) { handle in handle?.deallocate() }
    }
}
