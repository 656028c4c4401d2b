import Glibc
import ReshapeJSON
import ReshapeProblem
import ReshapeRules

/// Turns what upstreams answered into what the client gets, for `RouteExchange`: a body
/// decoded or the problem instead, and the normalized answer. Fails closed: a body that could
/// not be normalized is never passed on.
package enum ResponseRenderer {
    package struct Rendered: Sendable {
        package var response: HTTPResponse
        package var dropped: [DroppedElement]
        /// The problem code when the response is an error.
        package var errorCode: String?
    }

    /// Where a problem happened, for its members and its redaction.
    struct Context {
        var route: String
        var upstream: String
        /// The `fetch:` member or `expand` member, when the route makes more than one fetch.
        var fetch: String?
        var redactor: Redactor

        func problem(_ status: Int, _ code: String, _ title: String, _ detail: String, _ extra: [JSONMember] = [])
            -> Problem
        {
            var members: [JSONMember] = [
                .init(key: "route", value: .string(route)), .init(key: "upstream", value: .string(upstream)),
            ]
            if let fetch { members.append(.init(key: "fetch", value: .string(fetch))) }
            return Problem(
                status: status, code: code, title: title, detail: redactor.redact(detail), extra: members + extra)
        }
    }

    /// The body of a 2xx answer as a tape, or the problem the client gets instead.
    static func decode(_ result: UpstreamResult, context: Context) -> Result<JSONTape, Problem> {
        switch result {
        case .failure(let failure, let message):
            return .failure(transportProblem(failure, message, context: context))
        case .response(let response):
            let status = response.status
            if status == 404 {
                return .failure(
                    context.problem(404, "upstream-not-found", "Not found upstream", "the upstream answered 404"))
            }
            guard (200..<300).contains(status) else {
                return .failure(
                    context.problem(
                        502, "upstream-status", "Upstream error", "the upstream answered \(status)",
                        [.init(key: "upstream_status", value: .number(JSONNumber(status)))]))
            }
            return parse(response.body, contentType: response.contentType, context: context)
        }
    }

    static func transportProblem(_ failure: UpstreamFailure, _ message: String, context: Context) -> Problem {
        switch failure {
        case .timeout: context.problem(504, "upstream-timeout", "Upstream timed out", message)
        case .tooLarge: context.problem(502, "upstream-too-large", "Upstream response too large", message)
        case .dns, .connect, .tls: context.problem(502, "upstream-unreachable", "Upstream unreachable", message)
        case .transfer, .other: context.problem(502, "upstream-failed", "Upstream transfer failed", message)
        case .unavailable: unavailableProblem(message, context: context)
        case .redirectRefused: context.problem(502, "upstream-redirect-refused", "Upstream redirect refused", message)
        case .saturated: saturatedProblem(message, context: context)
        case .loadShed: loadShedProblem(message, context: context)
        }
    }

    /// 503 with `Retry-After`: the upstream's fetches at once are all out and no place came
    /// free in its queue; by the queue's timeout the queue has turned over.
    private static func saturatedProblem(_ message: String, context: Context) -> Problem {
        var problem = context.problem(503, "upstream-saturated", "Upstream saturated", message)
        let seconds = UpstreamResult.saturatedRetryAfter(message) ?? 1
        problem.extraHeaders.append(Problem.Header(name: "Retry-After", value: String(seconds)))
        return problem
    }

    /// 503 with `Retry-After`: the seconds until the circuit lets a probe through, so a client
    /// that waits that long finds out whether the upstream is back.
    private static func unavailableProblem(_ message: String, context: Context) -> Problem {
        var problem = context.problem(503, "upstream-unavailable", "Upstream unavailable", message)
        let seconds = UpstreamResult.circuitRetryAfter(message) ?? 1
        problem.extraHeaders.append(Problem.Header(name: "Retry-After", value: String(seconds)))
        return problem
    }

    /// 503 `load-shed` (`Problem.loadShed`) with what the route and fetch add to a problem.
    private static func loadShedProblem(_ message: String, context: Context) -> Problem {
        var problem = Problem.loadShed(retryAfter: 1, detail: message)
        problem.extra = context.problem(503, problem.code, problem.title, message).extra
        return problem
    }

    static func parse(_ body: [UInt8], contentType: String?, context: Context) -> Result<JSONTape, Problem> {
        do {
            return .success(try JSONTape.parse(body))
        } catch {
            let looksLikeJSON = contentType.map { $0.lowercased().contains("json") } ?? true
            if !looksLikeJSON {
                return .failure(
                    context.problem(
                        502, "upstream-not-json", "Upstream sent something other than JSON",
                        "the upstream answered \(contentType ?? "no content type"), not JSON"))
            }
            return .failure(
                context.problem(
                    502, "upstream-invalid-json", "Upstream sent invalid JSON",
                    "invalid JSON at line \(error.line), column \(error.column): \(error.message)",
                    [
                        .init(key: "line", value: .number(JSONNumber(error.line))),
                        .init(key: "column", value: .number(JSONNumber(error.column))),
                    ]))
        }
    }

    static func pipelineProblem(_ error: PipelineError, context: Context) -> Problem {
        var extra: [JSONMember] = []
        if let pointer = error.pointer { extra.append(.init(key: "pointer", value: .string(pointer))) }
        if !error.errors.isEmpty { extra.append(.init(key: "errors", value: .array(violations(error)))) }
        if error.code == "not-found" {
            return context.problem(404, "not-found", "Not found", error.message, extra)
        }
        return context.problem(502, error.code, "Upstream response could not be normalized", error.message, extra)
    }

    static func violations(_ error: PipelineError) -> [JSON] {
        error.errors.map { violation in
            .object(
                JSONObject([
                    "pointer": .string(violation.pointer), "keyword": .string(violation.keyword),
                    "reason": .string(violation.reason),
                ]))
        }
    }

    /// A normalized answer. `entityTag` on answers to GET (and HEAD): a write's answer is not
    /// a representation a client revalidates.
    static func success(_ output: PipelineOutput, status: Int, entityTag: Bool) -> Rendered {
        let body = output.serialized()
        var response = HTTPResponse(
            status: status, headers: [NameValue(name: "Content-Type", value: "application/json")], body: body)
        response.headers.reserveCapacity(3)
        if entityTag { response.headers.append(NameValue(name: "ETag", value: EntityTag.of(body))) }
        if !output.dropped.isEmpty {
            response.headers.append(NameValue(name: "Reshape-Dropped", value: String(output.dropped.count)))
        }
        return Rendered(response: response, dropped: output.dropped, errorCode: nil)
    }
}

extension ResponseRenderer.Rendered {
    init(_ problem: Problem, code: String) {
        self.init(response: problem.response, dropped: [], errorCode: code)
    }
}
