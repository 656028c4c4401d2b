import ReshapeJSON
import ReshapeProblem
import ReshapeRules

extension Problem {
    /// The answer: `no-store`, since an error describes this attempt, not a representation any
    /// cache should keep or reuse (an upstream fault may be gone on the next try).
    package var response: HTTPResponse {
        var headers: [NameValue] = [
            NameValue(name: "Content-Type", value: "application/problem+json"), CachingHeaders.noStore,
        ]
        headers += extraHeaders.map { NameValue(name: $0.name, value: $0.value) }
        return HTTPResponse(status: status, headers: headers, body: serializedBody)
    }
}

extension Problem {
    package static func badRequest(_ detail: String) -> Problem {
        Problem(status: 400, code: "bad-request", title: "Malformed request", detail: detail)
    }
    package static func notFound(path: String) -> Problem {
        Problem(status: 404, code: "no-route", title: "No route", detail: "no route matches \(path)")
    }
    package static func methodNotAllowed(_ method: String, allowed: [String]) -> Problem {
        var problem = Problem(
            status: 405, code: "method-not-allowed", title: "Method not allowed",
            detail: "\(method) is not allowed here; allowed: \(allowed.joined(separator: ", "))")
        problem.extraHeaders = [Problem.Header(name: "Allow", value: allowed.joined(separator: ", "))]
        return problem
    }
    package static let headerTimeout = Problem(
        status: 408, code: "request-timeout", title: "Request timeout",
        detail: "the request head did not arrive in time")
    /// A body promised by its head that did not all arrive within `bodyTimeoutMilliseconds`.
    package static let bodyTimeout = Problem(
        status: 408, code: "request-timeout", title: "Request timeout",
        detail: "the request body did not arrive in time")
    package static func bodyTooLarge(limit: Int) -> Problem {
        Problem(
            status: 413, code: "body-too-large", title: "Request body too large",
            detail: "the body exceeds \(limit) bytes")
    }
    package static func uriTooLong(limit: Int) -> Problem {
        Problem(
            status: 414, code: "uri-too-long", title: "URI too long",
            detail: "the request target exceeds \(limit) bytes")
    }
    package static func headersTooLarge(_ detail: String) -> Problem {
        Problem(status: 431, code: "headers-too-large", title: "Request headers too large", detail: detail)
    }
    package static func httpVersionNotSupported(major: Int, minor: Int) -> Problem {
        Problem(
            status: 505, code: "http-version-not-supported", title: "HTTP version not supported",
            detail: "HTTP/\(major).\(minor) is not supported; send HTTP/1.1 or HTTP/1.0")
    }
    package static let overloaded = Problem(
        status: 503, code: "overloaded", title: "Overloaded",
        detail: "too many connections; retry later")
    package static let shuttingDown = Problem(
        status: 503, code: "shutting-down", title: "Shutting down",
        detail: "this instance is shutting down; retry on another")
}

extension Problem {
    /// The 503 `overloaded` answer, rendered once: the server writes it (with its `Date`) to a
    /// connection past its cap and closes, without creating any per-connection state.
    package static let overloadedResponse = Problem.overloaded.response
}
