import CCurl
import CLibUV
import Foundation
import Glibc
import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy
@testable import ReshapeServer

/// A real `UpstreamClient` on a real libuv loop (run by the test, on its thread) against the
/// demo upstream process over loopback.
final class UpstreamClientTests: XCTestCase {
    nonisolated(unsafe) static var upstream: DemoUpstream!

    /// Why libcurl could not be loaded, if it could not: each test then fails saying so.
    nonisolated(unsafe) static var curlFailure: String?

    override class func setUp() {
        if let failure = reshape_curl_open() {
            curlFailure = String(cString: failure)
            return
        }
        upstream = try? DemoUpstream()
    }

    override class func tearDown() { upstream?.child.stop() }

    private var loop: UnsafeMutablePointer<uv_loop_t>!
    private var client: UpstreamClient!
    private var metrics: Metrics!

    override func setUpWithError() throws {
        if let failure = Self.curlFailure { throw HarnessError("libcurl could not be loaded: \(failure)") }
        guard Self.upstream != nil else { throw HarnessError("the demo upstream did not start") }
        loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        uv_loop_init(loop)
        metrics = Metrics()
        client = UpstreamClient(loop: loop, metrics: metrics)
    }

    override func tearDown() {
        guard let client else { return }  // set-up failed before there was one
        // As a worker ends: the client closes, then the loop runs its handles' close callbacks.
        client.close()
        self.client = nil
        uv_run(loop, UV_RUN_DEFAULT)
        XCTAssertEqual(uv_loop_close(loop), 0, "a handle was left open")
        loop.deallocate()
    }

    private func request(
        _ path: String, port: Int = UpstreamClientTests.upstream.port,
        maxBodyBytes: Int = 1 << 20
    ) -> UpstreamRequest {
        UpstreamRequest(
            method: "GET", url: "http://127.0.0.1:\(port)\(path)",
            headers: [NameValue(name: "Accept", value: "application/json")], body: nil,
            timeoutMilliseconds: 5000, connectTimeoutMilliseconds: 2000, maxBodyBytes: maxBodyBytes,
            upstreamName: "demo")
    }

    /// Runs the loop until `done` holds or `seconds` pass. `done` may look at the upstream,
    /// which cannot wake the loop, so the loop runs between looks rather than blocking in it.
    private func runLoop(for seconds: Double = 10, until done: () -> Bool) {
        waitUntil(timeout: seconds) {
            uv_run(loop, UV_RUN_NOWAIT)
            return done()
        }
    }

    /// Starts `request` and runs the loop until it completes.
    private func fetch(_ request: UpstreamRequest) throws -> UpstreamResult {
        var result: UpstreamResult?
        _ = client.start(request) { outcome, _ in result = outcome }
        runLoop { result != nil }
        return try XCTUnwrap(result, "the fetch did not complete")
    }

    func testA200IsAnsweredWithItsBodyAndContentType() throws {
        guard case .response(let response) = try fetch(request("/users.json")) else {
            return XCTFail("not a response")
        }
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.contentType?.hasPrefix("application/json") ?? false, response.contentType ?? "no type")
        XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(response.body)), "the body is the upstream's JSON")
    }

    func testAClosedPortIsAConnectFailure() throws {
        // A port that was free a moment ago: bound, read back, closed.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(fd, $0, length)
                _ = getsockname(fd, $0, &length)
            }
        }
        Glibc.close(fd)
        let port = Int(UInt16(bigEndian: address.sin_port))
        guard case .failure(let failure, _) = try fetch(request("/users.json", port: port)) else {
            return XCTFail("a closed port answered")
        }
        XCTAssertEqual(failure, .connect)
    }

    func testABodyOverMaxBodyBytesIsRefused() throws {
        let big = request("/fault/big?bytes=100000", maxBodyBytes: 1000)
        guard case .failure(let failure, let message) = try fetch(big) else {
            return XCTFail("the oversized body was accepted")
        }
        XCTAssertEqual(failure, .tooLarge)
        XCTAssertEqual(message, "the upstream body exceeds 1000 bytes")
    }

    func testACancelledTransferNeverCompletesAndItsConnectionIsDropped() throws {
        var completed = false
        let target = "/delay/3000/cancel-\(UUID().uuidString)/users.json"
        let transfer = try XCTUnwrap(client.start(request(target)) { _, _ in completed = true })
        func entry() -> [String: Any]? {
            (try? Self.upstream.log())?.first { $0["target"] as? String == target }
        }
        var arrived = false
        runLoop {
            arrived = arrived || entry() != nil
            return arrived
        }
        XCTAssertTrue(arrived, "the request never reached the upstream")
        client.cancel(transfer)
        client.cancel(transfer)  // a second cancel finds nothing to do
        runLoop(for: 5) { entry()?["clientAborted"] as? Bool == true }
        XCTAssertEqual(entry()?["clientAborted"] as? Bool, true, "the upstream still holds the connection")
        runLoop(for: 0.2) { false }  // a while in which nothing may complete
        XCTAssertFalse(completed, "a cancelled transfer's completion ran")
    }
}
