/// One worker's tracing: where its ids come from, which new traces are sampled, and where its
/// finished spans go. Confined to its loop like the lifecycles that use it (the generator is
/// changed in place), so it needs no lock.
package final class Tracer: @unchecked Sendable {
    package var random: TraceRandom
    /// The share of traces started here that are sampled; a client's own flag wins over it.
    package let sampleRatio: Double
    /// Unix time minus monotonic time, in seconds: spans carry wall-clock times, and the
    /// lifecycle only knows monotonic ones.
    package let unixOffsetSeconds: Double
    /// Takes each finished span; nil (no OTLP endpoint): no span is built at all.
    let export: ((Span) -> Void)?

    package init(
        random: TraceRandom = .system(), sampleRatio: Double = 1, unixOffsetSeconds: Double = 0,
        export: ((Span) -> Void)? = nil
    ) {
        self.random = random
        self.sampleRatio = sampleRatio
        self.unixOffsetSeconds = unixOffsetSeconds
        self.export = export
    }

    /// The trace a request belongs to: the client's when it sent a valid `traceparent` (with
    /// its `sampled` flag), else a new one sampled at `sampleRatio`. An invalid `traceparent`
    /// is as good as none: it is never passed on.
    /// `recordable` is false for work that is not a client's request (a cache refresh): its
    /// fetches carry the trace, but it has no spans.
    package func begin(traceparent: String?, tracestate: String?, recordable: Bool = true) -> RequestTrace {
        var context: TraceContext
        var parent: String?
        if let incoming = TraceContext.parse(traceparent: traceparent, tracestate: tracestate) {
            context = incoming.child(using: &random)
            parent = incoming.spanID
        } else {
            context = TraceContext.start(sampled: sampleNew(), using: &random)
        }
        return RequestTrace(
            context: context, parentSpanID: parent, recording: recordable && export != nil && context.sampled)
    }

    /// Whether a trace started here is sampled: a uniform draw below `sampleRatio`.
    func sampleNew() -> Bool {
        if sampleRatio >= 1 { return true }
        if sampleRatio <= 0 { return false }
        return Double(random.next() >> 11) * 0x1p-53 < sampleRatio
    }

    /// A monotonic time as the Unix nanoseconds a span carries.
    func unixNanoseconds(_ monotonicSeconds: Double) -> UInt64 {
        UInt64(max(0, (monotonicSeconds + unixOffsetSeconds) * 1e9))
    }
}

/// The trace of one request, decided when it arrives.
package struct RequestTrace: Sendable {
    /// The request's own (server) span: the trace, our span id, the flags and the
    /// `tracestate` its fetches pass on.
    package var context: TraceContext
    /// The client's span, when the request continues the client's trace.
    package var parentSpanID: String?
    /// Spans are built and exported for this request: there is an endpoint and it is sampled.
    package var recording: Bool

    package init(context: TraceContext, parentSpanID: String?, recording: Bool) {
        self.context = context
        self.parentSpanID = parentSpanID
        self.recording = recording
    }
}
