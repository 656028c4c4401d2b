import ReshapeRules
import XCTest

/// An upstream's `redirects: { hosts, max }`, as issue 28 writes it.
final class RuleLoaderRedirectTests: XCTestCase {
    func testTheIssueExampleLoads() throws {
        let text = """
            upstreams:
              firebase:
                url: https://my-app.firebaseio.com
                redirects: { hosts: ["*.firebaseio.com"], max: 3 }
            """
        let firebase = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["firebase"])
        let rule = try XCTUnwrap(firebase.redirects)
        XCTAssertEqual(rule.max, 3)
        XCTAssertEqual(rule.hosts.map(\.description), ["*.firebaseio.com"])
        XCTAssertTrue(rule.allows(host: "s-usc1c-nss-287.firebaseio.com", port: 443, defaultPort: 443))
    }

    func testWithoutTheKeyNothingIsFollowedAndMaxDefaultsToThree() throws {
        XCTAssertNil(try XCTUnwrap(loaded([("u.yaml", plainUpstream)])?.upstreams["api"]).redirects)
        let text = """
            upstreams:
              api:
                url: http://127.0.0.1:8081
                redirects: { hosts: ["db.example.com:8443", "127.0.0.1:9000"] }
            """
        let rule = try XCTUnwrap(loaded([("u.yaml", text)])?.upstreams["api"]?.redirects)
        XCTAssertEqual(rule.max, 3)
        XCTAssertEqual(rule.hosts.map(\.port), [8443, 9000])
    }

    func testEveryBadValueAndUnknownKeyIsLocated() {
        let text = """
            upstreams:
              bad:
                url: http://127.0.0.1:9
                redirects: { hosts: ["*.com", "db..example.com", "x:0", 7, "ok.example.com"], max: 11, follow: yes }
              none:
                url: http://127.0.0.1:9
                redirects: { max: 2 }
              empty:
                url: http://127.0.0.1:9
                redirects: { hosts: [] }
              scalar:
                url: http://127.0.0.1:9
                redirects: true
            """
        let lines = diagnostics([("u.yaml", text)])
        assertDiagnostic(lines, at: "u.yaml:4:26", contains: "'*.com': a wildcard needs a domain of two labels")
        assertDiagnostic(lines, at: "u.yaml:4:35", contains: "'db..example.com': expected a host name")
        assertDiagnostic(lines, at: "u.yaml:4:54", contains: "'x:0': the port must be 1 to 65535")
        assertDiagnostic(lines, at: "u.yaml:4:61", contains: "a redirect host must be a string")
        assertDiagnostic(lines, at: "u.yaml:4:88", contains: "`max` must be a whole number from 1 to 10")
        assertDiagnostic(lines, at: "u.yaml:4:100", contains: "unknown redirects key 'follow'")
        assertDiagnostic(lines, at: "u.yaml:7:16", contains: "`redirects` needs `hosts`")
        assertDiagnostic(lines, at: "u.yaml:10:25", contains: "`hosts` must be a non-empty list")
        assertDiagnostic(lines, at: "u.yaml:13:16", contains: "`redirects` must be a mapping")
    }

    func testHostPatterns() throws {
        let wildcard = try HostPattern.parse("*.Firebaseio.com").get()
        XCTAssertTrue(wildcard.matches(host: "a.firebaseio.com", port: 443, defaultPort: 443))
        XCTAssertTrue(wildcard.matches(host: "a.b.firebaseio.com", port: 443, defaultPort: 443))
        XCTAssertFalse(wildcard.matches(host: "firebaseio.com", port: 443, defaultPort: 443), "not the domain itself")
        XCTAssertFalse(wildcard.matches(host: "evilfirebaseio.com", port: 443, defaultPort: 443))
        XCTAssertFalse(wildcard.matches(host: "a.firebaseio.com.evil.net", port: 443, defaultPort: 443))
        XCTAssertFalse(wildcard.matches(host: "a.firebaseio.com", port: 8443, defaultPort: 443), "default port only")
        let exact = try HostPattern.parse("db.example.com:8443").get()
        XCTAssertTrue(exact.matches(host: "db.example.com", port: 8443, defaultPort: 443))
        XCTAssertFalse(exact.matches(host: "db.example.com", port: 443, defaultPort: 443))
        XCTAssertFalse(exact.matches(host: "x.db.example.com", port: 8443, defaultPort: 443))
    }
}
