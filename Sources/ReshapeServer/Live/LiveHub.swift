import CLibUV
import ReshapeJSON
import ReshapeLive
import ReshapeProxy
import ReshapeStateMachines

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
    /// Decides whom to admit: the counts against `max-subscribers` and `maxStreamsPerHost`.
    private var admission = LiveAdmission(maxStreamsPerHost: LiveHub.maxStreamsPerHost)
    /// The stream each key names now.
    private var streams: [String: LiveUpstreamStream] = [:]
    /// Which stream each subscriber is on.
    private var placement: [ObjectIdentifier: LiveUpstreamStream] = [:]
    /// Streams that are over and gave their key up before their deferred close ran.
    private var retiring: [ObjectIdentifier: LiveUpstreamStream] = [:]
    /// Streams one worker keeps open to one upstream host. Each holds one of curl's
    /// `UpstreamClient.maxHostConnections` to that host for as long as it lasts: without a
    /// bound, that many distinct streams (say, one per forwarded credential) would leave every
    /// plain fetch to the host queued in curl until its timeout. Half stays for the fetches.
    static let maxStreamsPerHost = UpstreamClient.maxHostConnections / 2

    /// Why `subscribe` turned a client away.
    typealias Refusal = LiveAdmission.Refusal

    init(loop: UnsafeMutablePointer<uv_loop_t>, upstream: UpstreamClient, metrics: Metrics, stallSeconds: Int = 60) {
        self.loop = loop
        self.upstream = upstream
        self.metrics = metrics
        self.stallSeconds = stallSeconds
    }

    /// Subscribes a client: joins the route's upstream stream for this request, opening it
    /// first if needed; or says why it may not.
    func subscribe(_ subscription: LiveSubscription, sink: any LiveSink) -> Result<LiveSubscriber, Refusal> {
        let existing = streams[subscription.streamKey]
        let underKey: LiveAdmission.StreamUnderKey = existing.map { $0.isOver ? .over : .open } ?? .none
        let action = admission.subscribe(
            route: subscription.route.name, host: Self.host(of: subscription.request.url),
            maxSubscribers: subscription.policy.maxSubscribers, existing: underKey)
        let subscriber: LiveSubscriber
        switch action {
        case .refuse(let refusal):
            return .failure(refusal)
        case .join:
            guard let stream = existing else { impossible("join", in: "a key without a stream") }
            subscriber = admitted(subscription, sink: sink, on: stream)
        case .open:
            subscriber = open(subscription, sink: sink)
        case .replace:
            guard let old = existing else { impossible("replace", in: "a key without a stream") }
            retire(old)
            subscriber = open(subscription, sink: sink)
        }
        return .success(subscriber)
    }

    /// A new stream under the subscription's key, its first subscriber joined before it opens:
    /// a stream that cannot open yet retries for its subscribers.
    private func open(_ subscription: LiveSubscription, sink: any LiveSink) -> LiveSubscriber {
        let stream = LiveUpstreamStream(subscription: subscription, hub: self)
        streams[subscription.streamKey] = stream
        let subscriber = admitted(subscription, sink: sink, on: stream)
        stream.open()
        return subscriber
    }

    /// A subscriber the admission counted, placed on `stream` and joined to it.
    private func admitted(_ subscription: LiveSubscription, sink: any LiveSink, on stream: LiveUpstreamStream)
        -> LiveSubscriber
    {
        metrics.liveSubscribersChanged(by: 1)
        let subscriber = LiveSubscriber(subscription: subscription, sink: sink, metrics: metrics)
        if let expiresAt = subscription.tokenExpiresAt { subscriber.expire(at: expiresAt, loop: loop) }
        placement[ObjectIdentifier(subscriber)] = stream
        stream.join(subscriber)
        return subscriber
    }

    /// The subscriber's client is gone (or its stream ended): it leaves its stream. Once per
    /// subscriber; later calls do nothing.
    func unsubscribe(_ subscriber: LiveSubscriber) {
        guard let stream = placement.removeValue(forKey: ObjectIdentifier(subscriber)) else { return }
        subscriber.left()
        admission.unsubscribed(route: subscriber.routeName)
        metrics.liveSubscribersChanged(by: -1)
        stream.leave(subscriber)
    }

    /// The worker is draining: every subscriber gets `shutting-down` and its stream closes.
    func drain() {
        for stream in Array(streams.values) { stream.drain() }
    }

    /// Closes every stream (the worker is stopping).
    func close() {
        for stream in Array(streams.values) + Array(retiring.values) { stream.close() }
    }

    /// A stream that is over gives its key up to a new one before its deferred close ran. It
    /// is held here until it closes: its close is due on a timer that holds it weakly (it may
    /// not run inside the curl callback that ended it), and a stream freed before closing
    /// would leak its transfer and leave `live_upstream_streams` too high. It no longer counts
    /// against the limits: the new one took its place.
    private func retire(_ stream: LiveUpstreamStream) {
        streams[stream.key] = nil
        guard !stream.isClosed else { return }
        retiring[ObjectIdentifier(stream)] = stream
        // Its own close is normally due already; this one makes sure (a second is a no-op).
        stream.closeLater()
    }

    /// A stream closed: the next subscriber to its key opens a new one.
    func forget(_ stream: LiveUpstreamStream) {
        retiring[ObjectIdentifier(stream)] = nil
        guard streams[stream.key] === stream else { return }
        streams[stream.key] = nil
        admission.streamClosed(route: stream.routeName, host: stream.host)
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
        guard admission.hasStreams(route: route), let stream = streams[key()], !stream.isOver else { return nil }
        return stream.answer
    }
}
