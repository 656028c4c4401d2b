// Firebase's conditional writes and `print=silent` (docs/firebase.md): a write with `if-match`
// applies only when it names the current value's ETag, else 412 with the current value and its
// `ETag`; `X-Firebase-ETag: true` on a write answers the new value's ETag too.

extension Router {
    /// A PUT, PATCH or DELETE at `write.path`, answered as Firebase answers it.
    func conditionalWrite(_ write: DemoWrite, _ request: DemoRequest) -> DemoReply {
        let ifMatch = request.header("if-match")
        let outcome = store.apply(write) { current in
            ifMatch.map { DemoETag.matches($0, current: current) } ?? true
        }
        guard outcome.applied else {
            var refused = DemoResponse.json(outcome.now ?? .null, status: 412)
            refused.headers.append(("ETag", DemoETag.of(outcome.now)))
            return .respond(refused)
        }
        var answer: DemoResponse
        if request.queryValue("print") == "silent" {
            answer = DemoResponse(status: 204, headers: [], body: [])
        } else if request.method == "DELETE" {
            answer = .json(.null)
        } else {
            answer = DemoResponse(
                status: 200, headers: [("Content-Type", "application/json; charset=utf-8")], body: request.body)
        }
        if ifMatch != nil || request.header("x-firebase-etag") == "true" {
            answer.headers.append(("ETag", DemoETag.of(outcome.now)))
        }
        return .respond(answer)
    }
}
