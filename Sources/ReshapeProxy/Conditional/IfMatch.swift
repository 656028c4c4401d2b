/// What a client's `If-Match` (RFC 9110 §13.1.1) asks of a write on a conditional route.
package enum IfMatch: Equatable, Sendable {
    /// No `If-Match`: the write goes as on any route.
    case absent
    /// `If-Match: *`: passed on as it is (Firebase decides what it means).
    case any
    /// A member of the list is a tag this route's resource made: Firebase's ETag in it is sent
    /// as `if-match`. The first such member wins.
    case firebase(String)
    /// None is: a weak tag (If-Match compares strongly), a tag of another resource or of other
    /// rules, or something that is no tag at all. Answered 412 with the current tag, and
    /// nothing is written.
    case stale

    /// The decision for the request's `If-Match` field values (every line of it) on a route
    /// whose resource part is `resource`.
    package static func decide(_ values: [String], resource: String) -> IfMatch {
        guard !values.isEmpty else { return .absent }
        let members = values.flatMap(Self.members)
        if members.count == 1, members[0] == "*" { return .any }
        for member in members {
            if let tag = ConditionalTag.parse(member), tag.resource == resource { return .firebase(tag.firebase) }
        }
        return .stale
    }

    /// The list's members: each entity tag (a quoted string, with `W/` when weak) or, for
    /// anything that is not one, the text up to the next comma, so it matches nothing. A comma
    /// inside quotes belongs to the tag.
    static func members(_ value: String) -> [Substring] {
        var members: [Substring] = []
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "," || character == " " || character == "\t" {
                index = value.index(after: index)
                continue
            }
            let start = index
            var rest = value[index...]
            if rest.hasPrefix("W/") { rest = rest.dropFirst(2) }
            if rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") {
                index = value.index(after: close)
            } else {
                index = value[index...].firstIndex(of: ",") ?? value.endIndex
            }
            var member = value[start..<index]
            while let last = member.last, last == " " || last == "\t" { member = member.dropLast() }
            members.append(member)
        }
        return members
    }
}
