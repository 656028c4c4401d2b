import ReshapeJSON
import ReshapeProblem

extension Problem {
    /// 429: `policy` refused the request; one would be admitted in `retryAfterSeconds`.
    package static func rateLimited(policy: String, retryAfterSeconds: Int) -> Problem {
        var problem = Problem(
            status: 429, code: "rate-limited", title: "Too many requests",
            detail: "rate limit '\(policy)' is exhausted; retry in \(retryAfterSeconds) s",
            extra: [JSONMember(key: "policy", value: .string(policy))])
        problem.extraHeaders = [Problem.Header(name: "Retry-After", value: String(retryAfterSeconds))]
        return problem
    }
}
