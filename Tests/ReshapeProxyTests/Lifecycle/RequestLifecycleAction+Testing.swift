@testable import ReshapeProxy

/// What the tests read of an action: the request it records, and that record's access-log line.
extension RequestLifecycle.Action {
    /// What a `record`, `cancel` or `unsubscribe` records; nil for any other action.
    var finished: FinishedRequest? {
        switch self {
        case .record(let finished), .cancel(_, let finished), .unsubscribe(let finished): finished
        case .exportSpan(_, let next): next.finished
        case .wait, .fetch, .lookUpKeys, .checkLimits, .lookUpShared, .lookUpLive, .subscribe, .respond,
            .respondAndRefresh:
            nil
        }
    }

    /// The access-log line the action records, if any.
    var accessLogLine: [UInt8]? { finished?.accessLogLine }

    /// What an answer or a cancel settles; nil for any other action.
    var settlement: Settlement? {
        switch self {
        case .respond(_, let settlement), .cancel(let settlement, _): settlement
        case .exportSpan(_, let next): next.settlement
        case .wait, .fetch, .lookUpKeys, .checkLimits, .lookUpShared, .lookUpLive, .subscribe, .respondAndRefresh,
            .record,
            .unsubscribe:
            nil
        }
    }

    /// Wakes the waiters the action's settlement names, as the server does.
    func wakeWaiters() {
        guard let wake = settlement?.wake else { return }
        for waiter in wake.waiters { waiter(wake.delivery) }
    }
}
