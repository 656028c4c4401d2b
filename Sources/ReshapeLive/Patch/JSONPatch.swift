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
    public func serialized() -> [UInt8] {
        fatalError("JSONPatch.serialized: not built yet")
    }
}
