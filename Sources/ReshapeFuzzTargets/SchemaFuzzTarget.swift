import ReshapeJSON
import ReshapeSchema

// The input is a JSON array: a schema, then instances (`[{"type": "integer"}, 1, "a"]`).
// The schema is compiled twice, as `reshape validate` does (`Validator(schema:)`) and as a rule
// file's type (`SchemaSet`, where `"x-assert-format": true` turns format checks on). Properties:
// - compiling never crashes; it gives a validator or a `SchemaError`;
// - for each instance, the tree evaluator (`isValid(JSON)`), the tape evaluator
//   (`isValid(tape, node)`, what the server runs) and the reporting evaluator (`validate`,
//   valid when it lists no violation) give the same verdict;
// - with a member prepended on the tape (what `keyed-to-array` does before `validate`), the
//   tape verdict equals the verdict on the materialized object with that member in front.

/// Enough instances to compare the evaluators; more only slows each run down.
private let maxInstances = 8

/// The member prepended on the tape (it must not already be in the object).
private let idName = Array("id".utf8)

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzSchema(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let tape = try? JSONTape.parse(fuzzInput(data, size)), tape.kind(tape.root) == .array else { return 0 }
    var nodes: [Int] = []
    tape.forEachElement(tape.root) { _, element in nodes.append(element) }
    guard let schemaNode = nodes.first else { return 0 }
    let schema = tape.materialize(schemaNode)
    let instances = Array(nodes.dropFirst().prefix(maxInstances))

    if let validator = try? Validator(schema: schema) {
        check(validator, "Validator", tape, instances)
    }
    if let set = try? SchemaSet(types: [(name: "Item", schema: schema)]) {
        guard let validator = set.validator(named: "Item") else {
            require(false, "a compiled SchemaSet without its type")
            return 0
        }
        check(validator, "SchemaSet", tape, instances)
    }
    return 0
}

private func check(_ validator: Validator, _ path: String, _ tape: JSONTape, _ instances: [Int]) {
    // A string on the tape to use as a prepended member's value, as keyed-to-array uses the key.
    let key = (1..<tape.nodeCount).first { tape.kind($0) == .string }
    for node in instances {
        let instance = tape.materialize(node)
        let tree = validator.isValid(instance)
        let onTape = validator.isValid(tape, node)
        require(
            tree == onTape, "\(path): the tree says \(tree), the tape \(onTape) for \(describe(instance.serialized()))")
        let violations = validator.validate(instance)
        require(
            violations.isEmpty == tree,
            "\(path): isValid says \(tree), validate lists \(violations) for \(describe(instance.serialized()))")

        if let key, tape.kind(node) == .object, idName.withUnsafeBufferPointer({ tape.member(node, named: $0) }) == nil
        {
            let prepended = PrependedMember(name: "id", valueNode: key)
            let expected = validator.isValid(Validator.materialize(tape, node, prepending: prepended))
            let actual = validator.isValid(tape, node, prepending: prepended)
            require(expected == actual, "\(path): with id prepended the tree says \(expected), the tape \(actual)")
        }
    }
}
