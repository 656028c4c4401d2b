import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// What a fetch's result comes to: the transform's input, or the problem that answers the
/// request (with where it happened, redacted).
extension RouteExchange {
    /// Statuses that answer the client's own credentials or data on routes that forward them.
    static let clientVerdicts: Set<Int> = [401, 403, 409, 422, 429]
    /// The largest upstream error body shown under `upstream-error`.
    static let maxExposedErrorBytes = 4096

    /// Where a problem of `fetch` happened, for its members and its redaction.
    func context(for fetch: FetchRule) -> ResponseRenderer.Context {
        .init(
            route: route.name, upstream: fetch.upstream, fetch: route.isSingleFetch ? nil : fetch.name,
            redactor: redactor)
    }

    /// A primary fetch's result as input, or the problem that answers the request.
    func classify(_ result: UpstreamResult, fetch: FetchRule) -> Result<Fetched, Problem> {
        let context = context(for: fetch)
        if case .response(let response) = result {
            if route.speaksForClient, Self.clientVerdicts.contains(response.status), !fetch.optional {
                return .failure(rejected(response, context: context))
            }
            if (200..<300).contains(response.status), route.method != "GET", route.isSingleFetch,
                response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
            {
                return .success(.noContent(status: response.status))
            }
        }
        switch ResponseRenderer.decode(result, context: context) {
        case .success(let tape):
            return .success(.tape(tape))
        case .failure(let problem):
            if fetch.optional { return .success(.absent) }
            if route.isSingleFetch || problem.status == 404 { return .failure(problem) }
            return .failure(
                fetchFailed(
                    problem, context: context, title: "A fetch failed",
                    what: "fetch '\(fetch.name)' failed"))
        }
    }

    /// `fetch-failed`, for one of several fetches that failed with `cause`: its code is the
    /// `reason`, and its own members (but where it happened) are kept.
    private func fetchFailed(
        _ cause: Problem, context: ResponseRenderer.Context, title: String,
        what: String
    ) -> Problem {
        var failed = context.problem(
            502, "fetch-failed", title, "\(what): \(cause.detail)",
            [.init(key: "reason", value: .string(cause.code))])
        failed.extra += cause.extra.filter { !["route", "upstream", "fetch"].contains($0.key) }
        // When to come back (an open circuit's, an upstream's 429) still holds for the whole answer.
        failed.extraHeaders += cause.extraHeaders.filter { $0.name == "Retry-After" }
        return failed
    }

    /// The upstream refused the client's credentials or data: the same status, as a problem.
    private func rejected(_ response: UpstreamResponse, context: ResponseRenderer.Context) -> Problem {
        let status = response.status
        var extra: [JSONMember] = [.init(key: "upstream_status", value: .number(JSONNumber(status)))]
        if route.exposeUpstreamErrors, response.body.count <= Self.maxExposedErrorBytes,
            response.contentType.map({ $0.lowercased().contains("json") }) ?? false,
            let value = try? JSON.parse(response.body)
        {
            extra.append(.init(key: "upstream-error", value: value))
        }
        var problem = context.problem(
            status, "upstream-rejected", "Upstream rejected the request",
            "the upstream answered \(status) \(HTTPResponse.reason(status))", extra)
        if let retryAfter = response.retryAfter, !retryAfter.isEmpty,
            retryAfter.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        {
            problem.extraHeaders.append(Problem.Header(name: "Retry-After", value: retryAfter))
        }
        return problem
    }

    /// A follow-up's result: a body, missing (404), or the problem that fails the request.
    func followUpOutcome(
        _ result: UpstreamResult, value: String,
        rule: ExpandRule
    ) -> Result<RouteRun.FollowUp, Problem> {
        if case .response(let response) = result, response.status == 404 { return .success(.notFound) }
        let context = ResponseRenderer.Context(
            route: route.name, upstream: rule.fetch.upstream, fetch: rule.member,
            redactor: redactor)
        switch ResponseRenderer.decode(result, context: context) {
        case .success(let tape): return .success(.body(tape))
        case .failure(let problem):
            return .failure(
                fetchFailed(
                    problem, context: context, title: "A follow-up fetch failed",
                    what: "the '\(rule.member)' follow-up for '\(value)' failed"))
        }
    }
}
