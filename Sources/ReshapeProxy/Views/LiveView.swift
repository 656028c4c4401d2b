import ReshapeJSON
import ReshapeLive
import ReshapeRules

/// One subscriber's view of a live route (docs/queries.md#live-routes): the view of each new
/// answer of the shared stream, sent as a snapshot first, then as the patch from the view it
/// had. A record that starts matching is an `add`, one that stops a `remove`, and a change to
/// a member it does not see sends nothing. Never paged: `limit` and `cursor` are refused on
/// streams.
package struct LiveView: Sendable {
    let view: ClientView
    let rule: ClientQueryRule
    /// The view the subscriber holds; nil before its snapshot.
    private(set) var current: JSON?

    init(view: ClientView, rule: ClientQueryRule) {
        var view = view
        view.limit = nil
        view.cursor = nil
        self.view = view
        self.rule = rule
    }

    /// What the subscriber gets for the stream's answer `answer`: its view as a snapshot (the
    /// first time, or when the stream sent a snapshot again), else the patch from its last
    /// view; nil when its view did not change.
    package mutating func event(for answer: JSON, snapshot: Bool) -> LiveEvent.Kind? {
        // Without a cursor a view cannot be refused.
        let made = (try? view.apply(to: answer, rule: rule, fingerprint: "").body) ?? answer
        defer { current = made }
        guard let current, !snapshot else { return .snapshot(made) }
        let patch = JSONPatch.difference(from: current, to: made)
        return patch.operations.isEmpty ? nil : .patch(patch)
    }
}
