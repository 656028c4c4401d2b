import ReshapeJSON
import XCTest

@testable import ReshapeRules

/// `ClientView` without a server: parsing, limits, and keyset pages over ties.
final class ClientViewEngineTests: XCTestCase {
    private var rule: ClientQueryRule {
        var rule = ClientQueryRule(array: JSONPointer(tokens: []))
        rule.fields = true
        rule.filter = ["name", "age", "tag"]
        rule.sort = ["age", "name"]
        rule.kinds = ["name": .string, "age": .integer, "tag": [.string, .null]]
        return rule
    }

    private func parse(_ query: String, _ rule: ClientQueryRule? = nil) throws(ClientQueryError) -> ClientView? {
        try ClientView.parse(Substring(query), rule: rule ?? self.rule)
    }

    private func refusal(_ query: String) -> ClientQueryError? {
        do {
            _ = try parse(query)
            return nil
        } catch {
            return error
        }
    }

    func testAQueryWithoutViewParametersAsksForNone() throws {
        XCTAssertNil(try parse("print=pretty&other[x]=1".replacingOccurrences(of: "other[x]=1", with: "x=1")))
        XCTAssertFalse(ClientView.asks("print=pretty", rule))
        var paged = rule
        paged.page = .init(size: 3, max: 9)
        XCTAssertEqual(try parse("", paged)?.limit, 3, "the rule's page size is the default limit")
    }

    func testParsingTypesValuesAndNamesOperators() throws {
        let view = try XCTUnwrap(try parse("age[gte]=18&name[in]=Ada,Alan&tag=null&sort=-age,name&limit=5"))
        XCTAssertEqual(view.filters.map(\.op), [.gte, .in, .equal])
        XCTAssertEqual(view.filters[0].values, [.number(JSONNumber(18))])
        XCTAssertEqual(view.filters[1].values, [.string("Ada"), .string("Alan")])
        XCTAssertEqual(view.filters[2].values, [.null])
        XCTAssertEqual(view.sort.map(\.descending), [true, false])
        XCTAssertEqual(view.limit, 5)
    }

    func testRefusalsNameTheParameterAndWhatIsAllowed() {
        XCTAssertEqual(refusal("age=x")?.name, "age")
        XCTAssertEqual(refusal("age[almost]=1")?.allowed, ["gte", "gt", "lte", "lt", "in", "ne", "prefix", "exists"])
        XCTAssertEqual(refusal("age[]=1")?.name, "age[]", "a filter field's bracket is a filter")
        XCTAssertEqual(refusal("age=%FF")?.name, "age", "a view's value that does not decode")
        XCTAssertEqual(refusal("age=1&age=2")?.detail, "is given more than once")
        XCTAssertEqual(refusal("sort=tag")?.allowed, ["age", "-age", "name", "-name"])
        XCTAssertEqual(refusal("limit=10001")?.name, "limit")
        XCTAssertEqual(refusal("cursor=")?.code, .badCursor)
        let many = (0..<65).map { "f\($0)" }.joined(separator: ",")
        XCTAssertEqual(refusal("fields=" + many)?.name, "fields", "at most 64 fields")
        var wide = rule
        wide.filter = (0..<20).map { "f\($0)" }
        let filters = (0..<17).map { "f\($0)=1" }.joined(separator: "&")
        XCTAssertThrowsError(try parse(filters, wide), "at most 16 filters")
    }

    func testBracketsOnNamesThatAreNoFilterFieldAreIgnored() throws {
        // Issue 26: parameters the route does not name are ignored; a `[` alone does not make
        // a filter (tracking tags, a route's own `ids[]`, a name that does not decode).
        XCTAssertNil(try parse("utm[source]=x&ids[]=1&email=a&%ZZ=1&x=%FF"))
        // An operator in brackets is a filter, and on a field not listed a 400.
        XCTAssertThrowsError(try parse("email[gt]=a"))
        XCTAssertFalse(ClientView.asks("utm[source]=x&ids[]=1", rule))
        let view = try XCTUnwrap(try parse("utm[source]=x&ids[]=1&age[gte]=3&%ZZ[=1"))
        XCTAssertEqual(view.filters.map(\.name), ["age"])
    }

