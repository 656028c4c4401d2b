import ReshapeJSON
import ReshapeLive
import ReshapeProblem

/// The problems only the server ends a live stream with (docs/errors.md); each names the route
/// and upstream through `context`.
extension Problem {
    /// The subscriber did not read its events fast enough: its unsent bytes passed `buffer`.
    package static func slowConsumer(limit: Int, context: [JSONMember]) -> Problem {
        Problem(
            status: 503, code: "slow-consumer", title: "Slow consumer",
            detail: "the client did not read the stream fast enough (more than \(limit) bytes unsent)",
            extra: context)
    }

    /// The server is shutting down; reconnect to another instance.
    package static func shuttingDown(context: [JSONMember]) -> Problem {
        Problem(
            status: 503, code: "shutting-down", title: "Shutting down",
            detail: "the server is shutting down; reconnect", extra: context)
    }

    /// The upstream answered the stream request with another status than 200, or with a 200
    /// that is not an event stream (`contentType`).
    package static func streamRefused(status: Int, contentType: String? = nil, context: [JSONMember]) -> Problem {
        let what = status == 200 ? "200 with Content-Type \(contentType ?? "(none)")" : String(status)
        return Problem(
            status: 502, code: "upstream-stream-refused", title: "Upstream refused the stream",
            detail: "the upstream answered \(what) to the stream request, not an event stream", extra: context)
    }

    /// The upstream redirected the stream request where its `redirects:` does not allow.
    package static func redirectRefused(_ detail: String, context: [JSONMember]) -> Problem {
        Problem(
            status: 502, code: "upstream-redirect-refused", title: "Upstream redirect refused",
            detail: detail, extra: context)
    }

    /// The upstream sent something that is not a Firebase event stream.
    package static func streamInvalid(_ detail: String, context: [JSONMember]) -> Problem {
        Problem(
            status: 502, code: "upstream-stream-invalid", title: "Invalid upstream stream",
            detail: detail, extra: context)
    }
}
