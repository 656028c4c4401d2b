import Glibc

/// Where the shared cache lives: `redis://host[:port][/db]`, the host resolved once, at start,
/// on the main thread (hiredis would resolve a name with a blocking call on a worker's loop).
package struct RedisAddress: Sendable, Equatable {
    package var host: String
    /// The address connected to, as text (IPv4 or IPv6).
    package var ip: String
    package var port: Int
    package var database: Int

    package init(host: String, ip: String, port: Int, database: Int) {
        self.host = host
        self.ip = ip
        self.port = port
        self.database = database
    }

    /// `url` fit for an error message: secrets never reach the logs, even in a URL that is
    /// refused. A URL that could hold one (user info, a query or fragment, anything but
    /// printable ASCII; searched byte by byte, as a combining mark after `@` would hide it from
    /// a search by characters) is not shown at all.
    package static func redacted(_ url: String) -> String {
        let suspicious = url.utf8.contains {
            $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 < 0x21 || $0 > 0x7E
        }
        return suspicious ? "[REDACTED: the URL may hold a password]" : url
    }

    /// Parses and resolves `url`; the error says what is wrong with it.
    package static func resolve(_ url: String) -> Result<RedisAddress, RedisAddressError> {
        guard url.hasPrefix("redis://") else { return .failure(.init("it must start with redis://")) }
        var rest = Substring(url.dropFirst("redis://".count))
        if rest.utf8.contains(UInt8(ascii: "@")) {
            return .failure(.init("credentials in the URL are not supported; use a Redis on a private network"))
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty {
                guard let number = Int(path), (0...15).contains(number) else {
                    return .failure(.init("the database must be a number 0-15"))
                }
                database = number
            }
            rest = rest[..<slash]
        }
        var host = String(rest)
        var port = 6379
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else {
                    return .failure(.init("bad port"))
                }
                port = number
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else {
                return .failure(.init("bad port"))
            }
            port = number
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { return .failure(.init("no host")) }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else {
            return .failure(.init("cannot resolve '\(host)'"))
        }
        defer { freeaddrinfo(results) }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard
            getnameinfo(
                first.pointee.ai_addr, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST)
                == 0
        else {
            return .failure(.init("cannot resolve '\(host)'"))
        }
        let ip = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .success(RedisAddress(host: host, ip: ip, port: port, database: database))
    }
}

package struct RedisAddressError: Error, Sendable, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
