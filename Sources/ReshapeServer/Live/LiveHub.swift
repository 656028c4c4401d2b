import CLibUV
import ReshapeJSON
import ReshapeLive
import ReshapeProxy

/// A worker's live streams: one `LiveUpstreamStream` per distinct upstream request (its
/// subscription's `streamKey`), opened by its first subscriber and shared by the later ones,
/// closed shortly after the last one leaves. Loop-confined, like the worker's connections.
final class LiveHub {
    let loop: UnsafeMutablePointer<uv_loop_t>
    let upstream: UpstreamClient
    let metrics: Metrics
    /// How long an upstream stream may send nothing (keep-alives included) before it is
    /// dropped and reconnected: twice Firebase's keep-alive period.
    let stallSeconds: Int
    /// How long a stream nobody subscribes to stays open, for a client that comes right back.
    let idleCloseMilliseconds = 500
    private var streams: [String: LiveUpstreamStream] = [:]
    /// Subscribers per route, against its `max-subscribers`.
    private var counts: [String: Int] = [:]
    /// Streams open per route, so that a plain GET of a route without any costs nothing.
    private var streamsPerRoute: [String: Int] = [:]
    /// Which stream each subscriber is on.
    private var placement: [ObjectIdentifier: LiveUpstreamStream] = [:]
    /// Streams that are over and gave their key up before their deferred close ran.
    private var retiring: [ObjectIdentifier: LiveUpstreamStream] = [:]
    /// Streams open per upstream host (scheme and authority), against `maxStreamsPerHost`.
    private var streamsPerHost: [String: Int] = [:]
    /// Streams one worker keeps open to one upstream host. Each holds one of curl's
    /// `UpstreamClient.maxHostConnections` to that host for as long as it lasts: without a
    /// bound, that many distinct streams (say, one per forwarded credential) would leave every
    /// plain fetch to the host queued in curl until its timeout. Half stays for the fetches.
    static let maxStreamsPerHost = UpstreamClient.maxHostConnections / 2

    /// Why `subscribe` turned a client away.
    enum Refusal: Error {
        /// The route has its `max-subscribers` on this worker.
        case tooManySubscribers
        /// Its upstream host has `maxStreamsPerHost` streams on this worker, none of them this one.
        case tooManyStreams(limit: Int)
    }

    init(loop: UnsafeMutablePointer<uv_loop_t>, upstream: UpstreamClient, metrics: Metrics, stallSeconds: Int = 60) {
        self.loop = loop
        self.upstream = upstream
        self.metrics = metrics
        self.stallSeconds = stallSeconds
    }

    /// Subscribes a client: joins the route's upstream stream for this request, opening it
    /// first if needed; or says why it may not.
    func subscribe(_ subscription: LiveSubscription, sink: any LiveSink) -> Result<LiveSubscriber, Refusal> {
        let route = subscription.route.name
        guard counts[route, default: 0] < subscription.policy.maxSubscribers else {
            return .failure(.tooManySubscribers)
        }
        let existing = streams[subscription.streamKey]
        let joins = existing.map { !$0.isOver } ?? false
        let host = Self.host(of: subscription.request.url)
        guard joins || streamsPerHost[host, default: 0] < Self.maxStreamsPerHost else {
            return .failure(.tooManyStreams(limit: Self.maxStreamsPerHost))
        }
        counts[route, default: 0] += 1
        metrics.liveSubscribersChanged(by: 1)
        let subscriber = LiveSubscriber(subscription: subscription, sink: sink, metrics: metrics)
        if joins, let stream = existing {
            placement[ObjectIdentifier(subscriber)] = stream
            stream.join(subscriber)
        } else {
            let stream = LiveUpstreamStream(subscription: subscription, hub: self)
            // One that is over (its close still due) is forgotten now: the new one takes its key.
            if let old = existing { retire(old) }
            streams[subscription.streamKey] = stream
            streamsPerRoute[route, default: 0] += 1
            streamsPerHost[host, default: 0] += 1
            placement[ObjectIdentifier(subscriber)] = stream
            // Joined before opening: a stream that cannot open yet retries for its subscribers.
            stream.join(subscriber)
            stream.open()
        }
        return .success(subscriber)
    }

    /// The subscriber's client is gone (or its stream ended): it leaves its stream. Once per
    /// subscriber; later calls do nothing.
    func unsubscribe(_ subscriber: LiveSubscriber) {
        guard let stream = placement.removeValue(forKey: ObjectIdentifier(subscriber)) else { return }
        counts[subscriber.routeName, default: 1] -= 1
        metrics.liveSubscribersChanged(by: -1)
        stream.leave(subscriber)
    }

    /// The worker is draining: every subscriber gets `shutting-down` and its stream closes.
    func drain() {
        for stream in Array(streams.values) { stream.endAll(.shuttingDown(context: stream.context)) }
    }

    /// Closes every stream (the worker is stopping).
    func close() {
        for stream in Array(streams.values) + Array(retiring.values) { stream.close() }
    }

    /// A stream that is over gives its key up to a new one before its deferred close ran. It
    /// is held here until it closes: its close is due on a timer that holds it weakly (it may
    /// not run inside the curl callback that ended it), and a stream freed before closing
    /// would leak its transfer and leave `live_upstream_streams` too high.
    private func retire(_ stream: LiveUpstreamStream) {
        forget(stream)
        guard !stream.isClosed else { return }
        retiring[ObjectIdentifier(stream)] = stream
        // Its own close is normally due already; this one makes sure (a second is a no-op).
        stream.closeLater()
    }

    /// A stream closed: the next subscriber to its key opens a new one.
    func forget(_ stream: LiveUpstreamStream) {
        if stream.isClosed { retiring[ObjectIdentifier(stream)] = nil }
        guard streams[stream.key] === stream else { return }
        streams[stream.key] = nil
        streamsPerRoute[stream.routeName, default: 1] -= 1
        streamsPerHost[stream.host, default: 1] -= 1
    }

    /// The scheme and authority of `url`, which curl counts connections by.
    static func host(of url: String) -> String {
        let bytes = Array(url.utf8)
        // Past "scheme://", up to the path, query or fragment.
        var start = 0
        while start + 2 < bytes.count, bytes[start] != UInt8(ascii: ":") { start += 1 }
        var end = start + 3
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        return String(decoding: bytes[..<min(end, bytes.count)], as: UTF8.self)
    }

    /// The answer a subscriber of this stream holds now; nil when no such stream is open or it
    /// has no snapshot yet. `key` is only built when the route has a stream open.
    func currentAnswer(route: String, key: () -> String) -> JSON? {
        guard streamsPerRoute[route, default: 0] > 0, let stream = streams[key()], !stream.isOver else { return nil }
        return stream.answer
    }
}
