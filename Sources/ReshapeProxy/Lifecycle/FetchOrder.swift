/// A fetch for the server to start; `id` names it when it finishes or is cancelled.
public struct FetchOrder: Sendable {
    public var id: Int
    public var request: UpstreamRequest
}
