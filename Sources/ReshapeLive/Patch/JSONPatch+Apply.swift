import ReshapeJSON

extension JSONPatch {
    /// Why a patch does not apply to a document.
    public enum ApplyFailure: Error, Equatable, Sendable {
        /// The operation at `index` names a location that is not there (or an array index out
        /// of range).
        case pathNotFound(index: Int, path: String)
    }

    /// `document` with every operation applied in order (RFC 6902 §4: `add` of an existing member
    /// replaces it in place; `add` at an array index inserts; `-` appends).
    ///
    /// `remove` and `replace` need their location to exist; `add` needs its parent to exist (and
    /// an array index no greater than the count). Removing the whole document is not a location.
    public func applied(to document: JSON) throws(ApplyFailure) -> JSON {
        var result = document
        for (index, operation) in operations.enumerated() {
            let done: Bool
            switch operation {
            case .add(let path, let value): done = JSONPatch.edit(&result, path.tokens[...], .add(value))
            case .remove(let path): done = JSONPatch.edit(&result, path.tokens[...], .remove)
            case .replace(let path, let value): done = JSONPatch.edit(&result, path.tokens[...], .replace(value))
            }
            guard done else {
                let path: JSONPointer
                switch operation {
                case .add(let p, _), .remove(let p), .replace(let p, _): path = p
                }
                throw .pathNotFound(index: index, path: path.description)
            }
        }
        return result
    }

    private enum Edit {
        case add(JSON)
        case remove
        case replace(JSON)
    }

    /// Performs `edit` at `tokens` below `value`; false when the location is not there.
    private static func edit(_ value: inout JSON, _ tokens: ArraySlice<String>, _ edit: Edit) -> Bool {
        guard let token = tokens.first else {
            switch edit {
            case .add(let new), .replace(let new):
                value = new
                return true
            case .remove:
                return false
            }
        }
        let rest = tokens.dropFirst()
        switch value {
        case .object(var object):
            // Taking the payload out leaves it uniquely referenced, so it changes in place.
            value = .null
            defer { value = .object(object) }
            let index = object.index(forKey: token)
            guard rest.isEmpty else {
                guard let index else { return false }
                return JSONPatch.edit(&object.members[index].value, rest, edit)
            }
            switch (edit, index) {
            case (.add(let new), let index?), (.replace(let new), let index?): object.members[index].value = new
            case (.add(let new), nil): object.members.append(JSONMember(key: token, value: new))
            case (.remove, let index?): object.members.remove(at: index)
            case (.replace, nil), (.remove, nil): return false
            }
            return true
        case .array(var elements):
            value = .null
            defer { value = .array(elements) }
            if rest.isEmpty, case .add(let new) = edit, token == "-" {
                elements.append(new)
                return true
            }
            guard let index = JSON.arrayIndex(token) else { return false }
            guard rest.isEmpty else {
                guard index < elements.count else { return false }
                return JSONPatch.edit(&elements[index], rest, edit)
            }
            switch edit {
            case .add(let new):
                guard index <= elements.count else { return false }
                elements.insert(new, at: index)
            case .replace(let new):
                guard index < elements.count else { return false }
                elements[index] = new
            case .remove:
                guard index < elements.count else { return false }
                elements.remove(at: index)
            }
            return true
        default:
            return false
        }
    }
}
