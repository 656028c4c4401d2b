import ReshapeLive
import ReshapeProblem
import ReshapeRules

extension ResponseRenderer {
    /// The problem a plain GET of `route` answers when its pipeline fails with `error`, with the
    /// route's secrets redacted: what a live stream of the route ends with (`reshape replay`
    /// offline, the server's streams), so that both say exactly what the GET says.
    package static func pipelineProblem(_ error: PipelineError, route: Route, in ruleSet: RuleSet) -> Problem {
        let context = Context(
            route: route.name, upstream: route.upstream, fetch: nil,
            redactor: Redactor(secrets: ServingRules.secrets(of: route, in: ruleSet)))
        return pipelineProblem(error, context: context)
    }
}
