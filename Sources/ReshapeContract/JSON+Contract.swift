import ReshapeJSON

// Small reads of a JSON value that the contract tools share.
extension JSON {
    var record: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    var isEmptyContainer: Bool {
        switch self {
        case .array(let elements): return elements.isEmpty
        case .object(let object): return object.isEmpty
        default: return false
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
