import ReshapeProxy
import ReshapeRules
import XCTest

/// What an actual answer gets for a browser, without a network.
final class CORSAnswerTests: XCTestCase {
    let listed = CORSPolicy(
        origins: .listed([CORSOrigin(scheme: "https", host: .exact("app.example.com"))]), credentials: true,
        exposeHeaders: ["X-Extra", "etag"])

    func testNoPolicyAddsNothing() {
        let response = HTTPResponse.json(200, [], extraHeaders: [NameValue(name: "ETag", value: "\"1\"")])
        XCTAssertEqual(
            CORSAnswer.decide(nil, origin: "https://app.example.com").apply(to: response).headers, response.headers)
    }

    func testAnAllowedOriginIsEchoedWithWhatTheAnswerCarries() {
        let answer = CORSAnswer.decide(listed, origin: "https://app.example.com")
        let response = HTTPResponse.json(
            200, [],
            extraHeaders: [
                NameValue(name: "ETag", value: "\"1\""), NameValue(name: "Cache-Control", value: "no-cache"),
                NameValue(name: "Vary", value: "Accept-Encoding"), NameValue(name: "Reshape-Dropped", value: "2"),
            ])
        let headers = answer.apply(to: response).headers
        XCTAssertEqual(headers.first { $0.name == "Vary" }?.value, "Accept-Encoding, Origin")
        XCTAssertEqual(headers.first { $0.name == "Access-Control-Allow-Origin" }?.value, "https://app.example.com")
        XCTAssertEqual(headers.first { $0.name == "Access-Control-Allow-Credentials" }?.value, "true")
        XCTAssertEqual(
            headers.first { $0.name == "Access-Control-Expose-Headers" }?.value, "ETag, Reshape-Dropped, X-Extra",
            "not the safelisted Content-Type and Cache-Control, nor Vary; etag once")
    }

    func testAnotherOriginOrNoneOnlyVaries() {
        for origin in ["https://evil.test", nil] {
            let headers = CORSAnswer.decide(listed, origin: origin).apply(to: HTTPResponse(status: 404)).headers
            XCTAssertEqual(headers.map(\.name), ["Vary"])
        }
        let varied = HTTPResponse(status: 200, headers: [NameValue(name: "Vary", value: "origin")])
        XCTAssertEqual(CORSAnswer.varies.apply(to: varied).headers, varied.headers, "named already")
        let star = HTTPResponse(status: 200, headers: [NameValue(name: "Vary", value: "*")])
        XCTAssertEqual(CORSAnswer.varies.apply(to: star).headers, star.headers)
    }

    func testEveryOriginGetsAStarAndNoVary() {
        let answer = CORSAnswer.decide(CORSPolicy(origins: .any), origin: nil)
        XCTAssertEqual(
            answer.apply(to: HTTPResponse(status: 200)).headers,
            [NameValue(name: "Access-Control-Allow-Origin", value: "*")])
    }
}
