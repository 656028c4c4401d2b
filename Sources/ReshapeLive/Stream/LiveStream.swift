import ReshapeJSON
import ReshapeProblem
import ReshapeStateMachines

/// One live route's stream for one streamed Firebase location, without I/O: Firebase events in,
/// what the subscribers get out (`snapshot`, then `patch`es, or a final `error`).
///
/// It keeps the location's `FirebaseDocument` and the last normalized answer sent. The first
/// `put` at the root (Firebase starts every stream with one, carrying the whole value) gives the
/// `snapshot`; each later event that changes the normalized answer gives one `patch` from the
/// previous answer to the new one, and an event that changes nothing gives nothing. `cancel`,
/// `auth_revoked`, an event the document cannot take, or a normalize failure end the stream
/// with `error`. After `reconnected`, the next root `put` gives a fresh `snapshot`.
///
/// Given the route's pipeline record by record (`RecordwiseNormalize`), an event that changed
/// some root members re-normalizes only them and splices their records into the answer; the
/// events sent are the same bytes as with the whole pipeline.
public struct LiveStream {
    /// The route's pipeline: the upstream value in, the answer a plain GET returns out, or the
    /// problem that GET would answer with (e.g. `validation-failed`), sent as it is thrown.
    public typealias Normalize = (JSON) throws(Problem) -> JSON

    enum State {
        /// Waiting for the root `put` that (re)starts the stream; events before it only build
        /// the document, since the subscriber has no answer to patch yet.
        case awaitingSnapshot(FirebaseDocument)
        /// A snapshot was sent; `answer` is the normalized answer the subscriber holds now, and
        /// `names` the root member name of each of its records when the route is normalized
        /// record by record (nil otherwise, or while the records cannot be named).
        case streaming(FirebaseDocument, answer: JSON, names: [String]?)
        /// An `error` was sent; the stream is over and takes no more events.
        case ended
        /// An event has taken the state's data out (so that the document changes in place) and
        /// not put the next state back yet: any event that finds it here re-entered, and traps.
        case modifying

        var name: String {
            switch self {
            case .awaitingSnapshot: "awaitingSnapshot"
            case .streaming: "streaming"
            case .ended: "ended"
            case .modifying: "modifying"
            }
        }
    }

    /// What to send after an event.
    public enum Action: Sendable {
        /// Nothing: the event did not change the answer (or there is no answer yet).
        case none
        /// Send this `snapshot` or `patch`; the stream goes on.
        case send(LiveEvent)
        /// Send this `error` and close: the stream is over.
        case end(LiveEvent)
    }

    private(set) var state: State = .awaitingSnapshot(FirebaseDocument())
    /// The id of the last event sent. Kept beside the state: ids run on across reconnects,
    /// since the subscriber's stream is the same one.
    private var lastID = 0
    private let normalizer: Normalizer
    /// Members every problem of this stream carries right after `code` (the server's problems
    /// name `route` and `upstream` there).
    private let context: [JSONMember]

    /// A stream waiting for its first `put`. `normalize` is the route's pipeline; `context`
    /// members go into every problem it ends with.
    public init(context: [JSONMember] = [], normalize: @escaping Normalize) {
        self.context = context
        self.normalizer = .whole(normalize)
    }

    /// A stream waiting for its first `put`, whose route is normalized record by record: an
    /// event re-normalizes only the records it changed.
    public init(context: [JSONMember] = [], recordwise: RecordwiseNormalize) {
        self.context = context
        self.normalizer = .recordwise(recordwise)
    }

    /// The route's pipeline, whole or record by record.
    private enum Normalizer {
        case whole(Normalize)
        case recordwise(RecordwiseNormalize)
    }

    /// True once an `error` was sent: the caller must feed nothing more.
    public var isEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// The answer the subscriber holds now, once a snapshot was sent (nil before, and after
    /// the stream ended or reconnected). A copy kept across the next event makes that event
    /// copy the answer's records, which a record-by-record stream otherwise changes in place.
    public var answer: JSON? {
        if case .streaming(_, let answer, _) = state { return answer }
        return nil
    }

