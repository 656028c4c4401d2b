import ReshapeJSON
import ReshapeProblem
import ReshapeProxy
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// Routes normalized record by record, each beside the same route normalized whole.
private let rules = """
    upstreams:
      api: { url: "http://127.0.0.1:8081" }
    types:
    \(UsersRules.userType(extraProperties: ["tags: { type: array, items: { type: string } }"]))
      Tag: { type: string, minLength: 2 }
    routes:
    \(UsersRules.route(upstream: "api"))
      - name: source-order
        request: GET /source
        upstream: api
        path: /users.json
        transform:
          - keyed-to-array: { key: id }
          - coerce: { age: integer, invalid: drop }
          - rename: { name: displayName }
          - default: { tags: [] }
          - each:
              - drop: [secret]
      - name: tags-checked
        request: GET /tags
        upstream: api
        path: /users.json
        transform:
          - keyed-to-array: { key: objectId, order: key }
          - at: { path: /*/tags/*, do: [{ validate: { type: Tag, invalid: drop } }] }
          - keep: [objectId, name, tags]
          - wrap: list
    \(UsersRules.route(name: "strict-users", request: "GET /strict/users", upstream: "api", invalid: "fail"))
      - name: sorted
        request: GET /sorted
        upstream: api
        path: /users.json
        transform:
          - keyed-to-array: { key: objectId, order: key }
          - sort: { by: name }
    """

/// The same random Firebase events through a route's stream normalized whole and through its
/// stream normalized record by record: every event sent must be the same bytes.
final class LiveStreamRecordwiseTests: XCTestCase {
    private func ruleSet() throws -> RuleSet {
        switch RuleLoader.load(files: [("live.yaml", rules)], environment: [:]) {
        case .success(let loaded): return loaded
        case .failure(let diagnostics): throw diagnostics
        }
    }

    /// How many times the record-by-record streams normalized the whole document.
    private final class WholeRuns: @unchecked Sendable {
        var count = 0
    }
    private let wholeRuns = WholeRuns()

    private func streams(_ name: String) throws -> (whole: LiveStream, recordwise: LiveStream) {
        let ruleSet = try ruleSet()
        let route = try XCTUnwrap(ruleSet.routes.first { $0.name == name })
        var recordwise = try XCTUnwrap(LiveNormalizer.recordwise(route, in: ruleSet, parameters: [:]))
        let whole = recordwise.whole
        let runs = wholeRuns
        recordwise.whole = { (value) throws(Problem) in
            runs.count += 1
            return try whole(value)
        }
        return (
            LiveStream(normalize: LiveNormalizer.normalize(route, in: ruleSet, parameters: [:])),
            LiveStream(recordwise: recordwise)
        )
    }

    func testWhichRoutesAreRecordwise() throws {
        let ruleSet = try ruleSet()
        let recordwise = ruleSet.routes.filter { RecordwisePipeline($0) != nil }.map(\.name)
        XCTAssertEqual(recordwise, ["users", "source-order", "tags-checked", "strict-users"])
    }

    func testRandomEventsGiveTheSameBytesAsTheWholePipeline() throws {
        for route in ["users", "source-order", "tags-checked"] {
            for seed in UInt64(1)...4 {
                wholeRuns.count = 0
                try differential(route: route, seed: seed, events: 300)
                XCTAssertLessThan(wholeRuns.count, 60, "\(route) seed \(seed): most events spliced records")
            }
        }
    }

    func testAnInvalidRecordUnderFailEndsTheStreamAsTheWholePipelineDoes() throws {
        for seed in UInt64(1)...4 {
            try differential(route: "strict-users", seed: seed, events: 300)
        }
    }

    /// Feeds `events` random events to both streams of `route`, comparing what they send, and
    /// starts both again after an `error`.
    private func differential(route: String, seed: UInt64, events: Int) throws {
        var (whole, recordwise) = try streams(route)
        var random = RandomEvents(seed: seed)
        for number in 1...events {
            let event = random.next()
            let expected = whole.received(event)
            let got = recordwise.received(event)
            XCTAssertEqual(got.bytes, expected.bytes, "\(route) seed \(seed) event \(number): \(event)")
            if got.bytes != expected.bytes { return }
            if whole.isEnded { (whole, recordwise) = try streams(route) }
        }
    }
}

