/// `live:` on a GET route with one fetch: besides its JSON answer, the route answers
/// `Accept: text/event-stream` with the normalized answer as a snapshot and then a JSON Patch per
/// change, from the upstream's Firebase event stream (docs/live.md).
package struct LivePolicy: Sendable, Equatable {
    package static let defaultKeepAliveMilliseconds = 15_000
    package static let defaultMaxSubscribers = 10_000
    package static let defaultBufferBytes = 1 << 20

    /// A `: keep-alive` comment goes to each subscriber this often.
    package var keepAliveMilliseconds: Int
    /// Subscribers per worker; one more is answered 503.
    package var maxSubscribers: Int
    /// A subscriber's unsent bytes beyond this close it as a slow consumer.
    package var bufferBytes: Int

    package init(
        keepAliveMilliseconds: Int = LivePolicy.defaultKeepAliveMilliseconds,
        maxSubscribers: Int = LivePolicy.defaultMaxSubscribers,
        bufferBytes: Int = LivePolicy.defaultBufferBytes
    ) {
        self.keepAliveMilliseconds = keepAliveMilliseconds
        self.maxSubscribers = maxSubscribers
        self.bufferBytes = bufferBytes
    }
}
