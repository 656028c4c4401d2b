// ============================================================================================
// FULL PIPELINE FIGURE: parse -> keyed-to-array -> validate each element -> serialize.
//
// The product requirement is >= 300 MB/s on one core for this document. `pipelineUnderTest()`
// builds the route measured, with the real operations and schema engine; its label says what
// it contains.
// ============================================================================================
import Foundation
import ReshapeJSON
import ReshapeRules
import ReshapeSchema

/// The rule types the corrupt records of `FirebaseDocument` violate.
let userTypes = #"""
{
  "User": {
    "type": "object",
    "required": ["objectId", "name", "email"],
    "properties": {
      "objectId": { "type": "string" },
      "name": { "type": "string", "minLength": 1 },
      "age": { "type": "integer", "minimum": 0 },
      "email": { "type": "string", "minLength": 3 },
      "address": { "$ref": "Address" },
      "tags": { "type": "array", "items": { "type": "string" } },
      "score": { "type": "number" },
      "active": { "type": "boolean" },
      "createdAt": { "type": "integer" }
    }
  },
  "Address": {
    "type": "object",
    "required": ["city"],
    "properties": { "street": { "type": "string" }, "city": { "type": "string" }, "zip": { "type": "string" } }
  }
}
"""#

/// The same types as a user would write them for the realistic document: `pattern` on email.
let userTypesWithPattern = userTypes.replacingOccurrences(of: #""email": { "type": "string", "minLength": 3 }"#,
                                                          with: #""email": { "type": "string", "minLength": 3, "pattern": "@" }"#)

/// The route a user writes for the realistic (shuffled) document: sorted by key, `pattern`.
func realisticPipeline() throws -> (pipeline: Pipeline, label: String) {
    guard case .object(let types) = try JSON(parsing: userTypesWithPattern) else { fatalError("types must be an object") }
    precondition(userTypesWithPattern != userTypes, "the pattern was not added to the realistic schema")
    let schemas = try SchemaSet(types: types.members.map { (name: $0.key, schema: $0.value) })
    guard let user = schemas.validator(named: "User") else { fatalError("no User type") }
    let pipeline = Pipeline(steps: [
        KeyedToArrayOperation(keyField: "objectId", order: .key),
        ValidateOperation(typeName: "User", validator: user, invalid: .drop),
        WrapOperation(field: "objects"),
    ])
    return (pipeline, "pipeline, realistic: shuffled ids+fields, order: key, pattern")
}

/// The pipeline measured, and a label saying what it contains.
func pipelineUnderTest() throws -> (pipeline: Pipeline, label: String) {
    guard case .object(let types) = try JSON(parsing: userTypes) else { fatalError("types must be an object") }
    let schemas = try SchemaSet(types: types.members.map { (name: $0.key, schema: $0.value) })
    guard let user = schemas.validator(named: "User") else { fatalError("no User type") }
    let pipeline = Pipeline(steps: [
        KeyedToArrayOperation(keyField: "objectId"),
        ValidateOperation(typeName: "User", validator: user, invalid: .drop),
    ])
    return (pipeline, "pipeline: keyed-to-array, validate User (drop)")
}
