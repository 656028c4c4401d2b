import XCTest

@testable import ReshapeRules

/// A request's Firebase query parameters, checked as Firebase checks them.
final class FirebaseQueryTests: XCTestCase {
    private func parse(_ query: String) throws(FirebaseQuery.Failure) -> FirebaseQuery {
        try FirebaseQuery.parse(Substring(query))
    }

    private func refusal(_ query: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            let parsed = try parse(query)
            XCTFail("accepted \(query): \(parsed)", file: file, line: line)
            return nil
        } catch {
            guard case .parameter(let name, _) = error else { return "encoding" }
            return name
        }
    }

    func testValidQueriesKeepTheirParametersInAFixedOrder() throws {
        let query = try parse(#"limitToFirst=2&x=1&orderBy=%22age%22&startAt=18"#)
        XCTAssertEqual(
            query.parameters,
            [
                .init(name: "orderBy", value: #""age""#), .init(name: "startAt", value: "18"),
                .init(name: "limitToFirst", value: "2"),
            ])
        XCTAssertEqual(query.orderBy, .child(["age"]))
        XCTAssertEqual(try parse(#"orderBy="$key"&startAt="a"&endAt="b""#).orderBy, .key)
        XCTAssertEqual(try parse(#"orderBy="$value"&equalTo=null"#).orderBy, .value)
        XCTAssertEqual(try parse(#"orderBy="$priority"&limitToLast=1"#).orderBy, .priority)
        XCTAssertEqual(try parse(#"orderBy="/a//b/""#).orderBy, .child(["a", "b"]))
        XCTAssertEqual(try parse(#"orderBy="n"&equalTo=true"#).parameters.count, 2)
        XCTAssertEqual(try parse("shallow=true").parameters, [.init(name: "shallow", value: "true")])
        XCTAssertEqual(try parse("print=pretty&other"), FirebaseQuery())
        XCTAssertEqual(try parse("").order, .key)
    }

    func testRefusalsNameTheParameter() {
        XCTAssertEqual(refusal("orderBy=age"), "orderBy")  // not a JSON string
        XCTAssertEqual(refusal(#"orderBy="a"&startAfter=1"#), "startAfter")  // not dropped: refused
        XCTAssertEqual(refusal(#"orderBy="a"&endBefore=1"#), "endBefore")
        XCTAssertEqual(refusal(#"orderBy="""#), "orderBy")
        XCTAssertEqual(refusal(#"orderBy="$other""#), "orderBy")
        XCTAssertEqual(refusal(#"orderBy="a.b""#), "orderBy")
        XCTAssertEqual(refusal(#"orderBy=1"#), "orderBy")
        XCTAssertEqual(refusal(#"orderBy="a"&orderBy="b""#), "orderBy")
        XCTAssertEqual(refusal(#"orderBy="a"&startAt=abc"#), "startAt")
        XCTAssertEqual(refusal(#"orderBy="a"&endAt={}"#), "endAt")
        XCTAssertEqual(refusal(#"orderBy="$key"&equalTo=1"#), "equalTo")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToFirst=0"#), "limitToFirst")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToFirst=1.5"#), "limitToFirst")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToLast=-1"#), "limitToLast")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToLast=01"#), "limitToLast")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToLast=99999999999"#), "limitToLast")
        XCTAssertEqual(refusal(#"orderBy="a"&limitToFirst=1&limitToLast=1"#), "limitToLast")
        XCTAssertEqual(refusal(#"orderBy="a"&equalTo=1&startAt=0"#), "equalTo")
        XCTAssertEqual(refusal("limitToFirst=2"), "orderBy")
        XCTAssertEqual(refusal("startAt=2"), "orderBy")
        XCTAssertEqual(refusal(#"shallow=true&orderBy="a""#), "shallow")
        XCTAssertEqual(refusal("shallow=1"), "shallow")
        XCTAssertEqual(refusal("orderBy=%zz"), "encoding")
    }
}
