import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// The pure parts of conditional reads and writes: the composed tag, `If-Match`'s decision,
/// `Prefer`, and what a conditional exchange does to its fetch and its answer.
final class ConditionalTagTests: XCTestCase {
    private let firebase = "ViJFJowpbyRvgGNPzPJdGeN+mCY="
    private lazy var resource = ConditionalTag.resource(
        upstream: "firebase", url: "https://db.example/counters/a.json?auth=secret", fingerprint: "f1")

    func testTheComposedTagKeepsTheRepresentationsAndReadsBack() throws {
        let identity = EntityTag.of(Array("11".utf8))
        let tag = ConditionalTag.composed(identity, resource: resource, firebase: firebase)
        XCTAssertTrue(tag.hasPrefix(String(identity.dropLast()) + "."), tag)
        XCTAssertFalse(tag.contains(firebase), "Firebase's ETag is carried in hex")
        XCTAssertFalse(tag.contains("secret"))
        let parsed = try XCTUnwrap(ConditionalTag.parse(Substring(tag)))
        XCTAssertEqual(parsed.firebase, firebase)
        XCTAssertEqual(parsed.resource, resource)
        let gzip = ContentNegotiation.entityTag(tag, coding: .gzip)
        XCTAssertEqual(ConditionalTag.parse(Substring(gzip)), parsed, "each coding's tag names the same resource")
        XCTAssertEqual(ConditionalTag.composed(identity, resource: resource, firebase: "a\"b"), identity)
        XCTAssertEqual(ConditionalTag.composed("W/\"x\"", resource: resource, firebase: firebase), "W/\"x\"")
    }

    func testOnlyWellFormedStrongTagsOfOursParse() {
        let tag = ConditionalTag.composed(EntityTag.of([1]), resource: resource, firebase: firebase)
        for bad in [
            "W/" + tag, String(tag.dropFirst()), tag.uppercased(), "\"0123456789abcdef\"", "*", "",
            String(tag.dropLast()) + "-deflate\"", String(tag.dropLast()) + "0\"", "\"a.b.c\"",
        ] {
            XCTAssertNil(ConditionalTag.parse(Substring(bad)), bad)
        }
    }

    func testTheResourceIsTheLocationUnderTheRules() {
        let other = ConditionalTag.resource(
            upstream: "firebase", url: "https://db.example/counters/b.json", fingerprint: "f1")
        XCTAssertNotEqual(resource, other)
        XCTAssertEqual(
            resource,
            ConditionalTag.resource(upstream: "firebase", url: "https://db.example/counters/a.json", fingerprint: "f1"),
            "the query (credentials, print) is not part of the location")
        XCTAssertNotEqual(
            resource,
            ConditionalTag.resource(upstream: "firebase", url: "https://db.example/counters/a.json", fingerprint: "f2"))
        XCTAssertNotEqual(
            resource,
            ConditionalTag.resource(upstream: "other", url: "https://db.example/counters/a.json", fingerprint: "f1"))
        XCTAssertEqual(resource.count, 32)
    }

    func testIfMatchPicksTheFirstMemberOfOursForThisResource() {
        let ours = ConditionalTag.composed(EntityTag.of([1]), resource: resource, firebase: firebase)
        let second = ConditionalTag.composed(EntityTag.of([2]), resource: resource, firebase: "other=")
        let elsewhere = ConditionalTag.composed(
            EntityTag.of([1]), resource: String(repeating: "0", count: 32), firebase: "x")
        XCTAssertEqual(IfMatch.decide([], resource: resource), .absent)
        XCTAssertEqual(IfMatch.decide(["*"], resource: resource), .any)
        XCTAssertEqual(IfMatch.decide([" * "], resource: resource), .any)
        XCTAssertEqual(IfMatch.decide([ours], resource: resource), .firebase(firebase))
        XCTAssertEqual(
            IfMatch.decide(["\"a,b\", \(elsewhere),\(second), \(ours)"], resource: resource), .firebase("other="))
        XCTAssertEqual(
            IfMatch.decide(["\"x\"", ours], resource: resource), .firebase(firebase), "every field line counts")
        XCTAssertEqual(IfMatch.decide(["W/" + ours], resource: resource), .stale, "If-Match compares strongly")
        XCTAssertEqual(IfMatch.decide([elsewhere], resource: resource), .stale)
        XCTAssertEqual(IfMatch.decide(["*, " + ours], resource: resource), .firebase(firebase))
        XCTAssertEqual(IfMatch.decide(["*, \"x\""], resource: resource), .stale, "`*` only alone")
        XCTAssertEqual(IfMatch.decide(["garbage"], resource: resource), .stale)
        XCTAssertEqual(IfMatch.decide([""], resource: resource), .stale)
        XCTAssertEqual(IfMatch.decide(["\"unterminated"], resource: resource), .stale)
    }

