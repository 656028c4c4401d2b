import ReshapeJSON

/// The root object's member names as hashes, in member order: a member is found by scanning
/// the hashes and comparing only the names whose hash matches, not every name. A collection's
/// root has one member per record, and most events name one of them.
struct RootMemberIndex: Sendable {
    private var hashes: [UInt64]

    /// The index of `value`'s members; nil when `value` is not an object.
    init?(_ value: JSON) {
        guard case .object(let object) = value else { return nil }
        hashes = object.members.map { Self.hash($0.key) }
    }

    /// Where `name` is among `object`'s members (the object this index was made for): the first
    /// member so named, as `JSONObject.index(forKey:)` finds it.
    func position(of name: String, in object: JSONObject) -> Int? {
        assert(hashes.count == object.count, "the root index is out of step with the root")
        // Out of step with the object (a bug): the plain scan is still right.
        guard hashes.count == object.count else { return object.index(forKey: name) }
        let hash = Self.hash(name)
        return hashes.withUnsafeBufferPointer { hashes in
            for i in hashes.indices where hashes[i] == hash && JSON.sameBytes(object.members[i].key, name) {
                return i
            }
            return nil
        }
    }

    /// The member at `position` was removed.
    mutating func remove(at position: Int) { hashes.remove(at: position) }

    /// A member named `name` was appended.
    mutating func append(_ name: String) { hashes.append(Self.hash(name)) }

    var count: Int { hashes.count }

    /// FNV-1a over the name's UTF-8 bytes.
    static func hash(_ name: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
