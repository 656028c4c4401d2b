import ReshapeJSON
import ReshapeRules
import ReshapeContract
import XCTest

/// Rules drafted from the demo upstream's answers against the hand-written example rules for
/// the same endpoints, both run offline on those answers.
final class DemoComparisonTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    private func sample(_ name: String) throws -> JSON {
        guard case .success(let bytes) = LocalFiles.read(Self.root + "/Tests/Fixtures/demo/\(name).json") else { throw XCTSkip("no fixture \(name)") }
        return try JSON.parse(bytes)
    }

    private func drafted(_ name: String, _ configure: (inout RuleDraft.Options) -> Void) throws -> Route {
        var options = RuleDraft.Options()
        options.sampleName = "\(name).json"
        configure(&options)
        let text = try RuleDraft(samples: [try sample(name)], options: options).yaml()
        guard case .success(let rules) = RuleLoader.load(files: [(name: "\(name).yaml", text: text)], environment: [:]) else {
            XCTFail("the draft does not load:\n\(text)")
            throw XCTSkip()
        }
        XCTAssertTrue(ExampleRunner.run(rules).allSatisfy { $0.failure == nil }, text)
        return rules.routes[0]
    }

    private func handWritten(_ name: String) throws -> Route {
        guard case .success(let rules) = RuleLoader.load(path: Self.root + "/examples/rules", environment: [:]),
              let route = rules.routes.first(where: { $0.name == name }) else { throw XCTSkip("no example route \(name)") }
        return route
    }

    /// The route's array for `body` (inside its one-member envelope).
    private func array(_ route: Route, _ body: JSON) throws -> [JSON] {
        let output = try OfflineRun.respond(route, fetched: .single(OfflineRun.tape(body)), parameters: [:])
        guard case .object(let envelope) = output.value, envelope.count == 1, case .array(let elements) = envelope.members[0].value else {
            XCTFail("not an enveloped array: \(output.value)")
            return []
        }
        return elements
    }

    func testDevicesMatchTheHandWrittenRule() throws {
        let route = try drafted("devices") { $0.typeName = "Device"; $0.key = "userId" }
        XCTAssertEqual(try array(route, try sample("devices")), try array(try handWritten("devices"), try sample("devices")))
    }

    func testScoresMatchTheHandWrittenRule() throws {
        let route = try drafted("scores") { $0.key = "rank" }
        XCTAssertEqual(try array(route, try sample("scores")), try array(try handWritten("scores"), try sample("scores")))
    }

    func testWidgetsMatchOnTheirWellFormedRecords() throws {
        let widgets = try sample("widgets")
        let route = try drafted("widgets") { _ in }
        // The hand-written rule coerces the string price and drops the widget without a name;
        // the draft keeps both (a sample shows them as they are). The rest is the same.
        guard case .object(var clean) = widgets else { return XCTFail() }
        clean.members.removeAll { $0.value.objectValueHasNonNumber("price") || $0.value.missing("name") }
        XCTAssertEqual(try array(route, .object(clean)), try array(try handWritten("widgets"), .object(clean)))
    }

    func testUsersMatchExceptWhatOnlyTheHandWrittenRuleKnows() throws {
        let users = try sample("users")
        let route = try drafted("users") { $0.typeName = "User" }
        let hand = try handWritten("users")
        // On the records every rule accepts as they are, the same array.
        guard case .object(let all) = users else { return XCTFail() }
        let wellFormed = JSON.object(JSONObject(all.members.filter { ["-NqK3a9Xb2mLp0Rt7Yv1", "-NqK3a9Xb2mLp0Rt7Yv2", "-NqK3fE5g8HiJ9kL0mN1"].contains($0.key) }))
        XCTAssertEqual(try array(route, wellFormed), try array(hand, wellFormed))
        // On the whole answer, the draft also keeps what the hand-written rule's business rules
        // (minLength, minimum, coerce) reject or fix: a sample cannot show those rules.
        let draftedIds = try array(route, users).compactMap { $0.member("objectId") }
        let handIds = try array(hand, users).compactMap { $0.member("objectId") }
        XCTAssertEqual(draftedIds.count, 7)
        XCTAssertEqual(handIds, draftedIds.filter { handIds.contains($0) })
    }
}

private extension JSON {
    func member(_ name: String) -> JSON? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

    func missing(_ name: String) -> Bool { member(name) == nil }

    func objectValueHasNonNumber(_ name: String) -> Bool {
        if case .number? = member(name) { return false }
        return true
    }
}
