import ReshapeJSON
import ReshapeSchema

// What a route sends upstream beyond its path: client headers passed on, its own headers,
// the client's body, and several fetches at once. Compiled by `RuleLoader`; used by the
// proxy's request lifecycle and by the offline runners.

/// One upstream request of a route. A route with `upstream`/`path` has one, named "";
/// a route with `fetch:` has one per member, named by it, in the order written.
package struct FetchRule: Sendable {
    /// The `fetch:` member name ("" for a route's single `upstream`/`path`).
    package var name: String
    package var upstream: String
    /// The upstream path template; captures are the route's and, in `expand`, `{value}`.
    package var path: PathTemplate
    /// A failed optional fetch becomes `null` in the input instead of failing the request.
    package var optional: Bool

    package init(name: String, upstream: String, path: PathTemplate, optional: Bool = false) {
        self.name = name
        self.upstream = upstream
        self.path = path
        self.optional = optional
    }
}

/// `headers: { X-Client: "reshape-{id}" }`: a per-route upstream header. `${VAR}` is expanded
/// at load time (its value is a secret); `{capture}` at request time.
package struct HeaderRule: Sendable {
    package var name: String
    let template: StringTemplate

    init(name: String, template: StringTemplate) {
        self.name = name
        self.template = template
    }

    /// The captures and `auth.<claim>`s the value names.
    package var parameterNames: [String] { template.parameterNames }

    /// A header with a fixed value (tests and programmatic rule sets).
    package init(name: String, value: String) {
        self.init(name: name, template: StringTemplate(parts: value.isEmpty ? [] : [.literal(value)]))
    }

    /// The value with captures filled as they are: a query parameter's, percent-encoded as it is sent.
    package func queryValue(_ parameters: [String: String]) -> String { template.render(parameters) }

    /// The value with captures filled. A capture is percent-decoded client input, so control
    /// characters (CR, LF, NUL...) in it are left out: they could end the header early.
    package func value(_ parameters: [String: String]) -> String {
        var text = ""
        for part in template.parts {
            switch part {
            case .literal(let literal): text += literal
            case .parameter(let name):
                let value = parameters[name] ?? ""
                if value.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                    text.unicodeScalars.append(
                        contentsOf: value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
                } else {
                    text += value
                }
            }
        }
        return text
    }
}

/// How a client body is sent upstream.
package enum BodyEncoding: String, Sendable, CaseIterable {
    /// `application/json`, compact.
    case json
    /// `application/x-www-form-urlencoded` from a flat object (strings, numbers, booleans, null).
    case form
}

/// `body:` on a POST, PUT or PATCH route: the client's JSON body is checked, transformed and
/// re-encoded before it goes upstream. Without it, a route refuses a client body (415).
package struct BodyRule: Sendable {
    /// The rule type the client's body must satisfy, checked as one value.
    package var typeName: String?
    package var validator: Validator?
    /// Run on the (valid) body before it is encoded.
    package var transform: Pipeline
    package var encoding: BodyEncoding

    package init(
        typeName: String? = nil, validator: Validator? = nil, transform: Pipeline = Pipeline(steps: []),
        encoding: BodyEncoding = .json
    ) {
        self.typeName = typeName
        self.validator = validator
        self.transform = transform
        self.encoding = encoding
    }
}

/// What `expand` does when an element's follow-up is missing (`null`, 404, or its transform failed).
package enum MissingPolicy: String, Sendable, CaseIterable {
    /// The `as` member is `null`.
    case null
    /// The element is removed.
    case drop
    /// The request fails with 502.
    case fail
}

/// `expand:` — a follow-up fetch per element of an array, bounded and de-duplicated.
package struct ExpandRule: Sendable {
    /// The member of each element whose value fills `{value}`.
    package var key: String
    package var fetch: FetchRule
    /// The member added to each element.
    package var member: String
    /// Follow-up fetches in flight at once for one request.
    package var concurrency: Int
    /// Run on each fetched body; a failure makes the follow-up missing.
    package var transform: Pipeline
    package var missing: MissingPolicy
    /// Distinct follow-up fetches one request may make; past it the request fails with 502.
    package var maxFetches: Int

    package static let defaultConcurrency = 8
    package static let defaultMaxFetches = 100

    package init(
        key: String, fetch: FetchRule, member: String, concurrency: Int = ExpandRule.defaultConcurrency,
        transform: Pipeline = Pipeline(steps: []), missing: MissingPolicy = .null,
        maxFetches: Int = ExpandRule.defaultMaxFetches
    ) {
        self.key = key
        self.fetch = fetch
        self.member = member
        self.concurrency = concurrency
        self.transform = transform
        self.missing = missing
        self.maxFetches = maxFetches
    }
}

/// A route's transform cut at each `expand`: `first` runs on the fetched input, then each
/// stage's follow-ups are fetched and merged and its `then` steps run. Routes without
/// `expand` have no stages and run exactly as before.
package struct ExpandStage: Sendable {
    package var expand: ExpandRule
    package var then: Pipeline

    package init(expand: ExpandRule, then: Pipeline) {
        self.expand = expand
        self.then = then
    }
}

/// Client headers a route may list but that are never passed on: they describe this hop,
/// not the request (RFC 9110 §7.6.1), or Reshape sets them itself.
package enum ForwardedHeaderPolicy {
    package static let neverForwarded: Set<String> = [
        "connection", "keep-alive", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authorization", "proxy-authenticate", "proxy-connection", "host", "content-length", "content-type",
        "expect",
    ]

    /// Whether a client header named `name` (any case) may be passed on.
    package static func mayForward(_ name: String) -> Bool {
        let lower = name.lowercased()
        return !neverForwarded.contains(lower) && !lower.hasPrefix("proxy-")
    }
}

extension FetchRule {
    /// A capture that would leave the upstream path: empty, `.` or `..`.
    package struct BadParameter: Error, Sendable, Equatable {
        package var name: String
    }

    /// The upstream path with captures filled, each percent-encoded byte by byte, so nothing
    /// a client sends (`..`, `%2F`, `@`, `#`, `?`, CR/LF, NUL) can leave the rule's path.
    package func renderedPath(_ parameters: [String: String]) throws(BadParameter) -> String {
        var path = ""
        for part in self.path.segments {
            switch part {
            case .literal(let text): path += text
            case .parameter(let name):
                let value = parameters[name] ?? ""
                if value.isEmpty || value == "." || value == ".." { throw BadParameter(name: name) }
                path += PercentEncoding.encode(value)
            }
        }
        return path
    }
}
