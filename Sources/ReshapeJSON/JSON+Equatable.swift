// Equality by meaning, as JSON Schema's `const`, `enum` and `uniqueItems` define it:
// numbers compare numerically and objects ignore member order.

extension JSON: Equatable {
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }
}

extension JSONObject: Equatable {
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Fast path: same order.
        if zip(lhs.members, rhs.members).allSatisfy({ $0.key == $1.key && $0.value == $1.value }) { return true }
        if lhs.count <= 16 {
            return lhs.members.allSatisfy { member in rhs[member.key].map { $0 == member.value } ?? false }
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(rhs.count)
        for (i, member) in rhs.members.enumerated() { index[member.key] = i }
        return lhs.members.allSatisfy { member in
            index[member.key].map { rhs.members[$0].value == member.value } ?? false
        }
    }
}

extension JSON: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let flag):
            hasher.combine(1)
            hasher.combine(flag)
        case .number(let number):
            hasher.combine(2)
            hasher.combine(number)
        case .string(let string):
            hasher.combine(3)
            hasher.combine(string)
        case .array(let elements):
            hasher.combine(4)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(5)
            hasher.combine(object)
        }
    }
}

extension JSONObject: Hashable {
    /// Order-independent: members are hashed one by one and summed.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            sum = sum &+ memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(sum)
    }
}

extension JSONMember: Equatable {
    public static func == (lhs: JSONMember, rhs: JSONMember) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value
    }
}
