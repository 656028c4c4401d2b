import ReshapeJSON
import ReshapeSchema

/// What a route's parts are checked against while it compiles: where it was written, the
/// names it may use, and its request captures (nil when the request itself was faulty, so
/// captures are not checked against a template that does not exist).
struct RouteScope {
    let document: SourceDocument
    let pointer: String
    let upstreamNames: Set<String>
    let types: SchemaSet?
    let requestTemplate: PathTemplate?
    /// `firebase-query: true` (even where refused): the route's own steps may say `order: query`.
    var firebaseQuery = false
    /// The route says `auth:` (even where refused): its templates may name `{auth.<claim>}`.
    var hasAuth = false
    /// The claims the route's steps name, noted as they compile.
    let claimsUsed = ClaimsUsed()

    var captures: Set<String> { Set(requestTemplate?.parameterNames ?? []) }
    var operationContext: OperationCompileContext {
        OperationCompileContext(
            types: types, parameterNames: captures, firebaseQuery: firebaseQuery, authClaims: hasAuth,
            claimsUsed: claimsUsed)
    }
}

extension RuleSetBuilder {
    static let routeKeys: Set<String> = [
        "name", "request", "upstream", "path", "fetch", "forward-query", "forward-headers", "headers", "body",
        "transform", "timeout", "expose-upstream-errors", "cache", "examples", "idempotent", "live",
        "firebase-query", "auth", "query", "conditional", "cors", "limit", "client-query",
    ]
    static let methods = ["GET", "POST", "PUT", "PATCH", "DELETE"]
    static let bodyMethods: Set<String> = ["POST", "PUT", "PATCH"]

    /// Checks one route, reporting every problem in it; nil when it has any.
    mutating func compileRoute(
        _ entry: Entry, upstreamNames: Set<String>, types: SchemaSet?, verifiers: Set<String> = []
    ) -> Route? {
        let document = entry.document
        guard case .object(let object) = entry.value else {
            report(
                document, entry.pointer,
                "a route must be a mapping with name, request, upstream and path (or fetch), and transform")
            return nil
        }
        let before = problems.count
        _ = reportUnknownKeys(in: object, allowed: Self.routeKeys, what: "route key", document, entry.pointer)
        let label = "route" + (entry.name.isEmpty ? "" : " '\(entry.name)'")
        let name = requiredString("name", in: object, document, entry.pointer, label: label)
        let request = requiredString("request", in: object, document, entry.pointer, label: label)
        var method = ""
        var requestTemplate: PathTemplate?
        if let request { (method, requestTemplate) = compileRequest(request, document, entry.pointer + "/request") }
        var scope = RouteScope(
            document: document, pointer: entry.pointer, upstreamNames: upstreamNames, types: types,
            requestTemplate: requestTemplate)
        scope.firebaseQuery = compileFirebaseQuery(object, method: method, document, entry.pointer)
        scope.hasAuth = object["auth"] != nil
        let auth = compileRouteAuth(object["auth"], verifiers: verifiers, scope)

        let fetches = compileFetches(object, scope, label: label)
        var forwardQuery: [String] = []
        if let value = object["forward-query"] {
            if case .array(let names) = value, names.allSatisfy({ $0.stringValue != nil }) {
                forwardQuery = names.compactMap(\.stringValue)
            } else {
                report(
                    document, entry.pointer + "/forward-query",
                    "`forward-query` must be a list of query parameter names")
            }
        }
        let forwardHeaders = compileForwardHeaders(object["forward-headers"], scope)
        var secrets: [String] = []
        let headers = compileHeaders(object["headers"], scope, forwarded: forwardHeaders, secrets: &secrets)
        let upstreamQuery = compileUpstreamQuery(object["query"], scope, forwardQuery: forwardQuery, secrets: &secrets)
        let body = compileBody(object["body"], method: method, scope)
        var timeout: Int?
        if let value = object["timeout"] {
            if case .string(let text) = value, let ms = Quantities.milliseconds(text) {
                timeout = ms
            } else {
                report(document, entry.pointer + "/timeout", "`timeout` must be a duration like 250ms, 5s or 1m")
            }
        }
        let cache = compileCache(object["cache"], method: method, scope)
        var exposeUpstreamErrors = false
        if let value = object["expose-upstream-errors"] {
            if case .bool(let flag) = value {
                exposeUpstreamErrors = flag
            } else {
                report(
                    document, entry.pointer + "/expose-upstream-errors",
                    "`expose-upstream-errors` must be true or false")
            }
        }

        let idempotent = compileIdempotent(object["idempotent"], method: method, scope)
        let cors = compileRouteCORS(object["cors"], scope)
        let limit = compileRouteLimit(object["limit"], scope)

        var pipeline = Pipeline(steps: [])
        var stages: [ExpandStage] = []
        if let transform = object["transform"] {
            if let compiled = compileTransform(transform, scope) { (pipeline, stages) = compiled }
        } else {
            report(
                document, entry.pointer,
                "\(label) has no `transform` (use `transform: []` to pass JSON through unchanged)")
        }
        let live = compileLive(
            object["live"], method: method, hasFetchList: object["fetch"] != nil, hasStages: !stages.isEmpty, scope)
        let conditional = compileConditional(
            object, method: method, hasStages: !stages.isEmpty, document, entry.pointer)
        let clientQuery = compileClientQuery(object, method: method, cache: cache, pipeline: pipeline, scope)
        var shape = ExampleShape(
            fetches: fetches, body: body, hasBodyKey: object["body"] != nil, hasStages: !stages.isEmpty,
            transformCompiled: object["transform"] != nil)
        shape.firebaseQuery = Self.firebaseQueryUse(scope.firebaseQuery, pipeline: pipeline, stages: stages)
        shape.clientQuery = object["client-query"] != nil
        let examples = compileExamples(
            object["examples"], shape: shape, document: document, pointer: entry.pointer + "/examples")

        guard problems.count == before, let name, let requestTemplate, let fetches, let examples else { return nil }
        var route = Route(
            name: name, method: method, path: requestTemplate, fetches: fetches, forwardQuery: forwardQuery,
            forwardHeaders: forwardHeaders, headers: headers, body: body, pipeline: pipeline, stages: stages,
            timeoutMilliseconds: timeout, exposeUpstreamErrors: exposeUpstreamErrors, cache: cache,
            secrets: secrets.filter { !$0.isEmpty }, location: entry.location, examples: examples)
        route.idempotent = idempotent
        route.cors = cors
        route.live = live
        route.conditional = conditional
        route.clientQuery = clientQuery
        route.firebaseQuery = Self.firebaseQueryUse(scope.firebaseQuery, pipeline: pipeline, stages: stages)
        route.upstreamQuery = upstreamQuery
        route.limit = limit
        if var auth {
            auth.claims = Self.authClaims(
                fetches: fetches, stages: stages, headers: headers, query: upstreamQuery, steps: scope.claimsUsed.names)
            route.auth = auth
        }
        return route
    }

