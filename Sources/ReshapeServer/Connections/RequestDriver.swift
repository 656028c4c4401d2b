import CLibUV
import ReshapeAuth
import ReshapeProxy
import ReshapeStateMachines

/// Performs request lifecycles' actions on one loop, deciding nothing: it starts the fetches a
/// lifecycle asks for and hands it their results, arms and stops its route timer, stops the
/// fetches it names as it says they count, stores to the shared cache, wakes waiters, asks the
/// live hub and the shared cache what the lifecycle wants to know, records finished requests,
/// passes answers on, and hands the refreshes it asks for to the loop's owner. A connection
/// has one for its requests; a worker has one for background cache refreshes, whose answers
/// nobody waits for.
///
/// Events reach a lifecycle only while its request is in `requests`, from its first action
/// until it is answered or cancelled; whatever arrives later for it (a cached answer, a
/// shared-cache reply, a timer) finds it gone and is dropped here, and a cancelled transfer
/// never reports. So the lifecycle may treat any event after its answer as impossible.
final class RequestDriver {
    private unowned let owner: any ConnectionOwner
    private let answered: (Int, HTTPResponse, HeldBytes?) -> Void
    private var requests: [Int: RequestLifecycle] = [:]
    /// A fetch in flight: its request and the lifecycle's id for it.
    private struct FetchKey: Hashable {
        let request: Int
        let fetch: Int
    }
    /// Fetches in flight. One flat table, whose storage outlives the requests, rather than a
    /// table allocated for every request. The lifecycle names the fetches to stop, so stopping
    /// a request's fetches needs no second index.
    private var inFlight: [FetchKey: UpstreamFetch] = [:]
    /// The route `timeout` of requests that have one, until they are answered.
    private var routeTimers: [Int: RouteTimer] = [:]
    /// What requests hold of the memory budget from their first fetch until they are
    /// answered; then the answer's write holds it.
    private var held: [Int: HeldBytes] = [:]
    /// Requests answered with a live stream, until the stream ends or the client leaves.
    private var subscriptions: [Int: (lifecycle: RequestLifecycle, subscriber: LiveSubscriber)] = [:]
    /// The connection a subscription streams to, which owns this driver; nil for a driver
    /// without a client. Unowned: a weak reference would give every connection a side table,
    /// one more block that each idle one keeps.
    unowned var host: (any StreamHost)?

    /// `answered` gets each request's answer once it is settled and recorded, with what it
    /// holds of the memory budget, given back when that is let go of (after the write).
    init(owner: any ConnectionOwner, answered: @escaping (Int, HTTPResponse, HeldBytes?) -> Void) {
        self.owner = owner
        self.answered = answered
    }

    var isIdle: Bool { requests.isEmpty && subscriptions.isEmpty }

    /// Takes over a lifecycle with its first action (from `begin`, or `startRefresh`).
    func run(_ id: Int, _ lifecycle: RequestLifecycle, _ action: RequestLifecycle.Action) {
        requests[id] = lifecycle
        perform(id, lifecycle, action)
    }

    /// The answer cache delivered what this request waited for.
    func cacheDelivered(_ id: Int, _ delivery: ResponseCache.Delivery) {
        guard let lifecycle = requests[id] else { return }
        perform(id, lifecycle, lifecycle.cacheDelivered(delivery, now: Clock.monotonicSeconds()))
    }

    /// The client went away: stop everything of this request, now.
    func cancel(_ id: Int) {
        if let (lifecycle, subscriber) = subscriptions[id] {
            host?.dropStreamSink(for: id)
            let action = lifecycle.subscriptionEnded(
                eventsSent: subscriber.eventsSent, bytesSent: subscriber.bytesSent, errorCode: subscriber.errorCode,
                now: Clock.monotonicSeconds(), wallClockMilliseconds: Clock.unixMilliseconds())
            return perform(id, lifecycle, action)
        }
        guard let lifecycle = requests[id] else { return }
        perform(id, lifecycle, lifecycle.cancelled())
    }

    func cancelAll() {
        for id in Array(requests.keys) + Array(subscriptions.keys) { cancel(id) }
    }

    /// Where another request's fetch of the same cached answer, which may end on any worker's
    /// thread, delivers to this request: back on this loop, to this driver if it is still there.
    func cacheWaiter(for id: Int) -> ResponseCache.Waiter {
        let reference = LoopBound(self)
        let mailbox = owner.mailbox
        return { delivery in
            mailbox?.post { reference.value?.cacheDelivered(id, delivery) }
        }
    }

    /// A refresh that will never run (its loop is draining, or serves no routes): cancelled,
    /// it hands its cache key to one of the requests waiting for it.
    static func drop(_ refresh: RequestLifecycle) {
        guard case .cancel(let settlement, _) = refresh.cancelled() else { return }
        if let wake = settlement.wake { for waiter in wake.waiters { waiter(wake.delivery) } }
    }