    func testACursorIsCheckedWithoutTheAnswer() throws {
        var rule = self.rule
        rule.page = .init(size: 1, max: 10)
        let records = JSON.array([.object(JSONObject()), .object(JSONObject())])
        var view = try XCTUnwrap(try parse("sort=age", rule))
        view.cursor = try XCTUnwrap(try view.apply(to: records, rule: rule, fingerprint: "f").nextCursor)
        XCTAssertNoThrow(try view.checkCursor(fingerprint: "f"))
        XCTAssertThrowsError(try view.checkCursor(fingerprint: "g"), "rules changed")
        view.cursor = "x" + view.cursor!
        XCTAssertThrowsError(try view.checkCursor(fingerprint: "f"), "tampered")
        XCTAssertNoThrow(try XCTUnwrap(try parse("sort=age", rule)).checkCursor(fingerprint: "f"), "no cursor")
    }

    func testPagesOverTiesWithoutAKeyGiveEveryRecordOnce() throws {
        var rule = self.rule
        rule.page = .init(size: 2, max: 10)
        let records = (0..<7).map { i in
            JSON.object(
                JSONObject([
                    JSONMember(key: "i", value: .number(JSONNumber(i))),
                    JSONMember(key: "age", value: .number(JSONNumber(i % 2))),
                ]))
        }
        var view = try XCTUnwrap(try parse("sort=age", rule))
        var seen: [JSON] = []
        for _ in 0..<10 {
            let outcome = try view.apply(to: .array(records), rule: rule, fingerprint: "f")
            guard case .array(let page) = outcome.body else { return XCTFail("no array") }
            seen += page
            guard let next = outcome.nextCursor else { break }
            view.cursor = next
        }
        let order = seen.compactMap { record -> Int? in
            guard case .object(let object) = record, case .number(let n)? = object["i"] else { return nil }
            return Int(n.text)
        }
        XCTAssertEqual(order, [0, 2, 4, 6, 1, 3, 5], "stable: ties keep the answer's order")
    }

    func testTheTapePathMakesTheSameViewAsTheTree() throws {
        var rule = self.rule
        rule.array = JSONPointer(tokens: ["objects"])
        rule.keyMember = "id"
        rule.page = .init(size: 2, max: 10)
        let text =
            #"{"before":1,"objects":[{"id":"c","name":"Cy","age":30,"tag":null,"x":{"y":1}},"#
            + #"{"id":"a","name":"Ada","age":36},{"id":"b","age":"n","tag":"t"},3,{"id":"d","name":"Ann","age":36}],"#
            + #""after":[true]}"#
        let answer = try JSON.parse(Array(text.utf8))
        let tape = try JSONTape.parse(Array(text.utf8))
        for query in [
            "", "fields=name", "sort=-age,name", "age[gte]=31&sort=name", "name[prefix]=A&fields=age",
            "tag[exists]=false", "limit=1&sort=age", "name[in]=Ada,Cy&tag=null",
        ] {
            var view = try XCTUnwrap(try parse(query, rule), query)
            for _ in 0..<4 {
                let tree = try view.apply(to: answer, rule: rule, fingerprint: "f")
                let fast = try view.apply(toTape: tape, rule: rule, fingerprint: "f")
                XCTAssertEqual(String(decoding: fast.body, as: UTF8.self), tree.body.serializedString(), query)
                XCTAssertEqual(fast.total, tree.total, query)
                XCTAssertEqual(fast.nextCursor, tree.nextCursor, query)
                guard let next = tree.nextCursor else { break }
                view.cursor = next
            }
        }
    }

    func testACursorIsBoundToTheRouteFiltersAndSort() throws {
        var rule = self.rule
        rule.page = .init(size: 1, max: 10)
        let records = JSON.array([.object(JSONObject()), .object(JSONObject())])
        let view = try XCTUnwrap(try parse("sort=age", rule))
        let cursor = try XCTUnwrap(try view.apply(to: records, rule: rule, fingerprint: "f").nextCursor)
        var reused = view
        reused.cursor = cursor
        XCTAssertNoThrow(try reused.apply(to: records, rule: rule, fingerprint: "f"))
        XCTAssertThrowsError(try reused.apply(to: records, rule: rule, fingerprint: "g"), "rules changed")
        var other = try XCTUnwrap(try parse("sort=-age", rule))
        other.cursor = cursor
        XCTAssertThrowsError(try other.apply(to: records, rule: rule, fingerprint: "f"), "other sort")
    }
}
