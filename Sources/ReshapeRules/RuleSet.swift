import ReshapeJSON

// The compiled, immutable rule set: what `RuleLoader` produces from rule files and what
// the proxy runs. Nothing here knows about files, YAML or sockets; by the time a RuleSet
// exists every name is resolved, every template checked and every schema compiled.

/// Where something was written in a rule file, for diagnostics (1-based line and column).
package struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var column: Int
    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
    package var description: String { "\(file):\(line):\(column)" }
}

/// Every upstream, type and route from one rules directory.
package struct RuleSet: Sendable {
    package var upstreams: [String: Upstream]
    package var routes: [Route]
    /// Hex digest of the rule files' contents, reported by `/metrics` so a fleet's
    /// rule versions can be compared.
    package var digest: String
    /// Things allowed but suspicious (listing a header that is never forwarded); `reshape
    /// check` prints them without failing.
    package var warnings: [RuleDiagnostic]
    /// The `types:` as written (JSON Schema 2020-12, `$ref`s by type name), in file order: what
    /// `reshape openapi` publishes as components.
    package var types: [(name: String, schema: JSON)]
    /// The top-level `auth:` verifiers by name.
    package var verifiers: [String: AuthVerifierRule] = [:]
    /// The top-level `limits:` policies by name.
    package var limits: [String: LimitPolicy] = [:]
    /// The top-level `cors:`: browser pages of these origins may read every route's answers
    /// (a route may say otherwise); nil: same-origin only.
    package var cors: CORSPolicy?

    package init(
        upstreams: [String: Upstream], routes: [Route], digest: String, warnings: [RuleDiagnostic] = [],
        types: [(name: String, schema: JSON)] = []
    ) {
        self.upstreams = upstreams
        self.routes = routes
        self.digest = digest
        self.warnings = warnings
        self.types = types
    }
}

/// One HTTP header or query pair, in the order written.
package struct NameValue: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A backend named in the rules; the only hosts Reshape will ever contact.
package struct Upstream: Sendable {
    package var name: String
    /// `http` or `https`.
    package var scheme: String
    /// Host name or IP literal (IPv6 without brackets).
    package var host: String
    package var port: Int?
    /// Path prefix from the upstream URL, without a trailing slash ("" for none).
    package var basePath: String
    /// Whole request, including connect, in milliseconds.
    package var timeoutMilliseconds: Int
    package var connectTimeoutMilliseconds: Int
    /// Largest upstream body accepted (decoded); beyond it the request fails with 502.
    package var maxBodyBytes: Int
    /// Headers sent with every request, `${VAR}` already expanded.
    package var headers: [NameValue]
    /// Query pairs added to every request, `${VAR}` already expanded.
    package var query: [NameValue]
    /// Values that came from `${VAR}` expansion: they must never be logged or echoed.
    package var secrets: [String]
    /// When a failed fetch is tried again (`retry:`).
    package var retry = RetryRule.standard
    /// When the upstream stops being contacted (`circuit:`); nil: never.
    package var circuit: CircuitRule?
    /// The idle kept-alive connections (`max-idle`, `idle-timeout`).
    package var idlePool = IdlePoolRule.standard
    /// Which redirects are followed (`redirects:`); nil: none.
    package var redirects: RedirectRule?
    /// Fetches at once to this upstream, per process (`max-in-flight`); nil: unbounded.
    package var maxInFlight: Int?
    /// Where fetches beyond `maxInFlight` wait (`queue:`); nil: they are refused at once.
    package var queue: UpstreamQueueRule?

    package init(
        name: String, scheme: String, host: String, port: Int?, basePath: String,
        timeoutMilliseconds: Int = 10_000, connectTimeoutMilliseconds: Int = 3_000,
        maxBodyBytes: Int = 64 << 20, headers: [NameValue] = [], query: [NameValue] = [],
        secrets: [String] = []
    ) {
        self.name = name
        self.scheme = scheme
        self.host = host
        self.port = port
        self.basePath = basePath
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.maxBodyBytes = maxBodyBytes
        self.headers = headers
        self.query = query
        self.secrets = secrets
    }
}

