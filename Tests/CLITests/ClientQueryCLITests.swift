import Foundation
import XCTest

/// `reshape check` on `client-query:` (issue 26): what it refuses, where it was written.
final class ClientQueryCLITests: XCTestCase {
    private static let rules = """
        upstreams:
          demo: { url: "http://127.0.0.1:9" }
        types:
          User:
            type: object
            properties: { objectId: { type: string }, name: { type: string }, age: { type: integer } }
        routes:
          - name: untyped
            request: GET /a
            upstream: demo
            path: /a.json
            transform: []
            client-query: { filter: [name] }
          - name: typed
            request: GET /b
            upstream: demo
            path: /b.json
            forward-query: [limit]
            transform:
              - keyed-to-array: { key: objectId }
              - validate: { type: User, invalid: drop }
              - wrap: objects
            client-query:
              array: /objects
              filter: [name, sort, shoe]
              sort: [age, height]
              page: { size: 10, max: 5 }
          - name: fine
            request: GET /c
            upstream: demo
            path: /c.json
            transform:
              - keyed-to-array: { key: objectId }
              - validate: { type: User, invalid: drop }
            client-query: { fields: true, filter: [name, age], sort: [age], page: { size: 2, max: 10 } }
        """

    func testCheckRefusesWhatTheIssueNamesWithFileLineAndColumn() throws {
        let file = try CLIRunner.temporaryFile(Self.rules, "rules.yaml")
        let run = try CLIRunner.reshape(["check", "--rules", file])
        XCTAssertEqual(run.status, 1, run.stdout)
        for expected in [
            "rules.yaml:23:5: 'limit' is a client-query parameter, and `forward-query` names it too",
            "rules.yaml:25:22: filter field 'sort' is also a parameter of the client query",
            "rules.yaml:27:21: `size` (10) must not be above `max` (5)",
        ] {
            XCTAssertTrue(run.stderr.contains(expected), "\(expected)\n\(run.stderr)")
        }
        // The shape checks run once the rest is clean.
        let shapes = Self.rules.replacingOccurrences(of: "[name, sort, shoe]", with: "[name, shoe]")
            .replacingOccurrences(of: "forward-query: [limit]", with: "")
            .replacingOccurrences(of: "size: 10, max: 5", with: "size: 5, max: 10")
        let second = try CLIRunner.reshape(["check", "--rules", try CLIRunner.temporaryFile(shapes, "rules.yaml")])
        XCTAssertEqual(second.status, 1, second.stdout)
        for expected in [
            "rules.yaml:13:19: route 'untyped': `client-query` needs an array of objects",
            "rules.yaml:25:22: route 'typed': filter field 'shoe' is not a member the records' type declares",
            "rules.yaml:26:19: route 'typed': sort field 'height' is not a member the records' type declares",
        ] {
            XCTAssertTrue(second.stderr.contains(expected), "\(expected)\n\(second.stderr)")
        }
        XCTAssertFalse(second.stderr.contains("'fine'"), second.stderr)
    }

    func testABracketedRouteParameterIsRefusedOnlyWhereItReadsAsAFilter() throws {
        let rules = """
            upstreams:
              demo: { url: "http://127.0.0.1:9" }
            types:
              User:
                type: object
                properties: { objectId: { type: string }, name: { type: string }, age: { type: integer } }
            routes:
              - name: listed
                request: GET /c
                upstream: demo
                path: /c.json
                forward-query: ["ids[]", "utm[source]", "name[gt]", "created[gte]"]
                transform:
                  - keyed-to-array: { key: objectId }
                  - validate: { type: User, invalid: drop }
                client-query: { fields: true, filter: [name, age], sort: [age] }
            """
        let run = try CLIRunner.reshape(["check", "--rules", try CLIRunner.temporaryFile(rules, "rules.yaml")])
        XCTAssertEqual(run.status, 1, run.stdout)
        for name in ["name[gt]", "created[gte]"] {
            let expected = "'\(name)' in `forward-query` would be read as a client-query filter"
            XCTAssertTrue(run.stderr.contains(expected), run.stderr)
        }
        XCTAssertFalse(run.stderr.contains("ids[]"), run.stderr)
        XCTAssertFalse(run.stderr.contains("utm[source]"), run.stderr)

        let fine = rules.replacingOccurrences(of: #", "name[gt]", "created[gte]""#, with: "")
        let second = try CLIRunner.reshape(["check", "--rules", try CLIRunner.temporaryFile(fine, "rules.yaml")])
        XCTAssertEqual(second.status, 0, second.stderr)
    }
}
