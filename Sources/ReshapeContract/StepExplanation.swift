import ReshapeJSON
import ReshapeRules

/// One step of `reshape explain`: what ran, what came out, and which elements it dropped or
/// converted. Built from a traced run's `StepTrace`s, so it shows the run the server makes.
package struct StepExplanation {
    /// 1-based position in the route's transform (expand merges included).
    package var number: Int
    package var name: String
    package var argument: JSON?
    /// The value after the step.
    package var value: JSON
    package var dropped: [DroppedElement]
    package var coerced: [Coercion]

    /// A field a `coerce` step converted; the pointer is into the value the step received.
    package struct Coercion: Equatable {
        package var pointer: String
        package var from: JSON
        package var to: JSON
    }

    /// The steps of a traced run that started from `input`.
    package static func steps(_ traces: [StepTrace], input: JSON) -> [StepExplanation] {
        var before = input
        var steps: [StepExplanation] = []
        for (i, trace) in traces.enumerated() {
            var coerced: [Coercion] = []
            if let coerce = trace.operation as? CoerceOperation {
                coerced = conversions(
                    coerce.fields.map(\.name), before: before, after: trace.value, dropped: trace.dropped)
            }
            steps.append(
                StepExplanation(
                    number: i + 1, name: trace.name, argument: trace.argument, value: trace.value,
                    dropped: trace.dropped, coerced: coerced))
            before = trace.value
        }
        return steps
    }

    /// The fields whose values a `coerce` step changed. Its records keep their order and only
    /// the dropped ones go, so the records after it line up with those before it, minus the drops.
    static func conversions(_ fields: [String], before: JSON, after: JSON, dropped: [DroppedElement]) -> [Coercion] {
        func compare(_ old: JSON, _ new: JSON, at pointer: String) -> [Coercion] {
            guard case .object(let was) = old, case .object(let now) = new else { return [] }
            return fields.compactMap { field in
                guard let from = was[field], let to = now[field], !sameSpelling(from, to) else { return nil }
                return Coercion(pointer: JSONPointer.appending(key: field, to: pointer), from: from, to: to)
            }
        }
        guard case .array(let olds) = before else { return compare(before, after, at: "") }
        guard case .array(let news) = after else { return [] }
        let gone = Set(dropped.map(\.pointer))
        var result: [Coercion] = []
        var next = news.makeIterator()
        for (i, old) in olds.enumerated() {
            let pointer = JSONPointer.appending(index: i, to: "")
            if gone.contains(pointer) { continue }
            guard let new = next.next() else { break }
            result += compare(old, new, at: pointer)
        }
        return result
    }

    /// `1` and `1.0` are equal JSON but a conversion (or not) all the same: compare the text.
    private static func sameSpelling(_ a: JSON, _ b: JSON) -> Bool {
        a.serialized() == b.serialized()
    }
}