    /// `idempotent: true` lets a PUT or DELETE be retried; a GET is idempotent anyway, and a POST
    /// or PATCH never is, so saying it there is a mistake.
    private mutating func compileIdempotent(_ value: JSON?, method: String, _ scope: RouteScope) -> Bool {
        guard let value else { return false }
        let pointer = scope.pointer + "/idempotent"
        guard case .bool(let flag) = value else {
            report(scope.document, pointer, "`idempotent` must be true or false")
            return false
        }
        if flag, method == "POST" || method == "PATCH" {
            report(scope.document, pointer, "`idempotent` is for PUT and DELETE routes; a \(method) is never retried")
            return false
        }
        return flag
    }

    /// A member that must be there and be a non-empty string.
    mutating func requiredString(
        _ key: String, in object: JSONObject, _ document: SourceDocument, _ pointer: String,
        label: String
    ) -> String? {
        requiredString(key, object[key], document, parent: pointer, label: label)
    }

    /// `value`, member `key` of the object at `parent`, when it is a non-empty string; reported
    /// at the object when missing, at the member when not a non-empty string.
    mutating func requiredString(
        _ key: String, _ value: JSON?, _ document: SourceDocument, parent: String,
        label: String
    ) -> String? {
        guard let value else {
            report(document, parent, "\(label) is missing `\(key)`")
            return nil
        }
        guard let text = value.stringValue, !text.isEmpty else {
            report(document, parent + "/" + JSONPointer.escape(key), "`\(key)` must be a non-empty string")
            return nil
        }
        return text
    }

    /// The pointer of the object that holds the member at `pointer`.
    static func parent(of pointer: String) -> String {
        String(pointer[..<(pointer.lastIndex(of: "/") ?? pointer.endIndex)])
    }

