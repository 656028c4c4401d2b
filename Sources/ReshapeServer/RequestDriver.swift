import CLibUV
import ReshapeProxy

/// Executes request lifecycles on one loop: starts the fetches a lifecycle asks for, hands it
/// their results, arms its route timeout, cancels what it no longer needs, and passes its
/// answer on. A connection has one for its requests; a worker has one for background cache
/// refreshes, whose answers nobody waits for.
final class RequestDriver {
    private unowned let owner: any ConnectionOwner
    private let answered: (Int, RequestLifecycle, HTTPResponse) -> Void
    private var requests: [Int: RequestLifecycle] = [:]
    /// Fetches in flight, by request and by the lifecycle's fetch id.
    private var inFlight: [Int: [Int: UpstreamTransfer]] = [:]
    /// The route `timeout` of requests that have one, until they are answered.
    private var routeTimers: [Int: RouteTimer] = [:]

    /// `answered` gets each request's answer after its fetches are stopped.
    init(owner: any ConnectionOwner, answered: @escaping (Int, RequestLifecycle, HTTPResponse) -> Void) {
        self.owner = owner
        self.answered = answered
    }

    var isIdle: Bool { requests.isEmpty }

    /// Takes over a lifecycle `begin` made, with its first step.
    func run(_ id: Int, _ lifecycle: RequestLifecycle, _ step: RequestLifecycle.Step) {
        requests[id] = lifecycle
        armTimeout(id, lifecycle, step)
        perform(id, step)
    }

    /// The answer cache delivered what this request waited for.
    func cacheDelivered(_ id: Int, _ delivery: ResponseCache.Delivery) {
        guard var lifecycle = requests[id] else { return }
        let step = lifecycle.cacheDelivered(delivery, now: Clock.monotonicSeconds())
        // A retried lookup may find a stale copy whose refresh is this request's to start.
        let refresh = lifecycle.takeBackgroundRefresh(now: Clock.monotonicSeconds())
        requests[id] = lifecycle
        if let refresh { owner.runInBackground(refresh.0, refresh.1) }
        armTimeout(id, lifecycle, step)
        perform(id, step)
    }

    /// The client went away: stop everything of this request, now.
    func cancel(_ id: Int) {
        stopFetches(of: id)
        requests.removeValue(forKey: id)?.cancelled()
    }

    func cancelAll() {
        for id in Array(requests.keys) { cancel(id) }
    }

    private func armTimeout(_ id: Int, _ lifecycle: RequestLifecycle, _ step: RequestLifecycle.Step) {
        guard case .fetch = step, routeTimers[id] == nil, let milliseconds = lifecycle.timeoutMilliseconds else { return }
        routeTimers[id] = RouteTimer(loop: owner.loop, milliseconds: milliseconds) { [weak self] in
            guard let self, self.requests[id] != nil else { return }
            let step = self.requests[id]!.timedOut()
            self.perform(id, step)
        }
    }

    private func perform(_ id: Int, _ step: RequestLifecycle.Step) {
        switch step {
        case .wait:
            return
        case .respond(let response, _):
            // Whatever the lifecycle still had in flight for this request is stopped now.
            stopFetches(of: id)
            guard let lifecycle = requests.removeValue(forKey: id) else { return }
            answered(id, lifecycle, response)
        case .lookUpShared(let key):
            guard let shared = owner.sharedCache else { return sharedAnswered(id, nil) }
            shared.get(key) { [weak self] bytes in self?.sharedAnswered(id, bytes) }
        case .fetch(let orders):
            // A fetch that fails to start reports at once and may settle the request: start no more.
            for order in orders where requests[id] != nil { start(order, for: id) }
        }
    }

    private func sharedAnswered(_ id: Int, _ bytes: [UInt8]?) {
        guard var lifecycle = requests[id] else { return }
        let step = lifecycle.sharedLookupFinished(bytes, now: Clock.monotonicSeconds(), unixMilliseconds: Clock.unixMilliseconds())
        requests[id] = lifecycle
        armTimeout(id, lifecycle, step)
        perform(id, step)
    }

    private func start(_ order: FetchOrder, for id: Int) {
        let fetchID = order.id
        let transfer = owner.upstream?.start(order.request) { [weak self] result, seconds in
            guard let self, self.requests[id] != nil else { return }
            self.inFlight[id]?[fetchID] = nil
            // In place (the dictionary's modify accessor): no copy of the lifecycle per event.
            let step = self.requests[id]!.fetchFinished(fetchID, result, seconds: seconds)
            self.perform(id, step)
        }
        // A transfer that could not start has already reported its failure.
        guard let transfer else { return }
        if requests[id] != nil {
            inFlight[id, default: [:]][fetchID] = transfer
        } else {
            owner.upstream?.cancel(transfer)  // the request was settled meanwhile: nobody waits for it
        }
    }

    /// Cancels a request's fetches still in flight and its route timer, in this loop turn.
    private func stopFetches(of id: Int) {
        routeTimers.removeValue(forKey: id)?.stop()
        guard let transfers = inFlight.removeValue(forKey: id) else { return }
        for (_, transfer) in transfers { owner.upstream?.cancel(transfer) }
    }
}
