import ReshapeJSON

/// A route's `client-query:`: which views of its array a client may ask for (docs/queries.md).
/// The view is made from the route's whole normalized answer, after the cache.
package struct ClientQueryRule: Sendable {
    /// Where the records are in the answer; no tokens: the answer itself.
    package var array: JSONPointer
    /// `fields: true`: `?fields=a,b.c` selects members.
    package var fields = false
    /// Dot paths a client may filter on, in the order written.
    package var filter: [String] = []
    /// Dot paths a client may sort by, in the order written.
    package var sort: [String] = []
    /// `page:`: the default page size and the largest `limit`; nil: no default, `limit` up to
    /// `ClientQueryRule.largestLimit`.
    package var page: Page?
    /// The member `keyed-to-array` gives every record: always kept by `fields`, and the cursor's
    /// tie-breaker. Nil when the route has no such step.
    package var keyMember: String?
    /// The JSON kinds each filter and sort path's values may have, from the element type's
    /// derived shape (filled after loading, by `ClientQueryShapes`); a missing path: any kind.
    package var kinds: [String: ValueKinds] = [:]
    /// The element's declared dot paths, the names `fields` accepts; nil: any name (the
    /// element's shape declares none, or the shape pass has not run).
    package var fieldNames: [String]?
    /// Where each part was written, for the checks made after loading.
    package var locations = Locations()

    package static let largestLimit = 10_000
    package static let maxFields = 64
    package static let maxFilters = 16
    /// Names a filter field may not take: the query's own parameters.
    package static let reservedNames: Set<String> = ["fields", "sort", "limit", "cursor"]

    package struct Page: Sendable, Equatable {
        package var size: Int
        package var max: Int
        package init(size: Int, max: Int) {
            self.size = size
            self.max = max
        }
    }

    package struct Locations: Sendable {
        package var rule = SourceLocation(file: "", line: 1, column: 1)
        package var array = SourceLocation(file: "", line: 1, column: 1)
        package var filter: [SourceLocation] = []
        package var sort: [SourceLocation] = []
        package init() {}
    }

    package init(array: JSONPointer) { self.array = array }

    /// The largest `limit` a client may ask for.
    package var maxLimit: Int { page?.max ?? Self.largestLimit }

    /// A dot path's member names: `address.city` is `["address", "city"]`.
    package static func path(_ dotted: String) -> [String] {
        dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

/// The JSON kinds a value may have; numbers split into integers and fractions so an integer
/// field refuses `1.5`.
package struct ValueKinds: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let null = ValueKinds(rawValue: 1)
    package static let boolean = ValueKinds(rawValue: 2)
    package static let integer = ValueKinds(rawValue: 4)
    package static let fraction = ValueKinds(rawValue: 8)
    package static let string = ValueKinds(rawValue: 16)
    package static let object = ValueKinds(rawValue: 32)
    package static let array = ValueKinds(rawValue: 64)
    package static let number: ValueKinds = [.integer, .fraction]
    package static let all: ValueKinds = [.null, .boolean, .number, .string, .object, .array]

    /// JSON Schema-like names, for messages and the OpenAPI parameter schemas.
    package var names: [String] {
        var names: [String] = []
        if contains(.boolean) { names.append("boolean") }
        if contains(.number) {
            names.append("number")
        } else if contains(.integer) {
            names.append("integer")
        } else if contains(.fraction) {
            names.append("number")
        }
        if contains(.string) { names.append("string") }
        if contains(.object) { names.append("object") }
        if contains(.array) { names.append("array") }
        if contains(.null) { names.append("null") }
        return names
    }
}
