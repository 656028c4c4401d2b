import ReshapeJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Equality by spelling, the one a patch must reproduce. `JSON`'s `==` is equality by meaning
// (`1 == 1.0`, member order ignored), so the differ never uses it.

extension JSON {
    /// True when both values serialize to the same bytes: the same kinds, numbers with the same
    /// text, strings and member names with the same UTF-8 bytes, members in the same order.
    /// Stops at the first difference.
    func isIdentical(to other: JSON) -> Bool {
        switch self {
        case .null:
            if case .null = other { return true }
        case .bool(let flag):
            if case .bool(let otherFlag) = other { return flag == otherFlag }
        case .number(let number):
            if case .number(let otherNumber) = other { return JSON.sameBytes(number.text, otherNumber.text) }
        case .string(let string):
            if case .string(let otherString) = other { return JSON.sameBytes(string, otherString) }
        case .array(let elements):
            if case .array(let otherElements) = other { return JSON.identical(elements, otherElements) }
        case .object(let object):
            if case .object(let otherObject) = other { return JSON.identical(object.members, otherObject.members) }
        }
        return false
    }

    private static func identical(_ a: [JSON], _ b: [JSON]) -> Bool {
        guard a.count == b.count else { return false }
        // Borrowing the storage avoids retaining each element as the loop reads it.
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in 0..<a.count where !a[i].isIdentical(to: b[i]) { return false }
                return true
            }
        }
    }

    private static func identical(_ a: [JSONMember], _ b: [JSONMember]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                for i in 0..<a.count {
                    guard sameBytes(a[i].key, b[i].key), a[i].value.isIdentical(to: b[i].value) else { return false }
                }
                return true
            }
        }
    }

    /// Same UTF-8 bytes. Swift's `==` on `String` would also match canonically equivalent
    /// spellings (NFC and NFD `é`), which serialize differently.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let count = a.utf8.count
        guard count == b.utf8.count else { return false }
        let compared: Bool? =
            a.utf8.withContiguousStorageIfAvailable { a in
                b.utf8.withContiguousStorageIfAvailable { b in
                    guard let a = a.baseAddress, let b = b.baseAddress else { return true }
                    return memcmp(a, b, count) == 0
                }
            } ?? nil
        return compared ?? a.utf8.elementsEqual(b.utf8)
    }
}