    // MARK: - Actions

    private func perform(_ id: Int, _ lifecycle: RequestLifecycle, _ action: RequestLifecycle.Action) {
        switch action {
        case .wait:
            return
        case .fetch(let orders, let armTimer):
            if let milliseconds = armTimer { armRouteTimer(id, milliseconds) }
            // A fetch that fails to start reports at once and may settle the request: start no more.
            for order in orders where requests[id] != nil { start(order, for: id) }
        case .lookUpKeys(let verifier, let refetch, let armTimer):
            if let milliseconds = armTimer { armRouteTimer(id, milliseconds) }
            guard let keyStore = owner.keyStore else { return keysFound(id, nil) }
            keyStore.lookUp(verifier, refetch: refetch) { [weak self] keys in self?.keysFound(id, keys) }
        case .checkLimits(let check):
            guard let limits = owner.sharedLimits else { return limitsChecked(id, nil) }
            limits.checkLimits(check) { [weak self] reply in self?.limitsChecked(id, reply) }
        case .lookUpShared(let key):
            guard let shared = owner.sharedCache else { return sharedAnswered(id, nil) }
            shared.get(key) { [weak self] bytes in self?.sharedAnswered(id, bytes) }
        case .lookUpLive(let route):
            let answer = owner.liveHub?.currentAnswer(route: route, key: { lifecycle.liveStreamKey() ?? "" })
            let next = lifecycle.liveLookupFinished(
                answer, now: Clock.monotonicSeconds(), cacheWaiter: cacheWaiter(for: id))
            perform(id, lifecycle, next)
        case .subscribe(let subscription):
            subscribe(id, lifecycle, subscription)
        case .respond(let response, let settlement):
            settle(id, settlement)
            respond(id, lifecycle, response)
        case .respondAndRefresh(let response, let refresh):
            respond(id, lifecycle, response)
            // The stale copy is out; the refresh it asked for runs on without a client.
            owner.runInBackground(refresh)
        case .record(let finished):
            record(finished)
        case .cancel(let settlement, let finished):
            requests[id] = nil
            held[id] = nil
            settle(id, settlement)
            record(finished)
        case .unsubscribe(let finished):
            if let (_, subscriber) = subscriptions.removeValue(forKey: id) { owner.liveHub?.unsubscribe(subscriber) }
            record(finished)
        case .exportSpan(let span, let next):
            owner.lifecycleSettings.tracer.send(span)
            perform(id, lifecycle, next)
        }
    }

    /// Records the answer, then passes it on: a client that reads it finds it in the metrics.
    private func respond(_ id: Int, _ lifecycle: RequestLifecycle, _ response: HTTPResponse) {
        guard requests.removeValue(forKey: id) != nil else { return }
        // A timer is the request's: once it is answered, none may stay behind (a stale answer
        // with its refresh carries no settlement to say so).
        routeTimers.removeValue(forKey: id)?.stop()
        let next = lifecycle.answered(
            response, now: Clock.monotonicSeconds(), wallClockMilliseconds: Clock.unixMilliseconds())
        let bytes = held.removeValue(forKey: id)
        if case .record(let finished) = next {
            bytes?.answerMade(tapeBytes: finished.tapeBytes, answerBytes: response.body.count)
        }
        perform(id, lifecycle, next)
        answered(id, response, bytes)
    }

    /// What an answer (or a client leaving) settles, in this loop turn: the route timer, the
    /// fetches still in flight, the shared cache, the waiters.
    private func settle(_ id: Int, _ settlement: Settlement) {
        if settlement.stopsRouteTimer { routeTimers.removeValue(forKey: id)?.stop() }
        for cancel in settlement.cancel {
            if let transfer = inFlight.removeValue(forKey: FetchKey(request: id, fetch: cancel.id)) {
                owner.upstream?.cancel(transfer, timedOut: cancel.countsAsTimeout)
            }
        }
        if let store = settlement.store, let shared = owner.sharedCache {
            let bytes = SharedCacheEntry.encode(
                store.stored, now: Clock.monotonicSeconds(), unixMilliseconds: Clock.unixMilliseconds())
            shared.set(store.key, bytes, milliseconds: SharedCacheEntry.lifetimeMilliseconds(store.stored))
        }
        if let wake = settlement.wake { for waiter in wake.waiters { waiter(wake.delivery) } }
    }

    private func record(_ finished: FinishedRequest) { Self.record(finished, owner: owner) }

