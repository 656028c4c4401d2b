import ReshapeJSON

/// A route's transform when its answer is one record per member of the upstream object, each
/// normalized on its own: `keyed-to-array` first (`order: key` or `source`), then only steps
/// that treat each element alone (`TransformOperation.isElementLocal`), then at most a `wrap`.
/// A change to some members can then be normalized from those members alone and spliced into
/// the previous answer: what a live stream does with each event (docs/live.md).
///
/// Both runs are the route's own pipeline, on the tape as the server runs it; they add the
/// root member name each record of the answer came from, which the steps do not keep.
package struct RecordwisePipeline: Sendable {
    /// How the answer orders its records: by member name (`order: key`) or as the upstream
    /// object lists its members (`order: source`).
    package let order: KeyedToArrayOperation.Order
    /// The member of the answer that holds the records (`wrap`); nil: the answer is the array.
    package let wrap: String?
    private let pipeline: Pipeline

    /// The route's transform split by record, or nil when its answer is not one record per
    /// member normalized alone (another first step, `order: numeric-key` or `query`, a step
    /// that sees the whole list such as `sort`, `fetch:` or `expand`).
    package init?(_ route: Route) {
        guard route.isSingleFetch, route.stages.isEmpty else { return nil }
        self.init(route.pipeline)
    }

    /// `pipeline` split by record, or nil (see `init(_: Route)`).
    package init?(_ pipeline: Pipeline) {
        guard let head = pipeline.steps.first as? KeyedToArrayOperation, head.order == .key || head.order == .source
        else { return nil }
        var middle = pipeline.steps.dropFirst()
        wrap = (middle.last as? WrapOperation)?.field
        if wrap != nil { middle = middle.dropLast() }
        guard middle.allSatisfy(\.isElementLocal) else { return nil }
        order = head.order
        self.pipeline = pipeline
    }

    /// What a run gave: the answer, as `Pipeline.run` gives it, and the root member name of
    /// each of its records, in the answer's order.
    package struct Run: Sendable {
        package var output: PipelineOutput
        /// Nil when the records cannot be told apart by name: the upstream value is not an
        /// object (Firebase's array form).
        package var names: [String]?
    }

    /// Runs the route's transform on the whole upstream value.
    package func run(_ document: JSONTape, parameters: [String: String] = [:]) throws(PipelineError) -> Run {
        var value = TapeValue(tape: document)
        var names = Self.memberNames(document, order: order)
        var context = TransformContext(parameters: parameters)
        for index in pipeline.steps.indices {
            let droppedBefore = context.dropped.count
            try Pipeline.run(pipeline.steps[index], on: &value, context: &context)
            if index > 0, names != nil, context.dropped.count > droppedBefore {
                Self.remove(dropped: context.dropped[droppedBefore...], from: &names!)
            }
        }
        return Run(output: PipelineOutput(tapeValue: value, dropped: context.dropped), names: names)
    }

    /// The records `members` give normalized alone (those the steps keep), each with its
    /// member's name, in the answer's order: a run on an object holding only them. Nil when
    /// the records cannot be matched to names (see `Run.names`); the caller then runs the
    /// whole document.
    package func records(of members: [JSONMember], parameters: [String: String] = [:]) throws(PipelineError)
        -> [(name: String, record: JSON)]?
    {
        if members.isEmpty { return [] }
        let run = try run(OfflineRun.tape(.object(JSONObject(members))), parameters: parameters)
        guard let names = run.names, let records = records(in: run.output.value), records.count == names.count
        else { return nil }
        return Array(zip(names, records))
    }

    /// The records of an answer this pipeline made: its array, or the `wrap` member's.
    package func records(in answer: JSON) -> [JSON]? {
        var list = answer
        if let wrap {
            guard case .object(let object) = answer, let inner = object[wrap] else { return nil }
            list = inner
        }
        guard case .array(let elements) = list else { return nil }
        return elements
    }

    /// The names of the root object's members in the order `keyed-to-array` lists their
    /// records; `[]` for `null`, nil for anything else. (The tape parser refuses a name given
    /// twice, so names are unique and any sort by bytes gives the step's order.)
    private static func memberNames(_ document: JSONTape, order: KeyedToArrayOperation.Order) -> [String]? {
        let root = document.root
        switch document.kind(root) {
        case .null: return []
        case .object: break
        default: return nil
        }
        var nodes: [Int] = []
        nodes.reserveCapacity(document.count(root))
        document.forEachMember(root) { name, _ in nodes.append(name) }
        if order == .key {
            if let sorted = KeyOrder.byteOrder(of: nodes, in: document) {
                nodes = sorted.map { nodes[$0] }
            } else {
                let permutation = KeyOrder.permutation(nodes.map { document.string($0) }, numeric: false)
                nodes = permutation.map { nodes[$0] }
            }
        }
        return nodes.map { document.string($0) }
    }

    /// Removes the names of the elements a step dropped: its drops at `/i`, i an index into
    /// the list it received. Deeper pointers are values inside a record, which stays.
    private static func remove(dropped: ArraySlice<DroppedElement>, from names: inout [String]) {
        var positions: [Int] = []
        for drop in dropped {
            guard let pointer = JSONPointer(drop.pointer), pointer.tokens.count == 1,
                let index = JSON.arrayIndex(pointer.tokens[0]), index < names.count
            else { continue }
            positions.append(index)
        }
        ElementFilter.remove(Array(Set(positions)).sorted(), from: &names)
    }
}