    func testPreferReturnMinimal() {
        XCTAssertTrue(ConditionalExchange.prefersMinimal(["return=minimal"]))
        XCTAssertTrue(ConditionalExchange.prefersMinimal(["respond-async, RETURN = \"minimal\"; x=1"]))
        XCTAssertFalse(ConditionalExchange.prefersMinimal(["return=representation"]))
        XCTAssertFalse(ConditionalExchange.prefersMinimal([]))
    }

    private func fetch(_ method: String, url: String = "http://u/c/a.json") -> UpstreamRequest {
        UpstreamRequest(
            method: method, url: url, headers: [NameValue(name: "Content-Type", value: "application/json")],
            body: Array("1".utf8), timeoutMilliseconds: 1000, connectTimeoutMilliseconds: 1000, maxBodyBytes: 1000,
            upstreamName: "firebase")
    }

    func testTheFetchAsEachUseSendsIt() {
        var read = fetch("GET")
        ConditionalExchange.read(resource: resource).prepare(&read)
        XCTAssertTrue(read.headers.contains(NameValue(name: "X-Firebase-ETag", value: "true")))

        var write = fetch("PUT", url: "http://u/c/a.json?auth=s")
        ConditionalExchange.write(resource: resource, ifMatch: .firebase(firebase), minimal: true).prepare(&write)
        XCTAssertTrue(write.headers.contains(NameValue(name: "if-match", value: firebase)))
        XCTAssertEqual(write.url, "http://u/c/a.json?auth=s&print=silent")
        XCTAssertEqual(write.method, "PUT")

        var any = fetch("DELETE")
        ConditionalExchange.write(resource: resource, ifMatch: .any, minimal: false).prepare(&any)
        XCTAssertTrue(any.headers.contains(NameValue(name: "if-match", value: "*")))
        XCTAssertEqual(any.url, "http://u/c/a.json")

        var stale = fetch("PUT")
        ConditionalExchange.write(resource: resource, ifMatch: .stale, minimal: true).prepare(&stale)
        XCTAssertEqual(stale.method, "GET", "a stale tag writes nothing: the current value is read for the 412")
        XCTAssertNil(stale.body)
        XCTAssertFalse(stale.headers.contains { $0.name == "Content-Type" })
        XCTAssertFalse(stale.url.contains("print=silent"))
        XCTAssertFalse(stale.headers.contains { $0.name == "if-match" })
    }

    private let context = ResponseRenderer.Context(
        route: "put", upstream: "firebase", fetch: nil, redactor: Redactor(secrets: []))

