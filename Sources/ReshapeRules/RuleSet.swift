import ReshapeJSON

// The compiled, immutable rule set: what `RuleLoader` produces from rule files and what
// the proxy runs. Nothing here knows about files, YAML or sockets; by the time a RuleSet
// exists every name is resolved, every template checked and every schema compiled.

/// Where something was written in a rule file, for diagnostics (1-based line and column).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }
    public var description: String { "\(file):\(line):\(column)" }
}

/// Every upstream, type and route from one rules directory.
public struct RuleSet: Sendable {
    public var upstreams: [String: Upstream]
    public var routes: [Route]
    /// Hex digest of the rule files' contents, reported by `/metrics` so a fleet's
    /// rule versions can be compared.
    public var digest: String

    public init(upstreams: [String: Upstream], routes: [Route], digest: String) {
        self.upstreams = upstreams
        self.routes = routes
        self.digest = digest
    }
}

/// One HTTP header or query pair, in the order written.
public struct NameValue: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A backend named in the rules; the only hosts Reshape will ever contact.
public struct Upstream: Sendable {
    public var name: String
    /// `http` or `https`.
    public var scheme: String
    /// Host name or IP literal (IPv6 without brackets).
    public var host: String
    public var port: Int?
    /// Path prefix from the upstream URL, without a trailing slash ("" for none).
    public var basePath: String
    /// Whole request, including connect, in milliseconds.
    public var timeoutMilliseconds: Int
    public var connectTimeoutMilliseconds: Int
    /// Largest upstream body accepted (decoded); beyond it the request fails with 502.
    public var maxBodyBytes: Int
    /// Headers sent with every request, `${VAR}` already expanded.
    public var headers: [NameValue]
    /// Query pairs added to every request, `${VAR}` already expanded.
    public var query: [NameValue]
    /// Values that came from `${VAR}` expansion: they must never be logged or echoed.
    public var secrets: [String]

    public init(name: String, scheme: String, host: String, port: Int?, basePath: String,
                timeoutMilliseconds: Int = 10_000, connectTimeoutMilliseconds: Int = 3_000,
                maxBodyBytes: Int = 64 << 20, headers: [NameValue] = [], query: [NameValue] = [],
                secrets: [String] = []) {
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
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }
    public var segments: [Segment]
    /// The template as written.
    public var description: String

    public init(segments: [Segment], description: String) {
        self.segments = segments
        self.description = description
    }

    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }
}

/// One client-facing endpoint: which requests it answers, where it fetches, how it reshapes.
public struct Route: Sendable {
    public var name: String
    /// Upper-case HTTP method, e.g. `GET`.
    public var method: String
    /// The client path template, e.g. `/users/{id}`.
    public var path: PathTemplate
    /// Name of an entry in `RuleSet.upstreams`.
    public var upstream: String
    /// The upstream path template (after the upstream's base path). Unlike `path`, its
    /// segments are parts of the text (`/users/`, `{id}`, `.json`), concatenated.
    public var upstreamPath: PathTemplate
    /// Client query parameters passed on to the upstream; all others are dropped.
    public var forwardQuery: [String]
    public var pipeline: Pipeline
    public var location: SourceLocation
    /// Fixtures that `reshape test` runs offline.
    public var examples: [RouteExample]

    public init(name: String, method: String, path: PathTemplate, upstream: String,
                upstreamPath: PathTemplate, forwardQuery: [String], pipeline: Pipeline,
                location: SourceLocation, examples: [RouteExample] = []) {
        self.name = name
        self.method = method
        self.path = path
        self.upstream = upstream
        self.upstreamPath = upstreamPath
        self.forwardQuery = forwardQuery
        self.pipeline = pipeline
        self.location = location
        self.examples = examples
    }
}

/// One fixture of a route: what the upstream sends and what the client must get.
public struct RouteExample: Sendable {
    public var upstream: JSON
    /// The expected response body; nil when the example expects an error.
    public var response: JSON?
    /// Path captures, as a client request would supply them.
    public var parameters: [String: String]
    /// How many elements must be dropped, when the example says.
    public var dropped: Int?
    /// The `PipelineError.code` expected instead of a response.
    public var error: String?
    public var location: SourceLocation

    public init(upstream: JSON, response: JSON?, parameters: [String: String] = [:], dropped: Int? = nil,
                error: String? = nil, location: SourceLocation) {
        self.upstream = upstream
        self.response = response
        self.parameters = parameters
        self.dropped = dropped
        self.error = error
        self.location = location
    }
}
