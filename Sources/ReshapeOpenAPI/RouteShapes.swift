import ReshapeJSON
import ReshapeRules

/// What a route's answer looks like, from its fetches and transform.
package enum RouteShapes {
    /// The transform's input: unknown for one fetch (the upstream's body); for a `fetch:`
    /// route, an object with exactly a member per fetch (a failed optional one is `null`).
    package static func input(of route: Route) -> Shape {
        if route.isSingleFetch { return .any }
        return .object(.closed(route.fetches.map { ($0.name, Shape.any) }))
    }

    /// The body of the route's successful answer: the transform, then each `expand` stage.
    package static func output(of route: Route, _ algebra: ShapeAlgebra) -> Shape {
        var shape = route.pipeline.outputShape(for: input(of: route), algebra)
        for stage in route.stages {
            if case .never = shape { return .never }
            shape = stage.outputShape(for: shape, algebra)
        }
        return shape
    }
}
