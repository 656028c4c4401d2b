import CCurl
import Glibc

// curl's C callbacks, each handing over to the Swift object its data pointer names: the
// `SocketWatches` for sockets, the `UpstreamClient` for its timer, the `UpstreamTransfer` for
// the body it receives and the connections it opens.

let upstreamSocketCallback:
    @convention(c) (
        UnsafeMutableRawPointer?, curl_socket_t, Int32,
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    ) -> Int32 = {
        _, fd, action, sockets, _ in
        guard let sockets else { return 0 }
        Unmanaged<SocketWatches>.fromOpaque(sockets).takeUnretainedValue().watch(socket: fd, action: action)
        return 0
    }

let upstreamOpenSocketCallback:
    @convention(c) (
        UnsafeMutableRawPointer?, curlsocktype,
        UnsafeMutablePointer<curl_sockaddr>?
    ) -> curl_socket_t = {
        transfer, _, address in
        guard let transfer, let address else { return CURL_SOCKET_BAD }
        let owner = Unmanaged<UpstreamTransfer>.fromOpaque(transfer).takeUnretainedValue()
        guard let sockets = owner.sockets else { return CURL_SOCKET_BAD }
        return sockets.opening(
            family: address.pointee.family, type: address.pointee.socktype, protocol: address.pointee.protocol,
            upstream: owner.upstreamName)
    }

let upstreamCloseSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = { sockets, fd in
    guard let sockets else { return Glibc.close(fd) }
    Unmanaged<SocketWatches>.fromOpaque(sockets).takeUnretainedValue().closing(fd)
    return 0
}

let upstreamTimerCallback: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, timeout, client in
    guard let client else { return 0 }
    Unmanaged<UpstreamClient>.fromOpaque(client).takeUnretainedValue().schedule(timeoutMilliseconds: timeout)
    return 0
}

let upstreamWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    data, size, count, transfer in
    guard let data, let transfer else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    // Returning less than was given makes curl fail with CURLE_WRITE_ERROR: an oversized
    // body is refused, never truncated. A pause keeps the bytes in curl, given again on resume.
    switch Unmanaged<UpstreamTransfer>.fromOpaque(transfer).takeUnretainedValue().receive(bytes) {
    case .kept: return size * count
    case .refused: return 0
    case .paused: return reshape_writefunc_pause
    }
}
