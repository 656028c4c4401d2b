// ============================================================================================
// FULL PIPELINE FIGURE: parse -> keyed-to-array -> validate each element -> serialize.
//
// The product requirement is >= 300 MB/s on one core for this document. Until ReshapeRules'
// operations and ReshapeSchema exist, this measures a stand-in step written here
// (`StandInKeyedToArray`, no validation) so the figure is labelled "stand-in". Replace the body
// of `pipelineUnderTest()` with the real compiled route once those modules land.
// ============================================================================================
import ReshapeJSON
import ReshapeRules

/// The pipeline measured, and a label saying what it contains.
func pipelineUnderTest() -> (pipeline: Pipeline, label: String) {
    (Pipeline(steps: [StandInKeyedToArray(key: "objectId")]),
     "pipeline (stand-in keyed-to-array, no validation)")
}

/// Minimal keyed-to-array for measuring until the real operation exists.
struct StandInKeyedToArray: TransformOperation {
    let key: String
    func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        guard case .object(let object) = value else {
            throw PipelineError(code: "not-an-object", message: "keyed-to-array needs an object")
        }
        var elements: [JSON] = []
        elements.reserveCapacity(object.count)
        for member in object.members {
            if case .object(var record) = member.value {
                record.members.insert(JSONMember(key: key, value: .string(member.key)), at: 0)
                elements.append(.object(record))
            } else {
                elements.append(.object(JSONObject([JSONMember(key: key, value: .string(member.key)),
                                                    JSONMember(key: "value", value: member.value)])))
            }
        }
        value = .array(elements)
    }
}