extension LiveStream.Action {
    /// What the action sends, as the subscriber reads it; empty for nothing.
    fileprivate var bytes: String {
        var output: [UInt8] = []
        switch self {
        case .none: return ""
        case .send(let event): event.appendServerSentEvent(to: &output)
        case .end(let event):
            output = Array("end\n".utf8)
            event.appendServerSentEvent(to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Firebase events on a small users collection: resets (to nothing and to an array too), new
/// records (keys before, between and after the others), field changes that make records invalid
/// and valid again, deletes, and patches of several records at once.
private struct RandomEvents {
    var random: SplitMix64
    /// Keys handed out so far; most events touch one of them.
    var keys: [String] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func next() -> FirebaseEvent {
        if keys.isEmpty || roll(40) { return .put(path: [], data: collection()) }
        switch Int.random(in: 0..<10, using: &random) {
        case 0, 1: return .put(path: [newKey()], data: record())
        case 2: return .put(path: [oldKey()], data: .null)
        case 3: return .put(path: [oldKey()], data: record())
        case 4, 5: return .patch(path: [oldKey()], data: fields())
        case 6: return .put(path: [oldKey(), "name"], data: name())
        case 7:
            var children: [JSONMember] = []
            for _ in 0..<Int.random(in: 2...4, using: &random) {
                let key = roll(2) ? newKey() : oldKey()
                children.append(JSONMember(key: key, value: roll(4) ? .null : record()))
            }
            return .patch(path: [], data: JSONObject(children))
        case 8: return .patch(path: [], data: JSONObject([JSONMember(key: oldKey(), value: record())]))
        default: return .put(path: [oldKey(), "tags"], data: tags())
        }
    }

    private mutating func roll(_ sides: Int) -> Bool { Int.random(in: 0..<sides, using: &random) == 0 }

    /// A whole value: mostly a keyed collection, now and then nothing or Firebase's array form.
    private mutating func collection() -> JSON {
        if roll(12) { return .null }
        if roll(12) { return .array([record(), .null, record()]) }
        var members: [JSONMember] = []
        for _ in 0..<Int.random(in: 1...12, using: &random) {
            let key = roll(3) || keys.isEmpty ? newKey() : oldKey()
            if members.contains(where: { $0.key == key }) { continue }
            members.append(JSONMember(key: key, value: record()))
        }
        return .object(JSONObject(members))
    }

    /// A key sorting anywhere among the others: a letter, then digits.
    private mutating func newKey() -> String {
        let key =
            String(UnicodeScalar(UInt8.random(in: 97...122, using: &random)))
            + String(Int.random(in: 0..<1000, using: &random))
        keys.append(key)
        return key
    }

    private mutating func oldKey() -> String { keys.randomElement(using: &random)! }

    private mutating func record() -> JSON {
        if roll(15) { return .string("not a record") }
        return .object(JSONObject(fields().members))
    }

    private mutating func fields() -> JSONObject {
        var members: [JSONMember] = []
        if !roll(20) { members.append(JSONMember(key: "name", value: name())) }
        if roll(2) {
            let age = Int.random(in: 0...99, using: &random)
            let odd: [JSON] = [.number(JSONNumber(-3)), .string("41")]
            members.append(
                JSONMember(key: "age", value: roll(4) ? odd.randomElement(using: &random)! : .number(JSONNumber(age))))
        }
        if roll(3) { members.append(JSONMember(key: "tags", value: tags())) }
        if roll(5) { members.append(JSONMember(key: "secret", value: .string("s"))) }
        if roll(8) { members.append(JSONMember(key: "objectId", value: .string("forged"))) }
        members.shuffle(using: &random)
        return JSONObject(members)
    }

    /// Mostly valid; now and then empty or not a string.
    private mutating func name() -> JSON {
        if roll(6) { return [.string(""), .number(JSONNumber(7))].randomElement(using: &random)! }
        return [.string("Ada"), .string("Bea"), .string("Zoë")].randomElement(using: &random)!
    }

    private mutating func tags() -> JSON {
        .array(
            (0..<Int.random(in: 0...3, using: &random)).map { _ in
                [.string("a"), .string("ops"), .string("qa"), .number(JSONNumber(1))].randomElement(using: &random)!
            })
    }
}
