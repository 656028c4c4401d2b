/// Live routes' counters: subscribers and upstream streams open now, events in and out,
/// patches sent, slow consumers closed. Kept apart from the request metrics, as their own block.
struct LiveCounters {
    var subscribers = 0
    var upstreamStreams = 0
    var eventsIn = 0
    var eventsOut = 0
    var patches = 0
    var slowConsumers = 0
}

extension Metrics {
    /// A subscriber joined (`+1`) or left (`-1`) a live stream on this worker.
    package func liveSubscribersChanged(by delta: Int) { liveCounters.withLock { $0.subscribers += delta } }
    /// An upstream stream was opened (`+1`) or closed (`-1`).
    package func liveUpstreamStreamsChanged(by delta: Int) { liveCounters.withLock { $0.upstreamStreams += delta } }
    /// A Firebase event arrived from an upstream stream.
    package func liveEventReceived() { liveCounters.withLock { $0.eventsIn += 1 } }
    /// An event went to a subscriber; `patch` when it was a patch.
    package func liveEventSent(patch: Bool) {
        liveCounters.withLock {
            $0.eventsOut += 1
            if patch { $0.patches += 1 }
        }
    }
    /// A subscriber was closed for not reading fast enough.
    package func liveSlowConsumerClosed() { liveCounters.withLock { $0.slowConsumers += 1 } }

    /// Subscribers open now on this worker.
    package var liveSubscribers: Int { liveCounters.withLock { $0.subscribers } }

    static func liveExposition(_ workers: [Metrics]) -> String {
        var total = LiveCounters()
        for worker in workers {
            let counters = worker.liveCounters.withLock { $0 }
            total.subscribers += counters.subscribers
            total.upstreamStreams += counters.upstreamStreams
            total.eventsIn += counters.eventsIn
            total.eventsOut += counters.eventsOut
            total.patches += counters.patches
            total.slowConsumers += counters.slowConsumers
        }
        return """
            # HELP reshape_live_subscribers Live-route subscribers streamed to now.
            # TYPE reshape_live_subscribers gauge
            reshape_live_subscribers \(total.subscribers)
            # HELP reshape_live_upstream_streams Upstream event streams open now.
            # TYPE reshape_live_upstream_streams gauge
            reshape_live_upstream_streams \(total.upstreamStreams)
            # HELP reshape_live_events_in_total Events received from upstream streams.
            # TYPE reshape_live_events_in_total counter
            reshape_live_events_in_total \(total.eventsIn)
            # HELP reshape_live_events_out_total Events sent to subscribers.
            # TYPE reshape_live_events_out_total counter
            reshape_live_events_out_total \(total.eventsOut)
            # HELP reshape_live_patches_total Patch events sent to subscribers.
            # TYPE reshape_live_patches_total counter
            reshape_live_patches_total \(total.patches)
            # HELP reshape_live_slow_consumers_total Subscribers closed for not reading fast enough.
            # TYPE reshape_live_slow_consumers_total counter
            reshape_live_slow_consumers_total \(total.slowConsumers)

            """
    }
}
