import Foundation
import Glibc
import ReshapeTestSupport

/// A second origin for browser tests: serves one HTML page at `/` and records what the page
/// posts to `/result` (`{"name", "value"}`), on a loopback port of its own, one connection at
/// a time on a thread of its own.
final class PageServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let page: PageState<String>
    private let results = PageState<[(name: String, value: String)]>([])

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw HarnessError("the page server cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        page = PageState("")
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// The page `/` answers with from now on.
    func setPage(_ html: String) { page.withLock { $0 = html } }

    /// What the page has posted so far, in order.
    var posted: [(name: String, value: String)] { results.withLock { $0 } }

    /// Waits until the page has posted `count` results named `name`; their values.
    func wait(for name: String, count: Int = 1, timeout: TimeInterval = 15) throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let values = posted.filter { $0.name == name }.map(\.value)
            if values.count >= count { return values }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw HarnessError("the page posted no \(count) × \(name) in \(timeout) s: \(posted)")
    }

    func clear() { results.withLock { $0.removeAll() } }

    /// Stops listening; the thread ends at its next accept.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                close(listener)  // `stop` shut it down
                return
            }
            handle(client)
            close(client)
        }
    }

    private func handle(_ client: Int32) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let end = Self.headEnd(data) {
                let head = String(decoding: data[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count >= end + 4 + length {
                    respond(client, head: head, body: Array(data[(end + 4)..<(end + 4 + length)]))
                    return
                }
            }
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return }
            data += buffer[0..<count]
        }
    }

    private func respond(_ client: Int32, head: String, body: [UInt8]) {
        let requestLine = head.split(separator: "\r\n").first ?? ""
        var answer: (status: String, type: String, body: String) = ("404 Not Found", "text/plain", "not here")
        if requestLine.hasPrefix("GET / ") {
            answer = ("200 OK", "text/html; charset=utf-8", page.withLock { $0 })
        } else if requestLine.hasPrefix("POST /result "),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let name = object["name"] as? String
        {
            let value = object["value"].map { "\($0)" } ?? ""
            results.withLock { $0.append((name, value)) }
            answer = ("204 No Content", "text/plain", "")
        }
        let bytes = Array(answer.body.utf8)
        let text =
            "HTTP/1.1 \(answer.status)\r\nContent-Type: \(answer.type)\r\nContent-Length: \(bytes.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        let out = Array(text.utf8) + bytes
        _ = out.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
    }

    private static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        return (0...(data.count - 4)).first {
            data[$0] == 13 && data[$0 + 1] == 10 && data[$0 + 2] == 13 && data[$0 + 3] == 10
        }
    }
}

/// A value behind a lock, shared by the page server's thread and the test's.
private final class PageState<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
