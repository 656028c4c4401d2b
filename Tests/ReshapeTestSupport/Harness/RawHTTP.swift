import Foundation
import Glibc

/// A deliberately plain HTTP/1.1 client over a raw socket, so tests can send anything,
/// including requests no well-behaved client would.
public struct RawHTTP {
    public struct Response {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        public var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    public let fd: Int32

    public init(port: Int, timeout: TimeInterval = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw HarnessError("cannot connect to 127.0.0.1:\(port)")
        }
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes or the receive timeout passes.
    public func readAll() -> [UInt8] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        return data
    }

    private var pending: [UInt8] = []

    /// Reads exactly one response (framed by Content-Length); nil when the connection ended first.
    public mutating func readResponse(headOnly: Bool = false) -> Response? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let response = RawHTTP.parse(&pending, headOnly: headOnly) { return response }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            pending += buffer[0..<count]
        }
    }

    public func close() { Glibc.close(fd) }

    public static func parse(_ data: inout [UInt8], headOnly: Bool = false) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let head = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headOnly ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        guard data.count >= end + 4 + length else { return nil }
        let body = Array(data[(end + 4)..<(end + 4 + length)])
        data.removeFirst(end + 4 + length)
        return Response(status: status, headers: headers, body: body)
    }

    /// One GET on a fresh connection.
    public static func get(port: Int, _ target: String, headers: [String] = [], timeout: TimeInterval = 10) throws
        -> Response
    {
        var client = try RawHTTP(port: port, timeout: timeout)
        defer { client.close() }
        client.send(
            "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "Connection: close\r\n\r\n")
        guard let response = client.readResponse() else { throw HarnessError("no response to GET \(target)") }
        return response
    }
}
