import ReshapeJSON
import ReshapeTestSupport
import XCTest

@testable import ReshapeRules

/// The server makes a view on the answer's tape (`apply(toTape:)`: members compared on its
/// nodes, the page copied from its text); `apply(to:)` makes it on built values. On random
/// records of every kind, and random views of them, both must send the same bytes, count and
/// cursor, page after page.
final class TapeViewTests: XCTestCase {
    private let rule: ClientQueryRule = {
        var rule = ClientQueryRule(array: JSONPointer(tokens: ["objects"]))
        rule.fields = true
        rule.filter = ["name", "age", "tag", "address.city"]
        rule.sort = ["name", "age", "tag", "address.city"]
        rule.keyMember = "id"
        return rule
    }()

    /// Values that order alone by their key and ones that do not: long strings that share
    /// their first 16 bytes, escapes, non-ASCII, decimals, integers past 64 bits.
    private static let values = [
        "null", "true", "false", "0", "-3", "7", "36", "1.5", "-0.25", "1e2", "12345678901234567890",
        "-9223372036854775808", "\"\"", "\"a\"", "\"Ada\"", "\"ab\"", "\"abcdefghijklmnop\"",
        "\"abcdefghijklmnopX\"", "\"abcdefghijklmnopY\"", "\"Zoë\"", "\"Zo\\u00eb\"", "\"q\\\"uote\"",
        "\"a\\u0000b\"", "{}", "{\"city\":\"Leeds\"}", "[1]", "[]",
    ]
    private static let queryValues = [
        "1", "-3", "36", "1.5", "1e2", "12345678901234567890", "a", "Ada", "abcdefghijklmnop",
        "abcdefghijklmnopX", "Zo%C3%AB", "true", "false", "null", "Leeds", "",
    ]

    func testTheTapeViewIsTheTreeViewOnRandomRecords() throws {
        var random = SplitMix64(seed: 26)
        // What the random cases reached, so that a change to them cannot leave the two paths
        // compared only on empty pages.
        var (views, filtered, records, laterPages) = (0, 0, 0, 0)
        for round in 0..<300 {
            let text = Self.answer(&random)
            let tape = try JSONTape.parse(Array(text.utf8))
            let tree = try JSON.parse(Array(text.utf8))
            for _ in 0..<8 {
                let query = Self.query(&random)
                guard var view = try? ClientView.parse(Substring(query), rule: rule) else { continue }
                views += 1
                for page in 0..<40 {
                    let built = try view.apply(to: tree, rule: rule, fingerprint: "f")
                    let fast = try view.apply(toTape: tape, rule: rule, fingerprint: "f")
                    let context = "round \(round), \(query), page \(page), answer \(text)"
                    XCTAssertEqual(String(decoding: fast.body, as: UTF8.self), built.body.serializedString(), context)
                    XCTAssertEqual(fast.total, built.total, context)
                    XCTAssertEqual(fast.nextCursor, built.nextCursor, context)
                    if case .object(let body) = built.body, case .array(let page)? = body["objects"] {
                        records += page.count
                        if !view.filters.isEmpty, !page.isEmpty { filtered += 1 }
                    }
                    guard fast.body == built.body.serialized(), let next = built.nextCursor else { break }
                    view.cursor = next
                    laterPages += 1
                }
            }
        }
        XCTAssertGreaterThan(views, 1000)
        XCTAssertGreaterThan(filtered, 500)
        XCTAssertGreaterThan(records, 5000)
        XCTAssertGreaterThan(laterPages, 1500)
    }

    /// Member names are their bytes on both paths: an NFC `café` selects only itself, not the
    /// NFD spelling beside it (Swift's `==` on strings would take both).
    func testNamesAreTheirBytesOnBothPaths() throws {
        let text = #"{"objects":[{"id":"-K1","caf\u00e9":1,"cafe\u0301":2,"name":"A"}]}"#
        let view = try XCTUnwrap(ClientView.parse("fields=caf%C3%A9", rule: rule))
        let built = try view.apply(to: try JSON.parse(Array(text.utf8)), rule: rule, fingerprint: "f")
        let fast = try view.apply(toTape: try JSONTape.parse(Array(text.utf8)), rule: rule, fingerprint: "f")
        XCTAssertEqual(built.body.serializedString(), #"{"objects":[{"id":"-K1","café":1}]}"#)
        XCTAssertEqual(String(decoding: fast.body, as: UTF8.self), built.body.serializedString())
    }

    /// `{"before":..,"objects":[records],"after":..}`, sometimes with whitespace (text that is
    /// not canonical, so it is written again rather than copied).
    private static func answer(_ random: inout SplitMix64) -> String {
        var records: [String] = []
        for index in 0..<random.below(24) {
            var members: [String] = []
            if random.below(10) > 0 { members.append("\"id\":\"-K\(random.below(5))\(index)\"") }
            for name in ["name", "age", "tag", "email"] where random.below(4) > 0 {
                members.append("\"\(name)\":\(values[random.below(values.count)])")
            }
            if random.below(3) > 0 {
                let city = random.below(3) == 0 ? values[random.below(values.count)] : "\"Leeds\""
                members.append(
                    random.below(5) == 0 ? "\"address\":7" : "\"address\":{\"zip\":\"LS1\",\"city\":\(city)}")
            }
            // Member order varies, as upstreams send it.
            if random.below(2) == 0 { members.reverse() }
            records.append(
                random.below(15) == 0 ? values[random.below(values.count)] : "{" + members.joined(separator: ",") + "}")
        }
        let compact = "{\"before\":{\"n\":1},\"objects\":[" + records.joined(separator: ",") + "],\"after\":[true]}"
        return random.below(4) == 0 ? compact.replacingOccurrences(of: ",", with: ", ") : compact
    }

    private static func query(_ random: inout SplitMix64) -> String {
        var parts: [String] = []
        let fields = ["name", "age", "tag", "address", "address.city", "address.zip", "email"]
        let operators = ["", "[gte]", "[gt]", "[lte]", "[lt]", "[ne]", "[in]", "[prefix]", "[exists]"]
        var used: Set<String> = []
        for _ in 0..<random.below(3) {
            let field = ["name", "age", "tag", "address.city"][random.below(4)]
            let op = operators[random.below(operators.count)]
            guard used.insert(field + op).inserted else { continue }
            let value: String
            switch op {
            case "[exists]": value = random.below(2) == 0 ? "true" : "false"
            case "[in]":
                value = (0...random.below(3)).map { _ in queryValues[random.below(queryValues.count)] }.joined(
                    separator: ",")
            default: value = queryValues[random.below(queryValues.count)]
            }
            parts.append("\(field)\(op)=\(value)")
        }
        if random.below(3) > 0 {
            let keys = ["name", "age", "tag", "address.city"].filter { _ in random.below(3) == 0 }
            if !keys.isEmpty {
                parts.append("sort=" + keys.map { (random.below(2) == 0 ? "-" : "") + $0 }.joined(separator: ","))
            }
        }
        if random.below(2) == 0 {
            let chosen = fields.filter { _ in random.below(3) == 0 }
            if !chosen.isEmpty { parts.append("fields=" + chosen.joined(separator: ",")) }
        }
        if random.below(3) > 0 { parts.append("limit=\(1 + random.below(5))") }
        return parts.joined(separator: "&")
    }
}
