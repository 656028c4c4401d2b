import CLibUV
import Glibc

/// What the server needs to know about a client's address.
enum PeerAddress {
    /// 127.0.0.0/8, ::1, or an IPv4-mapped loopback (::ffff:127.x.x.x).
    static func isLoopback(_ tcp: UnsafeMutablePointer<uv_tcp_t>) -> Bool {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(tcp, $0, &length) }
        }
        guard status == 0 else { return false }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    let bytes = withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                    let loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
                    let mapped =
                        bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                        && bytes[12] == 127
                    return loopback || mapped
                }
            }
        default:
            return false
        }
    }

    /// The peer's address as text (`192.0.2.1`, `2001:db8::1`; an IPv4-mapped one as IPv4); ""
    /// when the socket cannot say.
    static func text(_ tcp: UnsafeMutablePointer<uv_tcp_t>) -> String {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(tcp, $0, &length) }
        }
        guard status == 0 else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written: Bool
        switch Int32(storage.ss_family) {
        case AF_INET:
            written = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil
                }
            }
        case AF_INET6:
            written = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil
                }
            }
        default:
            written = false
        }
        guard written else { return "" }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
    }
}
