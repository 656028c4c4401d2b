import ReshapeRules

/// A route as the router hands it out: one reference, so a match is passed along a request's
/// path without copying the route's many fields (and retaining each) at every step. Members
/// read through it as through the route (`shared.name`); hot paths borrow `shared.route`.
@dynamicMemberLookup
package final class SharedRoute: Sendable {
    package let route: Route

    package init(_ route: Route) { self.route = route }

    package subscript<Value>(dynamicMember member: KeyPath<Route, Value>) -> Value { route[keyPath: member] }
}
