// Validation alone: every record of the keyed document checked against `User` as the validate
// step sees it after keyed-to-array (objectId prepended), on the tape and on prebuilt trees.
import ReshapeJSON
import ReshapeSchema

struct ValidationWorkload {
    let user: Validator
    let tape: JSONTape
    let records: [(node: Int, member: PrependedMember)]
    /// The same records materialized beforehand, so the tree figure times validation only.
    let trees: [JSON]

    init(tape: JSONTape, types text: String = userTypes) throws {
        guard case .object(let types) = try JSON(parsing: text),
              let user = try SchemaSet(types: types.members.map { (name: $0.key, schema: $0.value) }).validator(named: "User")
        else { fatalError("no User type") }
        self.user = user
        self.tape = tape
        var records: [(node: Int, member: PrependedMember)] = []
        tape.forEachMember(tape.root) { name, record in
            records.append((record, PrependedMember(name: "objectId", valueNode: name)))
        }
        self.records = records
        trees = records.map { Validator.materialize(tape, $0.node, prepending: $0.member) }
        precondition(validOnTape() == validOnTrees(), "tape and tree validation disagree")
    }

    func validOnTape() -> Int {
        var valid = 0
        for record in records where user.isValid(tape, record.node, prepending: record.member) { valid += 1 }
        return valid
    }

    /// `validOnTape` under a name of its own, for `valgrind --toggle-collect='*timedPass*'`.
    @inline(never) func timedPass() -> Int { validOnTape() }

    func validOnTrees() -> Int {
        var valid = 0
        for tree in trees where user.isValid(tree) { valid += 1 }
        return valid
    }

    /// The best pass in milliseconds, which is what the 5 ms target is about.
    func report(_ figure: Throughput?) {
        guard let figure else { return }
        print("  \(pad(figure.name, 36)) \(format(figure.seconds[0] * 1000, decimals: 2)) ms best for \(records.count) records (\(validOnTape()) valid)")
    }
}
