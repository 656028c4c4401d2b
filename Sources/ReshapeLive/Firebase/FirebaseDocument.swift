import ReshapeJSON

/// The value at a streamed Firebase location, kept up to date by its events, as Firebase itself
/// keeps it: a `null` deletes, and an object left with no members is deleted too (Firebase
/// stores no empty objects), up to the root, which becomes `null`.
public struct FirebaseDocument: Sendable {
    /// The current value: what a plain GET of the location would return now.
    public private(set) var value: JSON

    public init(_ value: JSON = .null) {
        self.value = value
    }

    /// What an applied event changed, so that a caller can redo only that part of its work.
    public enum Change: Sendable, Equatable {
        /// Nothing changed (the event set what was there already, or was not a change).
        case none
        /// Only these members of the root object changed (added, replaced or removed), in the
        /// order they were first touched.
        case rootMembers([String])
        /// The root itself was replaced (a put at "/", or the root's kind changed).
        case whole
    }

    /// Why an event cannot be applied.
    public enum Failure: Error, Equatable, Sendable {
        /// A path goes through an array index that is not there, or through a scalar.
        case pathNotApplicable(path: [String])
    }

    /// Applies a `put` or `patch`; other events change nothing (`.none`).
    public mutating func apply(_ event: FirebaseEvent) throws(Failure) -> Change {
        fatalError("FirebaseDocument.apply: not built yet")
    }
}
