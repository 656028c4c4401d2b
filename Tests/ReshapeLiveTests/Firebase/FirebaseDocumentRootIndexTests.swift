import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeLive

/// `rootMember(named:)` finds root members through the name hashes the document keeps in step
/// with its root, whatever the events did to it.
final class FirebaseDocumentRootIndexTests: XCTestCase {
    func testRootMembersAreFoundAfterEveryKindOfChange() throws {
        var random = SplitMix64(seed: 7)
        var document = FirebaseDocument()
        let keys = (0..<12).map { "k\($0)" }
        for number in 0..<2_000 {
            let key = keys.randomElement(using: &random)!
            let value: JSON = Bool.random(using: &random) ? .object(JSONObject(["n": .string(key)])) : .null
            let event: FirebaseEvent
            switch Int.random(in: 0..<6, using: &random) {
            case 0: event = .put(path: [key], data: value)
            case 1: event = .put(path: [key, "n"], data: Bool.random(using: &random) ? .string("x") : .null)
            case 2: event = .patch(path: [key], data: JSONObject(["m": .number(JSONNumber(number))]))
            case 3:
                let children = keys.shuffled(using: &random).prefix(Int.random(in: 1...10, using: &random))
                event = .patch(path: [], data: JSONObject(children.map { JSONMember(key: $0, value: value) }))
            case 4: event = .put(path: ["0"], data: value)
            default:
                event = .put(path: [], data: Int.random(in: 0..<4, using: &random) == 0 ? .array([value]) : .null)
            }
            _ = try document.apply(event)
            var object = JSONObject()
            if case .object(let root) = document.value { object = root }
            for name in keys + ["0"] {
                XCTAssertEqual(
                    document.rootMember(named: name)?.serializedString(), object[name]?.serializedString(),
                    "event \(number): \(event), member \(name)")
            }
        }
    }
}
