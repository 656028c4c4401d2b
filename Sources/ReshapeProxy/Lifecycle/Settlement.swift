/// What a request settles besides its answer, as fields of the one action that answers it (or
/// that says its client left): what it still has running, and the cache key it leads. The
/// server performs them in this order, before the answer is passed on.
package struct Settlement: Sendable {
    /// The fetches still in flight, to stop, and how each counts against its upstream's circuit.
    package var cancel: [FetchCancel] = []
    /// Stop the route timer armed with the first fetches (`Action.fetch(_:armTimer:)`).
    package var stopsRouteTimer = false
    /// Keep this answer in the cache replicas share.
    package var store: SharedStore?
    /// Wake the requests that waited for this one's fetch of their key.
    package var wake: Wake?

    package init(
        cancel: [FetchCancel] = [], stopsRouteTimer: Bool = false, store: SharedStore? = nil, wake: Wake? = nil
    ) {
        self.cancel = cancel
        self.stopsRouteTimer = stopsRouteTimer
        self.store = store
        self.wake = wake
    }

    /// An answer in the shared cache (Redis): its key there and what is stored under it.
    package struct SharedStore: Sendable {
        package var key: String
        package var stored: ResponseCache.Stored
    }

    /// Requests another request's fetch of their cache key answers: each waiter gets `delivery`.
    package struct Wake: Sendable {
        package var waiters: [ResponseCache.Waiter]
        package var delivery: ResponseCache.Delivery

        /// nil when nobody waited.
        init?(_ waiters: [ResponseCache.Waiter], _ delivery: ResponseCache.Delivery) {
            guard !waiters.isEmpty else { return nil }
            self.waiters = waiters
            self.delivery = delivery
        }
    }
}