    /// Writes a finished request into the metrics, the log and the trace: for the driver's
    /// requests, and for the cached answers a connection gives without one (`CacheHit`).
    static func record(_ finished: FinishedRequest, owner: any ConnectionOwner) {
        finished.record(in: owner.metrics)
        if let notice = finished.cacheSkip?.notice { Log.event(notice) }
        if let line = finished.accessLogLine { Log.access(line) }
        if let span = finished.span { owner.lifecycleSettings.tracer.send(span) }
    }

    /// Arms the request's route timer; one armed before for it is replaced, not left running
    /// (a timer holds itself until it fires or stops).
    private func armRouteTimer(_ id: Int, _ milliseconds: Int) {
        let timer = RouteTimer(loop: owner.loop, milliseconds: milliseconds) { [weak self] in
            guard let self, let lifecycle = self.requests[id] else { return }
            self.perform(id, lifecycle, lifecycle.timedOut())
        }
        routeTimers.updateValue(timer, forKey: id)?.stop()
    }

    private func keysFound(_ id: Int, _ keys: KeySet?) {
        guard let lifecycle = requests[id] else { return }
        let action = lifecycle.keysFound(
            keys, unixSeconds: Double(Clock.unixMilliseconds()) / 1000, now: Clock.monotonicSeconds(),
            cacheWaiter: cacheWaiter(for: id))
        perform(id, lifecycle, action)
    }

    private func limitsChecked(_ id: Int, _ reply: [Int]?) {
        guard let lifecycle = requests[id] else { return }
        perform(
            id, lifecycle,
            lifecycle.limitsChecked(reply, now: Clock.monotonicSeconds(), cacheWaiter: cacheWaiter(for: id)))
    }

    private func sharedAnswered(_ id: Int, _ bytes: [UInt8]?) {
        guard let lifecycle = requests[id] else { return }
        let action = lifecycle.sharedLookupFinished(
            bytes, now: Clock.monotonicSeconds(),
            unixMilliseconds: Clock.unixMilliseconds())
        perform(id, lifecycle, action)
    }

    private func start(_ order: FetchOrder, for id: Int) {
        let fetchID = order.id
        let key = FetchKey(request: id, fetch: fetchID)
        let counted = order.counted
        let transfer = owner.upstream?.start(order.request, heldBy: heldBytes(id, route: order.request.route)) {
            [weak self] result, seconds in
            guard let self else { return }
            let fetch = self.inFlight.removeValue(forKey: key)
            // How many times the upstream client retried it, for its span.
            let retries = fetch?.plan.retries ?? 0
            guard let lifecycle = self.requests[id] else { return }
            if let fetch, fetch.inflight != nil { self.fetchEnded(result, for: id) }
            counted.record(result, seconds: seconds, in: self.owner.metrics)
            let action = lifecycle.fetchFinished(
                fetchID, result, seconds: seconds, now: Clock.monotonicSeconds(), retries: retries)
            self.perform(id, lifecycle, action)
        }
        // A transfer that could not start has already reported its failure.
        guard let transfer else { return }
        if requests[id] != nil {
            inFlight[key] = transfer
        } else {
            owner.upstream?.cancel(transfer)  // the request was settled meanwhile: nobody waits for it
        }
    }

    /// A fetch of the request ended: what it brought teaches its route's next estimates.
    private func fetchEnded(_ result: UpstreamResult, for id: Int) {
        var body: Int?
        if case .response(let response) = result { body = response.body.count }
        held[id]?.fetchEnded(body: body)
    }

    /// What the request holds of the memory budget, made for its first fetch; nil without a budget.
    private func heldBytes(_ id: Int, route: String) -> HeldBytes? {
        if let bytes = held[id] { return bytes }
        guard let inflight = owner.upstream?.inflight else { return nil }
        let bytes = HeldBytes(inflight: inflight, route: route)
        held[id] = bytes
        return bytes
    }

    // MARK: - Live streams

    /// Joins the route's upstream stream and has the connection answer with it; a worker at
    /// the route's `max-subscribers`, or at its bound of streams to the upstream host, answers
    /// 503 instead.
    private func subscribe(_ id: Int, _ lifecycle: RequestLifecycle, _ subscription: LiveSubscription) {
        guard let host, let hub = owner.liveHub else {
            impossible("subscribe", in: "a driver without a client or a live hub")
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
            case .tooManySubscribers: return perform(id, lifecycle, lifecycle.subscriptionRefused())
            case .tooManyStreams(let limit):
                return perform(id, lifecycle, lifecycle.subscriptionRefused(streamLimit: limit))
            }
        }
        requests[id] = nil
        // The request is a subscription now: a route timer armed while it waited for a
        // verifier's keys bounds requests, not streams.
        routeTimers.removeValue(forKey: id)?.stop()
        subscriptions[id] = (lifecycle, subscriber)
        host.streamReady(id, headers: subscription.headHeaders)
    }
}
