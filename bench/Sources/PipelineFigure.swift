// ============================================================================================
// FULL PIPELINE FIGURE: parse -> keyed-to-array -> validate each element -> serialize.
//
// The product requirement is >= 300 MB/s on one core for this document. `pipelineUnderTest()`
// builds the route measured; its label says what it contains, so a figure without validation
// is never mistaken for the full one.
// ============================================================================================
import ReshapeJSON
import ReshapeRules

/// The pipeline measured, and a label saying what it contains.
func pipelineUnderTest() -> (pipeline: Pipeline, label: String) {
    // TODO(validate): add the `validate: { type: User, invalid: drop }` step once ReshapeSchema lands.
    (Pipeline(steps: [KeyedToArrayOperation(keyField: "objectId")]),
     "pipeline: keyed-to-array (no validate yet)")
}
