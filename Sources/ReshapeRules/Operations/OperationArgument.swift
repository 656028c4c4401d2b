import ReshapeJSON

// Reading an operation's argument with errors that point at the offending member.
// Compile-time only: nothing here runs per request.

/// One operation's argument and the pointer (relative to the step) where it was written.
struct OperationArgument {
    let operation: String
    let value: JSON
    let pointer: String

    func error(_ message: String, at member: String? = nil) -> OperationConfigError {
        let at = member.map { JSONPointer.appending(key: $0, to: pointer) } ?? pointer
        return OperationConfigError(message: "\(operation): \(message)", pointer: at)
    }

    /// The argument as an object; `null` counts as `{}` so `op: {}` and a bare `op:` both mean "defaults".
    func object(allowing allowed: [String]? = nil) throws(OperationConfigError) -> JSONObject {
        let object: JSONObject
        switch value {
        case .object(let o): object = o
        case .null: object = JSONObject()
        default: throw error("expected an object, found \(value.kindName)")
        }
        if let allowed {
            for member in object.members where !allowed.contains(member.key) {
                throw error(
                    "unknown option '\(member.key)' (expected one of: \(allowed.joined(separator: ", ")))",
                    at: member.key)
            }
        }
        return object
    }

    /// The argument as a non-empty string.
    func string() throws(OperationConfigError) -> String {
        guard case .string(let text) = value, !text.isEmpty else {
            throw error("expected a non-empty string, found \(value.kindName)")
        }
        return text
    }

    /// A list of non-empty strings; a single string counts as a one-element list.
    func stringList() throws(OperationConfigError) -> [String] {
        switch value {
        case .string(let text) where !text.isEmpty: return [text]
        case .array(let elements):
            var names: [String] = []
            for (i, element) in elements.enumerated() {
                guard case .string(let text) = element, !text.isEmpty else {
                    throw OperationConfigError(
                        message: "\(operation): expected a field name, found \(element.kindName)",
                        pointer: JSONPointer.appending(index: i, to: pointer))
                }
                names.append(text)
            }
            guard !names.isEmpty else { throw error("expected at least one field name") }
            return names
        default:
            throw error("expected a field name or a list of field names, found \(value.kindName)")
        }
    }

    /// An optional string option of `object`, checked against `choices` when given.
    func option(
        _ name: String, in object: JSONObject, default fallback: String,
        choices: [String]? = nil
    ) throws(OperationConfigError) -> String {
        guard let member = object[name] else { return fallback }
        guard case .string(let text) = member, !text.isEmpty else {
            throw error("'\(name)' must be a non-empty string, found \(member.kindName)", at: name)
        }
        if let choices, !choices.contains(text) {
            throw error("'\(name)' must be one of \(choices.joined(separator: ", ")), found '\(text)'", at: name)
        }
        return text
    }

    /// The argument of a member of `object`, for options that are themselves structured.
    func member(_ name: String, of object: JSONObject) -> OperationArgument? {
        object[name].map {
            OperationArgument(operation: operation, value: $0, pointer: JSONPointer.appending(key: name, to: pointer))
        }
    }
}

extension JSON {
    /// The JSON type name, for messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
