import ReshapeProblem

extension Problem {
    /// 503 `load-shed`: the process turned the request away before doing its work, to stay
    /// within what it can serve (its memory budget, or a loop running late); a client may try
    /// again after `retryAfter` seconds.
    package static func loadShed(retryAfter: Int, detail: String = "the server is shedding load; retry later")
        -> Problem
    {
        var problem = Problem(status: 503, code: "load-shed", title: "Load shed", detail: detail)
        problem.extraHeaders.append(Header(name: "Retry-After", value: String(max(1, retryAfter))))
        return problem
    }

    /// Why a request is shed while its worker's loop runs late.
    package static let loopLagDetail = "this worker's event loop runs late; retry in 1 s"
}
