import ReshapeContract
import ReshapeJSON
import ReshapeRules
import XCTest

/// Rules drafted from the demo upstream's answers against the hand-written example rules for
/// the same endpoints, both run offline on those answers.
final class DemoComparisonTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    private func sample(_ name: String) throws -> JSON {
        guard case .success(let bytes) = LocalFiles.read(Self.root + "/Tests/Fixtures/demo/\(name).json") else {
            throw XCTSkip("no fixture \(name)")
        }
        return try JSON.parse(bytes)
    }

    private func drafted(_ name: String, _ configure: (inout RuleDraft.Options) -> Void) throws -> Route {
        var options = RuleDraft.Options()
        options.sampleName = "\(name).json"
        configure(&options)
        let text = try RuleDraft(samples: [try sample(name)], options: options).yaml()
        guard case .success(let rules) = RuleLoader.load(files: [(name: "\(name).yaml", text: text)], environment: [:])
        else {
            XCTFail("the draft does not load:\n\(text)")
            throw XCTSkip()
        }
        XCTAssertTrue(ExampleRunner.run(rules).allSatisfy { $0.failure == nil }, text)
        return rules.routes[0]
    }

    private func handWritten(_ name: String) throws -> Route {
        guard case .success(let rules) = RuleLoader.load(path: Self.root + "/examples/rules", environment: [:]),
            let route = rules.routes.first(where: { $0.name == name })
        else { throw XCTSkip("no example route \(name)") }
        return route
    }

    /// The route's array for `body` (inside its one-member envelope).
    private func array(_ route: Route, _ body: JSON) throws -> [JSON] {
        let output = try OfflineRun.respond(route, fetched: .single(OfflineRun.tape(body)), parameters: [:])
        guard case .object(let envelope) = output.value, envelope.count == 1,
            case .array(let elements) = envelope.members[0].value
        else {
            XCTFail("not an enveloped array: \(output.value)")
            return []
        }
        return elements
    }

    func testDevicesMatchTheHandWrittenRule() throws {
        let route = try drafted("devices") {
            $0.typeName = "Device"
            $0.key = "userId"
        }
        XCTAssertEqual(
            try array(route, try sample("devices")), try array(try handWritten("devices"), try sample("devices")))
    }

    func testScoresMatchTheHandWrittenRule() throws {
        let route = try drafted("scores") { $0.key = "rank" }
        XCTAssertEqual(
            try array(route, try sample("scores")), try array(try handWritten("scores"), try sample("scores")))
    }

    /// The hand-written rule drops a widget without a name and coerces the price sent as a
    /// string; the draft's outlier heuristics find both (4 records, one odd in each way), so the
    /// arrays are the same. (The hand-written coerce uses `invalid: drop`, the draft `keep`
    /// and lets validate drop what does not convert: the same on this sample, where "7.25"
    /// converts.)
    func testWidgetsMatchTheHandWrittenRule() throws {
        let widgets = try sample("widgets")
        let route = try drafted("widgets") { _ in }
        let drafted = try array(route, widgets)
        XCTAssertEqual(drafted, try array(try handWritten("widgets"), widgets))
        XCTAssertEqual(drafted.count, 3)
    }

    /// The hand-written rule drops the user with `name: ""`, the one with `age: -3` and the one
    /// without a name, and coerces `age: "42"`: the draft's heuristics (7 records, one odd in
    /// each way) give `minLength: 1`, `minimum: 0`, `required` and a coerce step, and the same array.
    func testUsersMatchTheHandWrittenRule() throws {
        let users = try sample("users")
        let route = try drafted("users") { $0.typeName = "User" }
        let drafted = try array(route, users)
        XCTAssertEqual(drafted, try array(try handWritten("users"), users))
        XCTAssertEqual(
            drafted.compactMap { $0.member("objectId") },
            ["-NqK3a9Xb2mLp0Rt7Yv1", "-NqK3a9Xb2mLp0Rt7Yv2", "-NqK3cB2d5EfG6hI7jK8", "-NqK3fE5g8HiJ9kL0mN1"].map(
                JSON.string))
        XCTAssertEqual(
            drafted.first { $0.member("objectId") == .string("-NqK3cB2d5EfG6hI7jK8") }?.member("age"),
            .number(JSONNumber(42)))
    }

    /// With the heuristics off the draft infers only what every record has: it keeps all
    /// seven users as they are, and the four the hand-written rule accepts are among them.
    func testUsersWithoutOutliersKeepEveryRecord() throws {
        let users = try sample("users")
        let route = try drafted("users") {
            $0.typeName = "User"
            $0.outliers = false
        }
        let draftedIds = try array(route, users).compactMap { $0.member("objectId") }
        let handIds = try array(try handWritten("users"), users).compactMap { $0.member("objectId") }
        XCTAssertEqual(draftedIds.count, 7)
        XCTAssertEqual(handIds, draftedIds.filter { handIds.contains($0) })
    }

    /// Devices (one `os: null` among five) and scores (three records) have no outliers: the
    /// heuristics leave those drafts as they were.
    func testNoOutliersInDevicesAndScores() throws {
        let configurations: [(String, (inout RuleDraft.Options) -> Void)] = [
            (
                "devices",
                {
                    $0.typeName = "Device"
                    $0.key = "userId"
                }
            ),
            ("scores", { $0.key = "rank" }),
        ]
        for (name, configure) in configurations {
            var on = RuleDraft.Options()
            on.sampleName = "\(name).json"
            configure(&on)
            var off = on
            off.outliers = false
            XCTAssertEqual(
                try RuleDraft(samples: [try sample(name)], options: on).yaml(),
                try RuleDraft(samples: [try sample(name)], options: off).yaml(), name)
        }
    }
}

extension JSON {
    fileprivate func member(_ name: String) -> JSON? {
        if case .object(let object) = self { return object[name] }
        return nil
    }

}