    /// A Firebase event of the upstream stream arrived.
    public mutating func received(_ event: FirebaseEvent) -> Action {
        switch state {
        case .awaitingSnapshot, .streaming: break
        case .ended, .modifying: impossible(Self.name(of: event), in: state.name)
        }
        switch event {
        case .put, .patch: return apply(event)
        case .keepAlive: return .none
        case .cancel(let reason): return end(.cancelled(reason: reason))
        case .authRevoked(let reason): return end(.authRevoked(reason: reason))
        }
    }

    /// The upstream stream dropped and a new one was opened: its first `put` is the whole value
    /// again, and the subscriber gets it as a fresh `snapshot`, not as a patch.
    public mutating func reconnected() -> Action {
        switch state {
        case .awaitingSnapshot, .streaming:
            state = .awaitingSnapshot(FirebaseDocument())
            return .none
        case .ended, .modifying:
            impossible("reconnected", in: state.name)
        }
    }

    private mutating func apply(_ event: FirebaseEvent) -> Action {
        // Moved out of `state`, so that the document is uniquely referenced and changes in place.
        var current = State.modifying
        swap(&current, &state)
        switch consume current {
        case .awaitingSnapshot(var document):
            do throws(FirebaseDocument.Failure) {
                _ = try document.apply(event)
            } catch {
                return end(.notApplicable(error))
            }
            guard case .put(let path, _) = event, path.isEmpty else {
                state = .awaitingSnapshot(document)
                return .none
            }
            let answer: JSON
            let names: [String]?
            do throws(Problem) { (answer, names) = try normalizeWhole(document.value) } catch {
                return end(error, addingContext: false)
            }
            state = .streaming(document, answer: answer, names: names)
            return send(.snapshot(answer))
        case .streaming(var document, var previous, var names):
            let change: FirebaseDocument.Change
            do throws(FirebaseDocument.Failure) {
                change = try document.apply(event)
            } catch {
                return end(.notApplicable(error))
            }
            guard change != .none else {
                state = .streaming(document, answer: previous, names: names)
                return .none
            }
            if case .recordwise(let recordwise) = normalizer, case .rootMembers(let changed) = change,
                var known = names
            {
                names = nil  // so that `known` is the only reference and changes in place
                if let patch = recordwise.splice(changed, of: document, into: &previous, names: &known) {
                    state = .streaming(document, answer: previous, names: known)
                    return patch.isEmpty ? .none : send(.patch(patch))
                }
            }
            let answer: JSON
            do throws(Problem) { (answer, names) = try normalizeWhole(document.value) } catch {
                return end(error, addingContext: false)
            }
            state = .streaming(document, answer: answer, names: names)
            let patch = JSONPatch.difference(from: previous, to: answer)
            return patch.isEmpty ? .none : send(.patch(patch))
        case .ended: impossible(Self.name(of: event), in: "ended")
        case .modifying: impossible(Self.name(of: event), in: "modifying")
        }
    }

    /// The whole document normalized, with its records' names when the route is recordwise.
    private func normalizeWhole(_ value: JSON) throws(Problem) -> (answer: JSON, names: [String]?) {
        switch normalizer {
        case .whole(let normalize): return (try normalize(value), nil)
        case .recordwise(let recordwise): return try recordwise.whole(value)
        }
    }

    private mutating func send(_ kind: LiveEvent.Kind) -> Action {
        lastID += 1
        return .send(LiveEvent(id: lastID, kind: kind))
    }

    /// Ends the stream with `problem`, the stream's context members put after its `code` unless
    /// the problem is the pipeline's, which names its route itself (as the plain GET's does).
    private mutating func end(_ problem: Problem, addingContext: Bool = true) -> Action {
        var problem = problem
        if addingContext { problem.extra = context + problem.extra }
        state = .ended
        lastID += 1
        return .end(LiveEvent(id: lastID, kind: .error(problem)))
    }

    private static func name(of event: FirebaseEvent) -> String {
        switch event {
        case .put: "put"
        case .patch: "patch"
        case .keepAlive: "keepAlive"
        case .cancel: "cancel"
        case .authRevoked: "authRevoked"
        }
    }
}
