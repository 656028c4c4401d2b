import CLibUV
import ReshapeProxy

/// Performs request lifecycles' actions on one loop: starts the fetches a lifecycle asks for,
/// hands it their results, arms its route timeout, cancels what it no longer needs, passes
/// its answer on, and hands the refreshes it asks for to the loop's owner. A connection has
/// one for its requests; a worker has one for background cache refreshes, whose answers
/// nobody waits for.
///
/// Events reach a lifecycle only while its request is in `requests`, from its first action
/// until it is answered or cancelled; whatever arrives later for it (a cached answer, a
/// shared-cache reply, a timer) finds it gone and is dropped here, and a cancelled transfer
/// never reports. So the lifecycle may treat any event after its answer as impossible.
final class RequestDriver {
    private unowned let owner: any ConnectionOwner
    private let answered: (Int, RequestLifecycle, HTTPResponse) -> Void
    private var requests: [Int: RequestLifecycle] = [:]
    /// A fetch in flight: its request and the lifecycle's id for it.
    private struct FetchKey: Hashable {
        let request: Int
        let fetch: Int
    }
    /// Fetches in flight. One flat table, whose storage outlives the requests, rather than a
    /// table allocated for every request. The lifecycle knows which of its fetches are still
    /// in flight, so stopping a request's fetches needs no second index.
    private var inFlight: [FetchKey: UpstreamFetch] = [:]
    /// The route `timeout` of requests that have one, until they are answered.
    private var routeTimers: [Int: RouteTimer] = [:]
    /// The request whose route timeout is being answered now.
    private var timingOut: Int?
    /// Requests answered with a live stream, until the stream ends or the client leaves.
    private var subscriptions: [Int: (lifecycle: RequestLifecycle, subscriber: LiveSubscriber)] = [:]
    /// The connection a subscription streams to; nil for a driver without a client.
    weak var host: (any StreamHost)?

    /// `answered` gets each request's answer after its fetches are stopped.
    init(owner: any ConnectionOwner, answered: @escaping (Int, RequestLifecycle, HTTPResponse) -> Void) {
        self.owner = owner
        self.answered = answered
    }

    var isIdle: Bool { requests.isEmpty && subscriptions.isEmpty }

    /// Takes over a lifecycle with its first action (from `begin`, or `startRefresh`).
    func run(_ id: Int, _ lifecycle: RequestLifecycle, _ action: RequestLifecycle.Action) {
        requests[id] = lifecycle
        armTimeout(id, lifecycle, action)
        perform(id, action)
    }

    /// The answer cache delivered what this request waited for.
    func cacheDelivered(_ id: Int, _ delivery: ResponseCache.Delivery) {
        guard let lifecycle = requests[id] else { return }
        let action = lifecycle.cacheDelivered(delivery, now: Clock.monotonicSeconds())
        armTimeout(id, lifecycle, action)
        perform(id, action)
    }

    /// The client went away: stop everything of this request, now.
    func cancel(_ id: Int) {
        if let (lifecycle, subscriber) = subscriptions.removeValue(forKey: id) {
            host?.dropStreamSink(for: id)
            return endSubscription(lifecycle, subscriber)
        }
        stopFetches(of: id, requests[id]?.fetchesInFlight ?? [])
        requests.removeValue(forKey: id)?.cancelled()
    }

    func cancelAll() {
        for id in Array(requests.keys) + Array(subscriptions.keys) { cancel(id) }
    }

    private func armTimeout(_ id: Int, _ lifecycle: RequestLifecycle, _ action: RequestLifecycle.Action) {
        guard case .fetch = action, routeTimers[id] == nil,
            let milliseconds = lifecycle.timeoutMilliseconds
        else { return }
        routeTimers[id] = RouteTimer(loop: owner.loop, milliseconds: milliseconds) { [weak self] in
            guard let self, let lifecycle = self.requests[id] else { return }
            let action = lifecycle.timedOut()
            // The fetches it cuts off count against their upstreams' circuits, as timeouts.
            self.timingOut = id
            defer { self.timingOut = nil }
            self.perform(id, action)
        }
    }

    private func perform(_ id: Int, _ action: RequestLifecycle.Action) {
        switch action {
        case .wait:
            return
        case .respond(let response, let cancel):
            respond(id, response, cancel: cancel)
        case .respondAndRefresh(let response, let refresh):
            respond(id, response, cancel: [])
            // The stale copy is out; the refresh it asked for runs on without a client.
            owner.runInBackground(refresh)
        case .lookUpShared(let key):
            guard let shared = owner.sharedCache else { return sharedAnswered(id, nil) }
            shared.get(key) { [weak self] bytes in self?.sharedAnswered(id, bytes) }
        case .subscribe(let subscription):
            subscribe(id, subscription)
        case .fetch(let orders):
            // A fetch that fails to start reports at once and may settle the request: start no more.
            for order in orders where requests[id] != nil { start(order, for: id) }
        }
    }