    func testFirebasesMismatchAndAStaleTagAre412WithTheCurrentTag() throws {
        let write = ConditionalExchange.write(resource: resource, ifMatch: .firebase(firebase), minimal: false)
        var mismatch = UpstreamResponse(status: 412, contentType: "application/json", body: Array("7".utf8))
        mismatch.entityTag = "current="
        let problem = try XCTUnwrap(write.refusal(.response(mismatch), context: context))
        XCTAssertEqual(problem.status, 412)
        XCTAssertEqual(problem.code, "precondition-failed")
        let tag = try XCTUnwrap(problem.extraHeaders.first { $0.name == "ETag" }?.value)
        XCTAssertEqual(ConditionalTag.parse(Substring(tag))?.firebase, "current=")
        XCTAssertEqual(ConditionalTag.parse(Substring(tag))?.resource, resource)
        XCTAssertEqual(problem.extra.map(\.key), ["route", "upstream"], "the upstream's value is not shown")

        var applied = UpstreamResponse(status: 200, contentType: "application/json", body: Array("1".utf8))
        applied.entityTag = "new="
        XCTAssertNil(write.refusal(.response(applied), context: context))
        XCTAssertNil(write.refusal(.failure(.timeout, message: "slow"), context: context))

        let stale = ConditionalExchange.write(resource: resource, ifMatch: .stale, minimal: false)
        let refused = try XCTUnwrap(stale.refusal(.response(applied), context: context))
        XCTAssertEqual(refused.status, 412)
        let current = try XCTUnwrap(refused.extraHeaders.first { $0.name == "ETag" }?.value)
        XCTAssertEqual(ConditionalTag.parse(Substring(current))?.firebase, "new=")
        let unreachable = try XCTUnwrap(stale.refusal(.failure(.connect, message: "down"), context: context))
        XCTAssertTrue(unreachable.extraHeaders.isEmpty, "no current tag when none could be read")
        XCTAssertNil(ConditionalExchange.read(resource: resource).refusal(.response(mismatch), context: context))
    }

    func testAnswersCarryTheComposedTagAndPreferenceApplied() throws {
        let identity = EntityTag.of(Array("1".utf8))
        let read = ConditionalExchange.read(resource: resource).finished(
            HTTPResponse(status: 200, headers: [NameValue(name: "ETag", value: identity)], body: Array("1".utf8)),
            firebaseTag: firebase)
        XCTAssertEqual(ConditionalTag.parse(Substring(try XCTUnwrap(read.header("ETag"))))?.firebase, firebase)
        let plain = ConditionalExchange.read(resource: resource).finished(
            HTTPResponse(status: 200, headers: [NameValue(name: "ETag", value: identity)], body: []), firebaseTag: nil)
        XCTAssertEqual(plain.header("ETag"), identity, "no Firebase ETag: today's tag")

        let minimal = ConditionalExchange.write(resource: resource, ifMatch: .absent, minimal: true).finished(
            HTTPResponse(status: 204), firebaseTag: "n=")
        XCTAssertEqual(minimal.header("Preference-Applied"), "return=minimal")
        XCTAssertEqual(ConditionalTag.parse(Substring(try XCTUnwrap(minimal.header("ETag"))))?.firebase, "n=")
        let failed = ConditionalExchange.write(resource: resource, ifMatch: .absent, minimal: true).finished(
            HTTPResponse(status: 502), firebaseTag: "n=")
        XCTAssertNil(failed.header("ETag"))
        XCTAssertNil(failed.header("Preference-Applied"))
    }
}

/// `If-Match` and the tag parser on arbitrary text: never a trap, never a match of a tag that
/// is not this resource's.
final class ConditionalInputTests: XCTestCase {
    func testArbitraryIfMatchTextNeverTrapsNorMatchesAForeignTag() {
        let resource = ConditionalTag.resource(upstream: "u", url: "http://u/a.json", fingerprint: "f")
        let ours = ConditionalTag.composed(EntityTag.of([1]), resource: resource, firebase: "fb=")
        let alphabet = Array("\"W/,* \t.-0123456789abcdefgzip\u{00e9}\u{0}")
        var random = SplitMix64(seed: 28)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            switch IfMatch.decide([text], resource: resource) {
            case .firebase(let tag): XCTFail("matched \(text) as \(tag)")
            case .absent: XCTFail("a field was given")
            case .any, .stale: break
            }
            _ = ConditionalTag.parse(Substring(text))
            let spliced = String(text.prefix(length / 2)) + ours + String(text.dropFirst(length / 2))
            _ = IfMatch.decide([spliced], resource: resource)
        }
    }
}
