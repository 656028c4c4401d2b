/// A fetch for the server to start; `id` names it when it finishes or is cancelled.
public struct FetchOrder: Sendable {
    public var id: Int
    public var request: UpstreamRequest
}

/// A fetch in flight for the server to stop, and how stopping it counts against its upstream's
/// circuit: as a timeout (the route's timeout cut it off) or not at all (the answer no longer
/// needs it, or the client left).
public struct FetchCancel: Sendable, Equatable {
    public var id: Int
    public var countsAsTimeout: Bool

    public init(id: Int, countsAsTimeout: Bool = false) {
        self.id = id
        self.countsAsTimeout = countsAsTimeout
    }
}
