import ReshapeJSON

/// A request's Firebase query parameters on a route with `firebase-query: true` (`orderBy`,
/// `equalTo`, `startAt`, `endAt`, `limitToFirst`, `limitToLast`, `shallow`), checked as
/// Firebase checks them, so a request Firebase would refuse is refused before it is fetched.
/// The proxy forwards `parameters` and hands `order` to the run (`keyed-to-array`'s
/// `order: query`). See docs/firebase.md for what Firebase documents.
package struct FirebaseQuery: Sendable, Equatable {
    /// The parameters a route with `firebase-query: true` forwards, in the order they are sent.
    package static let names = ["orderBy", "equalTo", "startAt", "endAt", "limitToFirst", "limitToLast", "shallow"]

    /// What `orderBy` names: how Firebase ordered (and filtered) its matches.
    package enum Order: Sendable, Equatable {
        /// `"$key"`, and what the SDK uses when a request names no order.
        case key
        /// `"$value"`.
        case value
        /// `"$priority"`: answers carry no priorities, so Reshape cannot order by them.
        case priority
        /// A child path (`"age"`, `"address/city"`), as its segments.
        case child([String])
    }

    /// One parameter as the client sent it, percent-decoded: its value is JSON text.
    package struct Parameter: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// How a route uses the query.
    package enum Use: Sendable, Equatable {
        /// No `firebase-query`: the parameters are not read (nor forwarded, unless `forward-query` lists them).
        case off
        /// `firebase-query: true`: checked and forwarded.
        case forward
        /// Forwarded, and a `keyed-to-array` orders by it (`order: query`): `"$priority"`, whose
        /// order the answer does not carry, is refused.
        case forwardAndOrder
    }

    /// Why a query is refused.
    package enum Failure: Error, Sendable, Equatable {
        /// The query string is not valid percent-encoding (or not UTF-8).
        case encoding
        /// A parameter Firebase would refuse, and why.
        case parameter(name: String, reason: String)
    }

    /// The Firebase parameters given, in `names` order.
    package var parameters: [Parameter]
    /// `orderBy`; nil when the request names no order.
    package var orderBy: Order?

    package init(parameters: [Parameter] = [], orderBy: Order? = nil) {
        self.parameters = parameters
        self.orderBy = orderBy
    }

    /// The order `keyed-to-array`'s `order: query` gives: `orderBy`'s, or by key without one.
    package var order: Order { orderBy ?? .key }

    /// The Firebase parameters of a raw query string (other parameters are left alone),
    /// checked as Firebase does: `orderBy` a JSON string (`"$key"`, `"$value"`,
    /// `"$priority"` or a child path), `equalTo`, `startAt` and `endAt` JSON values (strings
    /// when ordering by key), limits whole numbers from 1, not both limits, filters and limits
    /// only with `orderBy`, `equalTo` not with `startAt` or `endAt`, and `shallow` alone.
    package static func parse(_ rawQuery: Substring) throws(Failure) -> FirebaseQuery {
        var given: [String: String] = [:]
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            guard let name = PercentEncoding.decode(equals.map { pair[..<$0] } ?? pair, plusIsSpace: true),
                let value = PercentEncoding.decode(
                    equals.map { pair[pair.index(after: $0)...] } ?? "", plusIsSpace: true)
            else { throw .encoding }
            // Filters Reshape does not check are refused, not dropped: the client would get
            // unfiltered data it did not ask for.
            if name == "startAfter" || name == "endBefore" {
                throw .parameter(name: name, reason: "is not supported; use startAt or endAt")
            }
            guard names.contains(name) else { continue }
            if given[name] != nil { throw .parameter(name: name, reason: "is given more than once") }
            given[name] = value
        }
        var query = FirebaseQuery()
        if given.isEmpty { return query }
        for name in names {
            if let value = given[name] { query.parameters.append(Parameter(name: name, value: value)) }
        }

        if let shallow = given["shallow"] {
            guard shallow == "true" || shallow == "false" else {
                throw .parameter(name: "shallow", reason: "must be true or false")
            }
            if given.count > 1 {
                throw .parameter(name: "shallow", reason: "cannot be combined with other query parameters")
            }
            return query
        }
        if let text = given["orderBy"] {
            guard let order = Self.order(text) else {
                throw .parameter(
                    name: "orderBy",
                    reason: "must be a JSON string: \"$key\", \"$value\", \"$priority\" or a child path like \"age\"")
            }
            query.orderBy = order
        }
        for name in ["equalTo", "startAt", "endAt"] {
            guard let text = given[name] else { continue }
            let value = try? JSON.parse(Array(text.utf8))
            switch value {
            case .null?, .bool?, .number?: break
            case .string?: continue
            default:
                throw .parameter(
                    name: name, reason: "must be a JSON value: a quoted string, a number, true, false or null")
            }
            if query.orderBy == .key {
                throw .parameter(name: name, reason: "must be a JSON string when orderBy is \"$key\"")
            }
        }
        for name in ["limitToFirst", "limitToLast"] {
            guard let text = given[name] else { continue }
            let digits = text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard digits, text.utf8.first != UInt8(ascii: "0"), let limit = Int(text), limit <= Int(Int32.max) else {
                throw .parameter(name: name, reason: "must be a whole number from 1")
            }
        }
        if given["limitToFirst"] != nil, given["limitToLast"] != nil {
            throw .parameter(name: "limitToLast", reason: "cannot be used with limitToFirst")
        }
        if given["equalTo"] != nil, given["startAt"] != nil || given["endAt"] != nil {
            throw .parameter(name: "equalTo", reason: "cannot be used with startAt or endAt")
        }
        if query.orderBy == nil {
            throw .parameter(
                name: "orderBy", reason: "must be given with equalTo, startAt, endAt, limitToFirst or limitToLast")
        }
        return query
    }

    /// `orderBy`'s JSON text as an order; nil when it is not a JSON string naming one.
    static func order(_ text: String) -> Order? {
        guard case .string(let name)? = try? JSON.parse(Array(text.utf8)) else { return nil }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            // A child path: segments of a Firebase key each (no `.`, `$`, `#`, `[`, `]`, `/` or
            // control characters); empty segments are ignored, as Firebase does.
            let segments = name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            guard !segments.isEmpty,
                segments.allSatisfy({ segment in
                    !segment.utf8.contains {
                        $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "$")
                            || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]")
                    }
                })
            else { return nil }
            return .child(segments)
        }
    }
}
