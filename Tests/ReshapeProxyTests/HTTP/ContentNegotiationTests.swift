import ReshapeCompression
import ReshapeProblem
import ReshapeRules
import XCTest

@testable import ReshapeProxy

/// The decisions behind every answer's representation: eligible or not, which coding, which
/// tag, which Vary; and the caching headers a route's answers carry.
final class ContentNegotiationTests: XCTestCase {
    private let compressor = Compressor()

    private func json(_ bytes: Int, type: String = "application/json") -> HTTPResponse {
        var text = "["
        while text.utf8.count < bytes - 1 { text += #"{"a":1},"# }
        text = String(text.dropLast()) + "]"
        return HTTPResponse(
            status: 200,
            headers: [NameValue(name: "Content-Type", value: type), NameValue(name: "ETag", value: "\"0123\"")],
            body: Array(text.utf8))
    }

    private func represent(_ response: HTTPResponse, _ acceptEncoding: String?, minimum: Int = 1024) -> HTTPResponse {
        ContentNegotiation.represent(response, acceptEncoding: acceptEncoding, minimumBytes: minimum) {
            self.compressor.compress(response.body, as: $0)
        }
    }

    func testOnlyJSONOfTheMinimumSizeIsNegotiable() {
        XCTAssertTrue(ContentNegotiation.isNegotiable(json(1024), minimumBytes: 1024))
        XCTAssertFalse(ContentNegotiation.isNegotiable(json(1000), minimumBytes: 1024))
        XCTAssertTrue(ContentNegotiation.isNegotiable(json(1000), minimumBytes: 0))
        XCTAssertTrue(ContentNegotiation.isNegotiable(json(2000, type: "application/problem+json"), minimumBytes: 1024))
        XCTAssertTrue(
            ContentNegotiation.isNegotiable(json(2000, type: "Application/JSON; charset=utf-8"), minimumBytes: 0))
        XCTAssertFalse(ContentNegotiation.isNegotiable(json(2000, type: "text/plain; version=0.0.4"), minimumBytes: 0))
        var notModified = json(2000)
        notModified.status = 304
        XCTAssertFalse(ContentNegotiation.isNegotiable(notModified, minimumBytes: 0))
    }

    func testEachCodingIsItsOwnRepresentationWithItsOwnTag() {
        let identity = json(4096)
        for coding in ContentCoding.serverPreference {
            let answer = represent(identity, coding.rawValue)
            XCTAssertEqual(answer.header("Content-Encoding"), coding.rawValue)
            XCTAssertEqual(answer.header("ETag"), "\"0123-\(coding.rawValue)\"")
            XCTAssertEqual(answer.header("Vary"), "Accept-Encoding")
            XCTAssertEqual(answer.body, compressor.compress(identity.body, as: coding))
            XCTAssertLessThan(answer.body.count, identity.body.count)
        }
    }

    func testIdentityClientsGetIdentityAndStillVary() {
        let identity = json(4096)
        for header in [nil, "identity", "gzip;q=0", "deflate", "*;q=0, identity"] as [String?] {
            let answer = represent(identity, header)
            XCTAssertNil(answer.header("Content-Encoding"), "\(header ?? "nil")")
            XCTAssertEqual(answer.header("ETag"), "\"0123\"")
            XCTAssertEqual(answer.body, identity.body)
            XCTAssertEqual(answer.header("Vary"), "Accept-Encoding", "the next client may get another coding")
        }
    }

    func testQValuesPickTheCoding() {
        let identity = json(4096)
        XCTAssertEqual(represent(identity, "gzip, deflate, br, zstd").header("Content-Encoding"), "zstd")
        XCTAssertEqual(represent(identity, "gzip;q=1, br;q=0.5").header("Content-Encoding"), "gzip")
        XCTAssertEqual(represent(identity, "br;q=0.9, zstd;q=0.8, gzip").header("Content-Encoding"), "gzip")
        XCTAssertEqual(represent(identity, "*").header("Content-Encoding"), "zstd")
        XCTAssertEqual(represent(identity, "zstd;q=0, *").header("Content-Encoding"), "br")
    }

    func testSmallAnswersAndOtherTypesAreLeftAlone() {
        let small = json(500)
        XCTAssertEqual(represent(small, "gzip").headers, small.headers, "no Vary: its coding never depends on it")
        let text = json(4096, type: "text/plain")
        XCTAssertEqual(represent(text, "gzip").body, text.body)
    }

    func testACodingThatDoesNotShrinkTheBodyFallsBackToIdentity() {
        let identity = json(4096)
        let answer = ContentNegotiation.represent(identity, acceptEncoding: "gzip", minimumBytes: 0) { _ in nil }
        XCTAssertNil(answer.header("Content-Encoding"))
        XCTAssertEqual(answer.header("ETag"), "\"0123\"")
        XCTAssertEqual(answer.header("Vary"), "Accept-Encoding")
    }

    func testVaryIsOneMergedHeader() {
        var response = json(4096)
        response.headers += CachingHeaders.route(forwarded: ["Authorization", "X-Tenant"], maxAge: nil)
        let answer = represent(response, "gzip")
        XCTAssertEqual(
            answer.headers.filter { $0.name == "Vary" }.map(\.value), ["Authorization, X-Tenant, Accept-Encoding"])
    }

    func testEntityTagSuffixGoesInsideTheQuotes() {
        XCTAssertEqual(ContentNegotiation.entityTag("\"abc\"", coding: .br), "\"abc-br\"")
        XCTAssertEqual(ContentNegotiation.entityTag("\"abc\"", coding: .identity), "\"abc\"")
        XCTAssertEqual(ContentNegotiation.entityTag("\"abc-gzip\"", coding: .identity), "\"abc-gzip\"")
    }

    func testRouteCachingHeaders() {
        XCTAssertEqual(
            CachingHeaders.route(forwarded: [], maxAge: nil), [NameValue(name: "Cache-Control", value: "no-cache")])
        XCTAssertEqual(
            CachingHeaders.route(forwarded: [], maxAge: 7), [NameValue(name: "Cache-Control", value: "max-age=7")])
        XCTAssertEqual(
            CachingHeaders.route(forwarded: ["Authorization"], maxAge: 7),
            [
                NameValue(name: "Cache-Control", value: "private, max-age=7"),
                NameValue(name: "Vary", value: "Authorization"),
            ])
        XCTAssertEqual(
            CachingHeaders.route(forwarded: ["Authorization", "Connection"], maxAge: nil),
            [
                NameValue(name: "Cache-Control", value: "private, no-cache"),
                NameValue(name: "Vary", value: "Authorization"),
            ], "a header never forwarded is no reason to vary")
    }

    func testProblemsAreNeverStored() {
        XCTAssertEqual(Problem.notFound(path: "/x").response.header("Cache-Control"), "no-store")
        XCTAssertEqual(Problem.headerTimeout.response.header("Cache-Control"), "no-store")
    }

    func testTheDateGoesRightAfterTheStatusLine() {
        let date = "Wed, 25 Nov 2026 19:00:00 GMT"
        let head = String(decoding: json(10).head(bodyBytes: 10, keepAlive: true, date: date), as: UTF8.self)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\nDate: \(date)\r\n"), head)
        var machine = HTTPConnectionStateMachine(limits: ServerLimits())
        machine.date = date
        _ = machine.handle(.messageBegan)
        _ = machine.handle(.headersComplete(RequestHead()))
        _ = machine.handle(.messageComplete(HTTPRequest(method: "GET", target: "/")))
        let written = machine.handle(.responseReady(id: 0, json(10))).compactMap { action -> String? in
            if case .write(let head, _, _) = action { return String(decoding: head, as: UTF8.self) }
            return nil
        }
        XCTAssertEqual(written.count, 1)
        XCTAssertTrue(written[0].contains("\r\nDate: \(date)\r\n"))
        let refused = machine.handle(.parseError(reason: "HPE_INVALID_METHOD")).compactMap { action -> String? in
            if case .write(let head, _, _) = action { return String(decoding: head, as: UTF8.self) }
            return nil
        }
        XCTAssertTrue(refused.first?.contains("\r\nDate: \(date)\r\n") ?? false, "refusals carry it too")
    }
}
