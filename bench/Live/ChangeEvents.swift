import ReshapeJSON
import ReshapeLive

/// One-record changes to the collection, deterministic and in turn: a field of a record
/// patched, a record made invalid, a new record put (a fresh push id, sorting last, or a key
/// sorting among the others), a record deleted.
struct ChangeEvents {
    static let kinds = ["patch field", "patch invalid", "put new (last)", "put new (inside)", "delete"]

    private var keys: [String]
    private var state: UInt64 = 20_261_126
    private var turn = 0

    init(keys: [String]) { self.keys = keys }

    mutating func next() -> (kind: String, event: FirebaseEvent) {
        let kind = Self.kinds[turn % Self.kinds.count]
        turn += 1
        switch kind {
        case "patch field":
            let age = JSON.number(JSONNumber(18 + random(70)))
            return (kind, .patch(path: [key()], data: JSONObject([JSONMember(key: "age", value: age)])))
        case "patch invalid":
            return (kind, .patch(path: [key()], data: JSONObject([JSONMember(key: "email", value: .string("none"))])))
        case "put new (last)", "put new (inside)":
            // Push ids of 20 characters, as Firebase makes them: a new one sorts last.
            let name = kind == "put new (last)" ? "-Z" + pushTail(turn) : String(key().dropLast()) + "0"
            keys.append(name)
            return (kind, .put(path: [name], data: record()))
        default:
            let index = random(keys.count)
            let name = keys.remove(at: index)
            return (kind, .put(path: [name], data: .null))
        }
    }

    private mutating func key() -> String { keys[random(keys.count)] }

    /// 18 characters that make `number` a push id's tail.
    private func pushTail(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: 18 - digits.count) + digits
    }

    private func record() -> JSON {
        .object(
            JSONObject([
                JSONMember(key: "name", value: .string("Ada Lovelace")),
                JSONMember(key: "email", value: .string("ada.\(turn)@example.com")),
                JSONMember(key: "age", value: .number(JSONNumber(36))),
                JSONMember(key: "tags", value: .array([.string("beta")])),
            ]))
    }

    private mutating func random(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
