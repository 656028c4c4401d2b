// One write to the demo database, as Firebase's REST API takes it: what a POST, PUT, PATCH or
// DELETE on a `.json` path asks for, and the value it leaves behind.

/// A write at `path` (decoded segments below the root).
struct DemoWrite: Sendable {
    enum Kind: Sendable {
        /// PUT, and POST once its push id is chosen: the value at the path becomes `value`
        /// (`null` deletes).
        case set(DemoValue)
        /// PATCH: each named child is set to its value (`null` deletes it); a name with `/` in it
        /// is a path below `path` (Firebase's multi-location update).
        case update([(String, DemoValue)])
        /// DELETE.
        case delete
    }

    var path: [String]
    var kind: Kind

    /// Why a request is not a write Firebase would take.
    struct Refusal: Error {
        let message: String
        static let notJSON = Refusal(message: "Invalid data; couldn't parse JSON object, array, or value.")
        static let notObject = Refusal(message: "Invalid data; couldn't parse JSON object. PATCH takes an object.")
    }

    /// The write `method` asks for at `path` with `body`. A POST's path is the new child's: the
    /// caller passes the parent's path with the push id appended.
    static func parse(method: String, path: [String], body: [UInt8]) -> Result<DemoWrite, Refusal> {
        if method == "DELETE" { return .success(DemoWrite(path: path, kind: .delete)) }
        guard let value = DemoJSONParser.parse(body) else { return .failure(.notJSON) }
        if method == "PATCH" {
            guard case .object(let members) = value else { return .failure(.notObject) }
            return .success(DemoWrite(path: path, kind: .update(members)))
        }
        return .success(DemoWrite(path: path, kind: .set(value)))
    }

    /// Whether every PATCH name is one child (no `/`), so a `patch` event can carry it as is.
    var updatesChildrenOnly: Bool {
        guard case .update(let members) = kind else { return false }
        return members.allSatisfy { !$0.0.contains("/") }
    }

    /// The database `root` after this write.
    func applied(to root: DemoValue) -> DemoValue {
        let result: DemoValue?
        switch kind {
        case .set(let value):
            result = DemoValue.setting(root, at: path[...], to: value.stored)
        case .delete:
            result = DemoValue.setting(root, at: path[...], to: nil)
        case .update(let members):
            var node: DemoValue? = root
            for (name, value) in members {
                let below = name.split(separator: "/").map(String.init)
                node = DemoValue.setting(node, at: (path + below)[...], to: value.stored)
            }
            result = node
        }
        return result ?? .null
    }
}
