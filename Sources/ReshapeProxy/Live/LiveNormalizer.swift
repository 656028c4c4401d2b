import ReshapeJSON
import ReshapeLive
import ReshapeProblem
import ReshapeRules

/// A live route's pipeline as `LiveStream` takes it, a failure becoming the problem a plain GET
/// of the route answers with: record by record when the route allows it (`RecordwisePipeline`),
/// so that an event re-normalizes only the records it changed, whole otherwise. `reshape
/// replay` starts its stream here, as the server's streams should.
package enum LiveNormalizer {
    /// A stream of `route` for the path captures `parameters`; `context` members go into every
    /// problem it ends with (`LiveStream.init(context:normalize:)`).
    package static func stream(
        for route: Route, in ruleSet: RuleSet, parameters: [String: String], context: [JSONMember]
    ) -> LiveStream {
        if let recordwise = recordwise(route, in: ruleSet, parameters: parameters) {
            return LiveStream(context: context, recordwise: recordwise)
        }
        return LiveStream(context: context, normalize: normalize(route, in: ruleSet, parameters: parameters))
    }

    /// The route's whole pipeline, as `reshape apply` runs it.
    package static func normalize(_ route: Route, in ruleSet: RuleSet, parameters: [String: String])
        -> LiveStream.Normalize
    {
        { (value) throws(Problem) -> JSON in
            do throws(PipelineError) {
                let fetched = OfflineRun.Fetched.single(OfflineRun.tape(value))
                return try OfflineRun.respond(route, fetched: fetched, parameters: parameters).value
            } catch {
                throw ResponseRenderer.pipelineProblem(error, route: route, in: ruleSet)
            }
        }
    }

    /// The route's pipeline record by record, or nil when its answer is not one record per
    /// member normalized alone.
    package static func recordwise(_ route: Route, in ruleSet: RuleSet, parameters: [String: String])
        -> RecordwiseNormalize?
    {
        guard let pipeline = RecordwisePipeline(route) else { return nil }
        let problem = { (error: PipelineError) in ResponseRenderer.pipelineProblem(error, route: route, in: ruleSet) }
        return RecordwiseNormalize(
            order: pipeline.order == .key ? .byName : .asInDocument, wrap: pipeline.wrap,
            whole: { (value) throws(Problem) -> (answer: JSON, names: [String]?) in
                do throws(PipelineError) {
                    let run = try pipeline.run(OfflineRun.tape(value), parameters: parameters)
                    let answer = run.output.value
                    let count = pipeline.records(in: answer)?.count
                    return (answer, run.names.flatMap { $0.count == count ? $0 : nil })
                } catch {
                    throw problem(error)
                }
            },
            members: { (members) throws(Problem) -> [(name: String, record: JSON)]? in
                do throws(PipelineError) {
                    return try pipeline.records(of: members, parameters: parameters)
                } catch {
                    throw problem(error)
                }
            })
    }
}
