import ReshapeJSON
import ReshapeProblem

/// A route's pipeline as `LiveStream` takes it when the answer is a list of records, one per
/// root member of the document, each normalized on its own (ReshapeRules' `RecordwisePipeline`
/// says which routes are). After an event that changed some root members, the stream
/// re-normalizes those members alone and splices their records into the answer it holds,
/// instead of normalizing the whole document again: the events it sends are the same bytes.
public struct RecordwiseNormalize {
    /// How the answer orders its records.
    public enum Order: Sendable {
        /// By member name, comparing UTF-8 bytes (`order: key`).
        case byName
        /// As the document lists its members (`order: source`).
        case asInDocument
    }

    /// The whole document normalized: the answer a plain GET returns, and the root member name
    /// of each of its records in order (nil when the records cannot be told apart by name: the
    /// stream then normalizes the whole document after every event until it can). Throws the
    /// problem that GET would answer with.
    public typealias Whole = (JSON) throws(Problem) -> (answer: JSON, names: [String]?)
    /// Some root members normalized alone: the records they give, each with its member's name,
    /// in the answer's order (a member the route drops gives none); nil when they cannot be
    /// named. A member that would fail the route throws; the stream then runs `whole`, which
    /// gives the problem exactly as the GET has it.
    public typealias Members = ([JSONMember]) throws(Problem) -> [(name: String, record: JSON)]?

    public var order: Order
    /// The answer's member that holds the records (`wrap`); nil: the answer is the array.
    public var wrap: String?
    public var whole: Whole
    public var members: Members

    public init(order: Order, wrap: String?, whole: @escaping Whole, members: @escaping Members) {
        self.order = order
        self.wrap = wrap
        self.whole = whole
        self.members = members
    }
}
