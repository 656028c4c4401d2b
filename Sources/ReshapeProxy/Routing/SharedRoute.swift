import ReshapeRules

/// A route as the router hands it out: one reference, so a match is passed along a request's
/// path without copying the route's many fields (and retaining each) at every step. Members
/// read through it as through the route (`shared.name`); hot paths borrow `shared.route`.
@dynamicMemberLookup
package final class SharedRoute: Sendable {
    package let route: Route
    /// A fresh cached answer is all a plain GET of it needs: it has `cache:` and nothing to
    /// decide per request (no `auth`, `limit`, `client-query` or `live`), so `CacheHit` may
    /// answer it without a lifecycle.
    let hitNeedsNoLifecycle: Bool

    package init(_ route: Route) {
        self.route = route
        hitNeedsNoLifecycle =
            route.cache != nil && route.auth == nil && route.limit.isEmpty && route.clientQuery == nil
            && route.live == nil
    }

    package subscript<Value>(dynamicMember member: KeyPath<Route, Value>) -> Value { route[keyPath: member] }
}
