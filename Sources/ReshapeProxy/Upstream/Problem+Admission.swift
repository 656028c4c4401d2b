import ReshapeProblem

extension Problem {
    /// 503: the server sheds this request to keep up (its loop runs late, or in-flight memory
    /// is at its budget); `Retry-After` says when to try again.
    package static func loadShed(retryAfterSeconds: Int) -> Problem {
        var problem = Problem(
            status: 503, code: "load-shed", title: "Load shed",
            detail: "the server is too busy to take this request now; retry after \(retryAfterSeconds) s")
        problem.extraHeaders = [Problem.Header(name: "Retry-After", value: String(retryAfterSeconds))]
        return problem
    }
}
