import Foundation
import XCTest

/// `reshape openapi`: the contract of issue 12's first verb.
final class OpenAPICLITests: XCTestCase {
    func testPrintsTheExampleRulesAsOpenAPI31() throws {
        let run = try CLIRunner.reshape([
            "openapi", "--rules", "examples/rules", "--server", "https://api.example.com",
            "--title", "Demo", "--version", "2.0",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["openapi"] as? String, "3.1.0")
        let info = try XCTUnwrap(document["info"] as? [String: Any])
        XCTAssertEqual(info["title"] as? String, "Demo")
        XCTAssertEqual(info["version"] as? String, "2.0")
        XCTAssertEqual((document["servers"] as? [[String: Any]])?.first?["url"] as? String, "https://api.example.com")
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: Any]])
        XCTAssertEqual(
            Set(paths.keys),
            [
                "/users", "/users/{id}", "/my/users", "/people", "/devices", "/scores", "/widgets", "/profile/{id}",
                "/posts", "/counters/{id}", "/me",
            ])
        let setCounter = try XCTUnwrap(paths["/counters/{id}"]?["put"] as? [String: Any])
        let conditional = try XCTUnwrap(setCounter["parameters"] as? [[String: Any]]).compactMap {
            $0["name"] as? String
        }
        XCTAssertEqual(conditional, ["id", "If-Match", "Prefer"])
        XCTAssertNotNil((setCounter["responses"] as? [String: Any])?["412"])
        XCTAssertEqual(Set(paths["/users"]!.keys), ["get", "post"])
        let post = try XCTUnwrap(paths["/users"]!["post"] as? [String: Any])
        let body = try XCTUnwrap(
            ((post["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"]
                as? [String: Any])
        XCTAssertEqual((body["schema"] as? [String: Any])?["$ref"] as? String, "#/components/schemas/NewUser")
        let responses = try XCTUnwrap(post["responses"] as? [String: Any])
        XCTAssertNotNil(responses["2XX"])
        for status in ["401", "403", "409", "415", "422", "429", "502"] { XCTAssertNotNil(responses[status], status) }
        let get = try XCTUnwrap(paths["/users"]!["get"] as? [String: Any])
        let parameters = try XCTUnwrap(get["parameters"] as? [[String: Any]])
        let names = parameters.compactMap { $0["name"] as? String }
        XCTAssertEqual(Array(names.prefix(3)), ["orderBy", "limitToFirst", "fields"])
        XCTAssertEqual(Array(names.suffix(3)), ["sort", "limit", "cursor"], "client-query (docs/queries.md)")
        for name in ["age", "age[gte]", "age[in]", "age[exists]", "name[prefix]", "address.city[ne]"] {
            XCTAssertTrue(names.contains(name), name)
        }
        XCTAssertFalse(names.contains("age[prefix]"), "prefix is for strings")
        XCTAssertEqual(Set(parameters.map { $0["in"] as? String }), ["query"])
        let schemas = Dictionary(
            parameters.map { ($0["name"] as? String ?? "", $0["schema"] as? [String: Any] ?? [:]) },
            uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(schemas["age"]?["type"] as? String, "integer")
        XCTAssertEqual(schemas["limit"]?["maximum"] as? Int, 500)
        XCTAssertEqual(
            (schemas["sort"]?["items"] as? [String: Any])?["enum"] as? [String], ["name", "-name", "age", "-age"])
        let ok = try XCTUnwrap((get["responses"] as? [String: Any])?["200"] as? [String: Any])
        let headers = try XCTUnwrap(ok["headers"] as? [String: Any])
        XCTAssertNotNil(headers["Link"])
        XCTAssertNotNil(headers["Reshape-Total-Count"])
        let bad = try XCTUnwrap((get["responses"] as? [String: Any])?["400"] as? [String: Any])
        XCTAssertTrue((bad["description"] as? String ?? "").contains("bad-cursor"))
    }

    func testYAML() throws {
        let run = try CLIRunner.reshape(["openapi", "--rules", "examples/rules", "--yaml"])
        XCTAssertEqual(run.status, 0, run.stderr)
        // The version is quoted: plain, a YAML reader could take 3.1.0 for something else.
        // scripts/check-openapi.sh checks that the YAML and JSON documents are equal.
        XCTAssertTrue(run.stdout.hasPrefix("openapi: \"3.1.0\"\ninfo:"), String(run.stdout.prefix(80)))
    }

    func testRulesWithProblemsExit1() throws {
        let run = try CLIRunner.reshape(["openapi", "--rules", "no/such/dir"])
        XCTAssertEqual(run.status, 1)
    }
}
