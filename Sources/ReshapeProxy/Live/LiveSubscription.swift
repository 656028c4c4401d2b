import ReshapeJSON
import ReshapeLive
import ReshapeProblem
import ReshapeRules

/// A client's subscription to a live route (`Accept: text/event-stream` on a GET of a route
/// with `live:`): what the server needs to open, or join, the route's shared upstream stream.
package struct LiveSubscription: Sendable {
    package let route: Route
    package let parameters: [String: String]
    /// The route's one fetch, built as a plain GET builds it (forwarded headers and query
    /// included); the server adds `Accept: text/event-stream` and lifts its timeout.
    package let request: UpstreamRequest
    /// Names the shared upstream stream: subscribers with equal keys share one. It contains
    /// forwarded header values, which may be credentials: never log it.
    package let streamKey: String
    package let policy: LivePolicy
    let rules: ServingRules
    /// On an `auth` route: when the subscriber's token expires (seconds since the Unix epoch),
    /// and the subscription ends with `token-expired`.
    package let tokenExpiresAt: Double?
    /// Headers the stream's head carries besides its own: CORS, for a page of another origin,
    /// and a `limit:` route's `RateLimit-Policy` and `RateLimit`.
    package var headHeaders: [NameValue] = []
    /// The subscriber's client view (`client-query`); nil: the whole answer.
    package var view: LiveView?

    init(
        route: Route, parameters: [String: String], request: UpstreamRequest, policy: LivePolicy, rules: ServingRules,
        tokenExpiresAt: Double? = nil
    ) {
        self.tokenExpiresAt = tokenExpiresAt
        self.route = route
        self.parameters = parameters
        self.request = request
        self.policy = policy
        self.rules = rules
        streamKey = Self.streamKey(route: route, parameters: parameters, request: request)
    }

    /// Names a route's upstream stream: the route, its path captures, the URL and the headers
    /// sent. The captures count although the URL may not contain them: the stream is normalized
    /// with its first subscriber's, which `set` and `default` templates may use, so two requests
    /// share a stream only when their answers would be the same.
    static func streamKey(route: Route, parameters: [String: String], request: UpstreamRequest) -> String {
        var key = route.name
        // Length-prefixed, so that no capture value can pass for another capture or the URL.
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
            key += "\n{\(name.utf8.count):\(name)=\(value.utf8.count):\(value)}"
        }
        key += "\n" + request.url
        for header in request.headers { key += "\n" + header.name + ":" + header.value }
        return key
    }

    /// The members every problem of the stream names the route by.
    package var context: [JSONMember] {
        [
            JSONMember(key: "route", value: .string(route.name)),
            JSONMember(key: "upstream", value: .string(route.upstream)),
        ]
    }

    /// A new stream of the route as `reshape replay` runs it (`LiveNormalizer`): record by
    /// record where the route allows, a failure being the problem a plain GET answers with.
    package func makeStream() -> LiveStream {
        LiveNormalizer.stream(for: route, in: rules.ruleSet, parameters: parameters, context: context)
    }

    /// Whether a request asks for a stream: a GET over HTTP/1.1 whose `Accept` names
    /// `text/event-stream`.
    static func asksForStream(_ request: HTTPRequest) -> Bool {
        // A stream is chunked, which HTTP/1.0 does not have: such a client gets the JSON.
        guard request.method == "GET", request.versionMinor >= 1, let accept = request.joinedHeader("Accept") else {
            return false
        }
        return accept.lowercased().contains("text/event-stream")
    }
}

extension Problem {
    /// More subscribers on this worker than the route's `live: max-subscribers`.
    package static func tooManySubscribers(route: String, limit: Int) -> Problem {
        Problem(
            status: 503, code: "too-many-subscribers", title: "Too many subscribers",
            detail: "this server already streams to \(limit) subscribers of the route; try again later",
            extra: [JSONMember(key: "route", value: .string(route))])
    }

    /// More distinct streams to the route's upstream host on this worker than it keeps open:
    /// each holds an upstream connection, and plain fetches need the rest.
    package static func tooManyStreams(route: String, upstream: String, limit: Int) -> Problem {
        Problem(
            status: 503, code: "too-many-streams", title: "Too many upstream streams",
            detail: "this server already keeps \(limit) live streams open to the route's upstream; try again later",
            extra: [
                JSONMember(key: "route", value: .string(route)),
                JSONMember(key: "upstream", value: .string(upstream)),
            ])
    }
}
