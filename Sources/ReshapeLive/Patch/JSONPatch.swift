import ReshapeJSON

/// An RFC 6902 JSON Patch restricted to what a live stream sends: `add`, `remove`, `replace`.
public struct JSONPatch: Sendable {
    public enum Operation: Sendable {
        case add(JSONPointer, JSON)
        case remove(JSONPointer)
        case replace(JSONPointer, JSON)
    }

    public var operations: [Operation]

    public init(_ operations: [Operation] = []) {
        self.operations = operations
    }

    public var isEmpty: Bool { operations.isEmpty }

    /// The patch as RFC 6902 JSON text: `[{"op":"replace","path":"/objects/3/name","value":"Ada"}]`.
    /// Compact, members in the order `op`, `path`, `value`; paths as RFC 6901 text; values as the
    /// project's writer writes them (numbers keep their spelling).
    public func serialized() -> [UInt8] {
        JSON.array(operations.map(\.json)).serialized()
    }
}

extension JSONPatch.Operation {
    /// The operation as the JSON object RFC 6902 §4 defines.
    var json: JSON {
        switch self {
        case .add(let path, let value): JSONPatch.Operation.object("add", path, value)
        case .remove(let path): JSONPatch.Operation.object("remove", path, nil)
        case .replace(let path, let value): JSONPatch.Operation.object("replace", path, value)
        }
    }

    private static func object(_ op: String, _ path: JSONPointer, _ value: JSON?) -> JSON {
        var members = [
            JSONMember(key: "op", value: .string(op)), JSONMember(key: "path", value: .string(path.description)),
        ]
        if let value { members.append(JSONMember(key: "value", value: value)) }
        return .object(JSONObject(members))
    }

    /// The bytes this operation adds to `JSONPatch.serialized()`, its separating comma included,
    /// or some count above `limit` once it is known to exceed it.
    func serializedSize(limit: Int = .max) -> Int {
        // `{"op":"` + name + `","path":` + path [+ `,"value":` + value] + `}` + `,`
        switch self {
        case .add(let path, let value):
            return 7 + 3 + 9 + JSON.quotedSize(path.description) + 9 + 2 + value.serializedSize(limit: limit)
        case .remove(let path): return 7 + 6 + 9 + JSON.quotedSize(path.description) + 2
        case .replace(let path, let value):
            return 7 + 7 + 9 + JSON.quotedSize(path.description) + 9 + 2 + value.serializedSize(limit: limit)
        }
    }
}
