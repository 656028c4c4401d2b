/// A JSON value as Reshape keeps it: object members in their source order and numbers
/// as their exact source text, so a document survives a round trip unchanged.
///
/// Equality is JSON's meaning, not its spelling: `1` equals `1.0`, and objects with the
/// same members in another order are equal (what JSON Schema's `const`, `enum` and
/// `uniqueItems` need). Compare serialized bytes when spelling matters.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

/// One object member.
public struct JSONMember: Sendable {
    public var key: String
    public var value: JSON
    @inlinable public init(key: String, value: JSON) {
        self.key = key
        self.value = value
    }
}

/// A JSON object whose members keep their order. Lookup is linear: records are small,
/// and large keyed collections are walked in order, never searched.
public struct JSONObject: Sendable {
    public var members: [JSONMember]

    @inlinable public init() { members = [] }
    @inlinable public init(_ members: [JSONMember]) { self.members = members }
    public init(_ pairs: KeyValuePairs<String, JSON>) {
        members = pairs.map { JSONMember(key: $0.key, value: $0.value) }
    }

    @inlinable public var count: Int { members.count }
    @inlinable public var isEmpty: Bool { members.isEmpty }
    @inlinable public var keys: [String] { members.map(\.key) }

    /// Names match by code points (their UTF-8 bytes), as JSON defines string equality; Swift's
    /// `==` would also match canonically equivalent spellings (NFC and NFD `é`), which the
    /// tape, the parsers' duplicate check and other JSON tools treat as different names.
    @inlinable public func index(forKey key: String) -> Int? {
        members.firstIndex { JSONObject.sameName($0.key, key) }
    }

    @inlinable public static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }

    /// Reading returns the member's value; assigning replaces it in place or appends it;
    /// assigning `nil` removes it.
    @inlinable public subscript(key: String) -> JSON? {
        get {
            for member in members where JSONObject.sameName(member.key, key) { return member.value }
            return nil
        }
        set {
            if let i = index(forKey: key) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(JSONMember(key: key, value: newValue))
            }
        }
    }
}