    /// `GET /users/{id}`: the method (one Reshape answers) and the client path template.
    private mutating func compileRequest(_ request: String, _ document: SourceDocument, _ pointer: String) -> (
        String, PathTemplate?
    ) {
        let parts = request.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }) else {
            report(document, pointer, "`request` must be 'METHOD /path', like 'GET /users/{id}' (found '\(request)')")
            return ("", nil)
        }
        let method = String(parts[0])
        if !Self.methods.contains(method) {
            let head = method == "HEAD" ? "; HEAD requests are answered by GET routes" : ""
            report(
                document, pointer, "method '\(method)' is not supported (use GET, POST, PUT, PATCH or DELETE\(head))")
        }
        do {
            return (method, try TemplateParser.requestPath(String(parts[1])))
        } catch {
            report(document, pointer, error.message)
            return (method, nil)
        }
    }

    /// An upstream name that must be defined.
    mutating func checkUpstream(_ value: JSON?, _ scope: RouteScope, at pointer: String, label: String) -> String? {
        let parent = Self.parent(of: pointer)
        guard let name = requiredString("upstream", value, scope.document, parent: parent, label: label) else {
            return nil
        }
        guard scope.upstreamNames.contains(name) else {
            let defined =
                scope.upstreamNames.isEmpty ? "" : " (defined: \(scope.upstreamNames.sorted().joined(separator: ", ")))"
            report(scope.document, pointer, "unknown upstream '\(name)'\(defined)")
            return nil
        }
        return name
    }

    /// An upstream path template whose captures the request has (plus `extra`, e.g. `value`).
    mutating func compileUpstreamPath(
        _ value: JSON?, _ scope: RouteScope, at pointer: String, label: String,
        extra: Set<String> = []
    ) -> PathTemplate? {
        let parent = Self.parent(of: pointer)
        guard let text = requiredString("path", value, scope.document, parent: parent, label: label) else { return nil }
        let template: PathTemplate
        do {
            template = try TemplateParser.upstreamPath(text)
        } catch {
            report(scope.document, pointer, error.message)
            return nil
        }
        guard let requestTemplate = scope.requestTemplate else { return template }
        var ok = true
        for parameter in template.parameterNames where !scope.captures.contains(parameter) && !extra.contains(parameter)
        {
            if let claim = RouteAuth.claim(ofParameter: parameter) {
                guard let problem = AuthClaimName.problem(claim, routeHasAuth: scope.hasAuth) else { continue }
                report(scope.document, pointer, "'{\(parameter)}' \(problem)")
                ok = false
                continue
            }
            report(
                scope.document, pointer,
                "'{\(parameter)}' is not captured by the request template '\(requestTemplate.description)'")
            ok = false
        }
        return ok ? template : nil
    }

    /// `upstream` + `path` (one fetch named ""), or `fetch:` (one per member, in order).
    private mutating func compileFetches(_ object: JSONObject, _ scope: RouteScope, label: String) -> [FetchRule]? {
        guard let fetch = object["fetch"] else {
            if object["upstream"] == nil && object["path"] == nil {
                report(scope.document, scope.pointer, "\(label) needs `upstream` and `path`, or `fetch`")
                return nil
            }
            let upstream = checkUpstream(object["upstream"], scope, at: scope.pointer + "/upstream", label: label)
            let path = compileUpstreamPath(object["path"], scope, at: scope.pointer + "/path", label: label)
            guard let upstream, let path else { return nil }
            return [FetchRule(name: "", upstream: upstream, path: path)]
        }
        let pointer = scope.pointer + "/fetch"
        for key in ["upstream", "path"] where object[key] != nil {
            report(
                scope.document, scope.pointer + "/" + key,
                "a route has either `fetch` or `upstream` and `path`, not both")
        }
        guard case .object(let members) = fetch, !members.isEmpty else {
            report(scope.document, pointer, "`fetch` must map names to { upstream, path, optional } (at least one)")
            return nil
        }
        var fetches: [FetchRule] = []
        var ok = true
        for member in members.members {
            let memberPointer = pointer + "/" + JSONPointer.escape(member.key)
            let fetchLabel = "fetch '\(member.key)'"
            guard !member.key.isEmpty else {
                report(scope.document, memberPointer, "a fetch needs a non-empty name")
                ok = false
                continue
            }
            guard case .object(let rule) = member.value else {
                report(
                    scope.document, memberPointer,
                    "\(fetchLabel) must be a mapping with `upstream` and `path` (and optionally `optional`)")
                ok = false
                continue
            }
            if !reportUnknownKeys(
                in: rule, allowed: ["upstream", "path", "optional"], what: "fetch key", scope.document, memberPointer)
            {
                ok = false
            }
            let upstream = checkUpstream(rule["upstream"], scope, at: memberPointer + "/upstream", label: fetchLabel)
            let path = compileUpstreamPath(rule["path"], scope, at: memberPointer + "/path", label: fetchLabel)
            var optional = false
            if let value = rule["optional"] {
                if case .bool(let flag) = value {
                    optional = flag
                } else {
                    report(scope.document, memberPointer + "/optional", "`optional` must be true or false")
                    ok = false
                }
            }
            guard let upstream, let path else {
                ok = false
                continue
            }
            fetches.append(FetchRule(name: member.key, upstream: upstream, path: path, optional: optional))
        }
        return ok ? fetches : nil
    }

    /// A transform that uses `validate` cannot be compiled without the types; when the types
    /// failed, that failure is already reported, so the route's steps are not compiled again.
    static func mentionsTypes(_ transform: JSON) -> Bool {
        transform.serializedString().contains("\"validate\"")
    }
}