/// A path such as `/users/{id}`: literal segments and `{name}` captures of one segment each.
package struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    package enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }
    package var segments: [Segment]
    /// The template as written.
    package var description: String

    package init(segments: [Segment], description: String) {
        self.segments = segments
        self.description = description
    }

    package var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// A path's segments, split at every `/` byte (as `split(separator: "/",
    /// omittingEmptySubsequences: false)` would, but by byte: a slash followed by a combining
    /// mark still separates). Templates and request paths are split the same way.
    package static func segments(of path: Substring) -> [Substring] {
        var segments: [Substring] = []
        segments.reserveCapacity(8)
        var start = path.startIndex
        var index = start
        let utf8 = path.utf8
        while index != path.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                segments.append(path[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        segments.append(path[start..<path.endIndex])
        return segments
    }
}

/// One client-facing endpoint: which requests it answers, where it fetches, how it reshapes.
package struct Route: Sendable {
    package var name: String
    /// Upper-case HTTP method, e.g. `GET`.
    package var method: String
    /// The client path template, e.g. `/users/{id}`.
    package var path: PathTemplate
    /// What the route fetches, all at once: one rule named "" for `upstream`/`path`, or one per
    /// `fetch:` member in the order written.
    package var fetches: [FetchRule]
    /// Client query parameters passed on to the upstream; all others are dropped.
    package var forwardQuery: [String]
    /// Client headers passed on (as written; `ForwardedHeaderPolicy` still refuses hop-by-hop ones).
    package var forwardHeaders: [String]
    /// The route's own upstream headers, after the upstream's.
    package var headers: [HeaderRule]
    /// How a client body is checked and sent; nil: the route takes no body.
    package var body: BodyRule?
    /// The transform up to the first `expand`.
    package var pipeline: Pipeline
    /// Each `expand` and the steps after it.
    package var stages: [ExpandStage]
    /// Bounds the whole request (every fetch and follow-up); nil: each fetch's upstream timeout.
    package var timeoutMilliseconds: Int?
    /// Whether an upstream's small JSON error body is shown to the client (`upstream-error`).
    package var exposeUpstreamErrors: Bool
    /// How long a GET route's answer is reused; nil: never cached.
    package var cache: CachePolicy?
    /// Changes when anything the route's answer depends on changes in the rule files (its text,
    /// the types, its upstreams): a reload keeps cached answers only of routes whose
    /// fingerprint stayed the same.
    package var fingerprint = ""
    /// Values from `${VAR}` in the route's headers: never logged or echoed.
    package var secrets: [String]
    package var location: SourceLocation
    /// Fixtures that `reshape test` runs offline.
    package var examples: [RouteExample]
    /// `idempotent: true`: the route's PUT or DELETE may be sent again after a failure, like a GET.
    package var idempotent = false
    /// `live:` on a GET route: it also answers `Accept: text/event-stream`; nil: not live.
    package var live: LivePolicy?
    /// `firebase-query: true`: the client's Firebase query parameters are checked and forwarded.
    package var firebaseQuery = FirebaseQuery.Use.off
    /// `auth:`: requests must carry a bearer token this verifier accepts; nil: no check.
    package var auth: RouteAuth?
    /// `query:`: upstream query parameters with `{capture}`/`{auth.<claim>}` templates, after the
    /// upstream's own.
    package var upstreamQuery: [HeaderRule] = []
    /// `limit:`: the names of the rate-limit policies a request of the route is counted under.
    package var limit: [String] = []
    /// `conditional: true`: Firebase's ETag is asked for (GET) or `If-Match` is passed on (writes).
    package var conditional = false
    /// On a conditional route: the fingerprint of the conditional routes on its path template
    /// (`ConditionalFingerprint`), part of every tag it makes or accepts.
    package var conditionalFingerprint = ""
    /// `cors:`: as the rule set's top level says, `false`, or a block of its own.
    package var cors = RouteCORS.inherited
    /// `client-query:`: the views of its array a client may ask for; nil: none.
    package var clientQuery: ClientQueryRule?

    package init(
        name: String, method: String, path: PathTemplate, upstream: String,
        upstreamPath: PathTemplate, forwardQuery: [String], pipeline: Pipeline,
        location: SourceLocation, examples: [RouteExample] = []
    ) {
        self.init(
            name: name, method: method, path: path,
            fetches: [FetchRule(name: "", upstream: upstream, path: upstreamPath)],
            forwardQuery: forwardQuery, pipeline: pipeline, location: location, examples: examples)
    }

    package init(
        name: String, method: String, path: PathTemplate, fetches: [FetchRule], forwardQuery: [String] = [],
        forwardHeaders: [String] = [], headers: [HeaderRule] = [], body: BodyRule? = nil,
        pipeline: Pipeline, stages: [ExpandStage] = [], timeoutMilliseconds: Int? = nil,
        exposeUpstreamErrors: Bool = false, cache: CachePolicy? = nil, secrets: [String] = [],
        location: SourceLocation, examples: [RouteExample] = []
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.fetches = fetches
        self.forwardQuery = forwardQuery
        self.forwardHeaders = forwardHeaders
        self.headers = headers
        self.body = body
        self.pipeline = pipeline
        self.stages = stages
        self.timeoutMilliseconds = timeoutMilliseconds
        self.exposeUpstreamErrors = exposeUpstreamErrors
        self.cache = cache
        self.secrets = secrets
        self.location = location
        self.examples = examples
    }

    /// One fetch named "": the response is that upstream's body (no `fetch:` object).
    package var isSingleFetch: Bool { fetches.count == 1 && fetches[0].name.isEmpty }
    /// The first fetch's upstream: the one a single-fetch route talks to.
    package var upstream: String { fetches[0].upstream }
    package var upstreamPath: PathTemplate { fetches[0].path }
    /// Whether upstream 401/403/409/422/429 are the client's answer (the request carries the
    /// client's credentials or data) rather than the operator's misconfiguration.
    package var speaksForClient: Bool { !forwardHeaders.isEmpty || body != nil }
    /// The request headers the route's answer depends on, for `Vary`: those it forwards, and
    /// `Authorization` when it verifies tokens (the answer is the token's user's).
    package var varyHeaders: [String] {
        guard auth != nil, !forwardHeaders.contains(where: { $0.lowercased() == "authorization" }) else {
            return forwardHeaders
        }
        return forwardHeaders + ["Authorization"]
    }

    /// Whether the route reads the client's `Authorization` header: it verifies a token, or
    /// forwards the header.
    package var readsAuthorization: Bool {
        auth != nil || forwardHeaders.contains { $0.lowercased() == "authorization" }
    }
}

/// One fixture of a route: what the client and the upstreams send, and what the client must get.
package struct RouteExample: Sendable {
    /// The upstream body; on a `fetch:` route an object of bodies by fetch name (an optional
    /// fetch left out counts as failed).
    package var upstream: JSON
    /// The client's request body (`request-body`), for routes with `body:`.
    package var requestBody: JSON?
    /// What the route must send upstream for `requestBody` (`sends`): JSON for `encoding: json`,
    /// a string for `encoding: form`.
    package var sends: JSON?
    /// Follow-up (`expand`) bodies by upstream path, e.g. `/users/u1.json`; a path not listed
    /// answers 404.
    package var followUps: [String: JSON]
    /// The expected response body; nil when the example expects an error.
    package var response: JSON?
    /// Path captures, as a client request would supply them.
    package var parameters: [String: String]
    /// The request's Firebase query order (`query:` on a route with `firebase-query: true`).
    package var queryOrder = FirebaseQuery.Order.key
    /// The client query's parameters (`query:` on a route with `client-query`), as a raw query
    /// string: the example's response is that view. Nil: the whole answer.
    package var clientQuery: String?
    /// How many elements must be dropped, when the example says.
    package var dropped: Int?
    /// The `PipelineError.code` expected instead of a response.
    package var error: String?
    package var location: SourceLocation

    package init(
        upstream: JSON, response: JSON?, parameters: [String: String] = [:], dropped: Int? = nil,
        error: String? = nil, requestBody: JSON? = nil, sends: JSON? = nil, followUps: [String: JSON] = [:],
        location: SourceLocation
    ) {
        self.upstream = upstream
        self.requestBody = requestBody
        self.sends = sends
        self.followUps = followUps
        self.response = response
        self.parameters = parameters
        self.dropped = dropped
        self.error = error
        self.location = location
    }
}
