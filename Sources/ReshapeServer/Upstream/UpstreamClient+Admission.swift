import ReshapeProxy
import ReshapeStateMachines

// A fetch to an upstream with `max-in-flight`: it takes a place, waits in the queue, or is
// refused. A queued one goes on on its own loop when a place is handed to it (from any loop,
// through this loop's mailbox), or is refused when its queue timer fires first. With a place,
// it reserves its bytes in the memory budget (`UpstreamClient.start` says why in that order).
extension UpstreamClient {
    func admit(_ fetch: UpstreamFetch, rule: FetchAdmissionRule, admissions: UpstreamAdmissions) {
        let client = LoopOwned(self)
        let queued = QueuedFetch(fetch)
        let mailbox = self.mailbox
        let upstream = fetch.request.upstreamName
        let waiter = UpstreamAdmissions.Waiter {
            let posted = mailbox?.post { client.value.placeGiven(queued.fetch) } ?? false
            // The loop is gone: the place must not be lost with it.
            if !posted { admissions.finished(upstream: upstream, rule: rule) }
        }
        let action = admissions.arrive(upstream: upstream, rule: rule, waiter)
        switch action {
        case .start:
            fetch.place = .holding
            reserveOrBegin(fetch)
        case .wait(let ticket):
            let timer = RouteTimer(loop: loop, milliseconds: rule.queue?.timeoutMilliseconds ?? 0) {
                [unowned self] in
                self.queueTimedOut(fetch, ticket: ticket, rule: rule, admissions: admissions)
            }
            fetch.place = .waiting(ticket: ticket, timer: timer)
        case .refuse(let refusal, let seconds):
            refuse(fetch, refusal, rule: rule, retryAfterSeconds: seconds)
        case .wake, .none:
            // A wake comes only from a place freed, never from `arrive`.
            impossible("arrive answered \(action)", in: "FetchAdmission")
        }
    }

    /// On this loop: a place came free for `fetch`. Unless it was cancelled meanwhile (its
    /// leaving passed the place on), it goes on now.
    func placeGiven(_ fetch: UpstreamFetch) {
        guard case .waiting(_, let timer) = fetch.place, !fetch.isDone else { return }
        timer.stop()
        fetch.place = .holding
        reserveOrBegin(fetch)
    }

    private func queueTimedOut(
        _ fetch: UpstreamFetch, ticket: Int, rule: FetchAdmissionRule, admissions: UpstreamAdmissions
    ) {
        guard !fetch.isDone,
            case .refuse(let refusal, let seconds) = admissions.timedOut(
                upstream: fetch.request.upstreamName, ticket: ticket, rule: rule)
        else { return }  // a place was handed to it: its wake is on the way
        refuse(fetch, refusal, rule: rule, retryAfterSeconds: seconds)
    }

    private func refuse(
        _ fetch: UpstreamFetch, _ refusal: FetchAdmission<UpstreamAdmissions.Waiter>.Refusal,
        rule: FetchAdmissionRule, retryAfterSeconds: Int
    ) {
        fetch.place = .none
        let reason =
            switch refusal {
            case .noQueue:
                "the upstream has its \(rule.maxInFlight) fetches at once (max-in-flight) out and no queue"
            case .queueFull:
                "the upstream has its \(rule.maxInFlight) fetches at once (max-in-flight) out and its queue of \(rule.queue?.size ?? 0) is full"
            case .timedOut:
                "no place among the upstream's \(rule.maxInFlight) fetches at once (max-in-flight) came free within its queue's timeout of \(rule.queue?.timeoutMilliseconds ?? 0) ms"
            }
        fetch.finish(.saturated(reason, retryAfterSeconds: retryAfterSeconds))
    }
}