    /// Stops what the lifecycle still had in flight for this request (the fetches in
    /// `cancel`, listed by the answer, and the route timer), then passes the answer on.
    private func respond(_ id: Int, _ response: HTTPResponse, cancel: [Int]) {
        stopFetches(of: id, cancel)
        guard let lifecycle = requests.removeValue(forKey: id) else { return }
        answered(id, lifecycle, response)
    }

    private func sharedAnswered(_ id: Int, _ bytes: [UInt8]?) {
        guard let lifecycle = requests[id] else { return }
        let action = lifecycle.sharedLookupFinished(
            bytes, now: Clock.monotonicSeconds(),
            unixMilliseconds: Clock.unixMilliseconds())
        armTimeout(id, lifecycle, action)
        perform(id, action)
    }

    private func start(_ order: FetchOrder, for id: Int) {
        let fetchID = order.id
        let key = FetchKey(request: id, fetch: fetchID)
        let transfer = owner.upstream?.start(order.request) { [weak self] result, seconds in
            guard let self else { return }
            // How many times the upstream client retried it, for its span.
            let retries = self.inFlight.removeValue(forKey: key)?.plan.retries ?? 0
            guard let lifecycle = self.requests[id] else { return }
            let action = lifecycle.fetchFinished(
                fetchID, result, seconds: seconds, now: Clock.monotonicSeconds(), retries: retries)
            self.perform(id, action)
        }
        // A transfer that could not start has already reported its failure.
        guard let transfer else { return }
        if requests[id] != nil {
            inFlight[key] = transfer
        } else {
            owner.upstream?.cancel(transfer)  // the request was settled meanwhile: nobody waits for it
        }
    }

    /// Cancels a request's fetches still in flight (`fetches`, as its lifecycle names them) and
    /// its route timer, in this loop turn.
    private func stopFetches(of id: Int, _ fetches: [Int]) {
        routeTimers.removeValue(forKey: id)?.stop()
        // A route timeout counts against each upstream's circuit once, however many of the
        // request's fetches it cut off: one slow request (an `expand` of many follow-ups) must
        // not open a circuit that every other request would then be refused by.
        var counted: Set<String> = []
        for fetch in fetches {
            if let transfer = inFlight.removeValue(forKey: FetchKey(request: id, fetch: fetch)) {
                let countsAsTimeout = timingOut == id && counted.insert(transfer.plan.upstream).inserted
                owner.upstream?.cancel(transfer, timedOut: countsAsTimeout)
            }
        }
    }

    // MARK: - Live streams

    /// Joins the route's upstream stream and has the connection answer with it; a worker at
    /// the route's `max-subscribers`, or at its bound of streams to the upstream host, answers
    /// 503 instead.
    private func subscribe(_ id: Int, _ subscription: LiveSubscription) {
        guard let lifecycle = requests[id] else { return }
        guard let host, let hub = owner.liveHub else {
            preconditionFailure("RequestDriver: a subscription on a driver without a client or a live hub")
        }
        // The sink is made first: a subscriber that joins an open stream gets its snapshot at once.
        let sink = host.streamSink(for: id)
        let subscriber: LiveSubscriber
        switch hub.subscribe(subscription, sink: sink) {
        case .success(let joined): subscriber = joined
        case .failure(let refusal):
            // A keep-alive connection may be refused many times: no sink stays behind.
            host.dropStreamSink(for: id)
            switch refusal {
            case .tooManySubscribers: return perform(id, lifecycle.subscriptionRefused())
            case .tooManyStreams(let limit): return perform(id, lifecycle.subscriptionRefused(streamLimit: limit))
            }
        }
        requests[id] = nil
        subscriptions[id] = (lifecycle, subscriber)
        host.streamReady(id)
    }

    /// The subscription is over (the client left, or the stream ended and closed it): out of
    /// its stream, and its access-log line.
    private func endSubscription(_ lifecycle: RequestLifecycle, _ subscriber: LiveSubscriber) {
        owner.liveHub?.unsubscribe(subscriber)
        if let line = lifecycle.subscriptionEnded(
            eventsSent: subscriber.eventsSent, bytesSent: subscriber.bytesSent, errorCode: subscriber.errorCode,
            now: Clock.monotonicSeconds(), wallClockMilliseconds: Clock.unixMilliseconds())
        {
            Log.access(line)
        }
    }
}
