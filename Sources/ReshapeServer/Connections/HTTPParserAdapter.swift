import CHTTPParser
import ReshapeProxy
import ReshapeRules

// The only file that calls http_parser (no longer developed upstream, maintained in Debian):
// replacing it with llhttp means replacing this file. Its callbacks become the connection
// state machine's events; it decides nothing itself.

package final class HTTPParserAdapter {
    // A C struct in memory of its own: http_parser calls back into this object while it holds
    // it, which Swift's exclusivity rules forbid for a stored property. The callbacks are the
    // same for every connection: one set serves them all.
    private let parser = UnsafeMutablePointer<http_parser>.allocate(capacity: 1)
    private var settings: UnsafeMutablePointer<http_parser_settings> { httpParserSettings }
    /// Receives parse events; returns false to stop parsing (the connection reads no more requests).
    private let deliver: (HTTPConnectionStateMachine.Event) -> Bool
    /// The machine's head limits: pending counts that pass one alone are delivered at once,
    /// before the piece that passes it is kept, so a head refused for them has buffered no more
    /// than twice the limit (what the machine counted, and what was pending).
    private let limits: ServerLimits

    private var url: [UInt8] = []
    private var headers: [NameValue] = []
    private var field: [UInt8] = []
    private var value: [UInt8] = []
    private var inValue = false
    /// After the head of a chunked request: the fields that arrive now are trailers.
    private var inTrailers = false
    private var body: [UInt8] = []
    /// Head bytes parsed that the machine has not been told of yet: a read's pieces go to it
    /// together (`countsDelivered`), before the next event that needs them, at the end of the
    /// read, and as soon as they alone pass a limit (`countedInTime`), rather than one event
    /// per piece (two per header).
    private var pendingURLBytes = 0
    private var pendingFields = 0
    private var pendingHeaderBytes = 0

    deinit {
        parser.deallocate()
    }

    package init(limits: ServerLimits, deliver: @escaping (HTTPConnectionStateMachine.Event) -> Bool) {
        self.limits = limits
        self.deliver = deliver
        parser.initialize(to: http_parser())
        http_parser_init(parser, HTTP_REQUEST)
    }

    /// Feeds bytes read from the socket.
    package func feed(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        parser.pointee.data = me
        let parsed = http_parser_execute(parser, settings, base.assumingMemoryBound(to: CChar.self), bytes.count)
        // What is left of a head that goes on in the next read is checked against the limits now.
        guard countsDelivered() else { return }
        let errno = reshape_http_errno(parser)
        if errno != HPE_OK {
            // A callback that returned 1 was the connection refusing the request: it has
            // already answered, so this is not a second error.
            if errno.rawValue < HPE_CB_message_begin.rawValue || errno.rawValue > HPE_CB_chunk_complete.rawValue {
                _ = deliver(.parseError(reason: String(cString: http_errno_name(errno))))
            }
        } else if parser.pointee.upgrade != 0 || parsed != bytes.count {
            _ = deliver(.parseError(reason: "protocol upgrades are not supported"))
        }
    }

    // MARK: - Callbacks

    fileprivate func messageBegan() -> Int32 {
        // The last message's counts were all delivered as it completed.
        pendingURLBytes = 0
        pendingFields = 0
        pendingHeaderBytes = 0
        url.removeAll(keepingCapacity: true)
        headers.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: true)
        inValue = false
        inTrailers = false
        return deliver(.messageBegan) ? 0 : 1
    }

    fileprivate func url(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        pendingURLBytes += length
        guard countedInTime() else { return 1 }
        append(at, length, to: &url)
        return 0
    }

    fileprivate func headerField(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        if inValue {
            completeHeader()
            inValue = false
        }
        // A field name may arrive in pieces; count the header once, its bytes every time.
        if field.isEmpty { pendingFields += 1 }
        pendingHeaderBytes += length
        guard countedInTime() else { return 1 }
        append(at, length, to: &field)
        return 0
    }

    fileprivate func headerValue(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        inValue = true
        pendingHeaderBytes += length
        guard countedInTime() else { return 1 }
        append(at, length, to: &value)
        return 0
    }

    /// Delivers the pending counts once they alone pass a limit (a read of many small fields
    /// would otherwise be buffered whole before the machine refuses it); false when it did.
    @inline(__always) private func countedInTime() -> Bool {
        guard
            pendingFields > limits.maxHeaderCount || pendingURLBytes > limits.maxURLBytes
                || pendingURLBytes + pendingHeaderBytes > limits.maxHeaderBytes
        else { return true }
        return countsDelivered()
    }

    /// Tells the machine of the head bytes parsed since it last heard (the target first, as
    /// it came first); false when it refused the request for them.
    private func countsDelivered() -> Bool {
        let (urlBytes, fields, headerBytes) = (pendingURLBytes, pendingFields, pendingHeaderBytes)
        pendingURLBytes = 0
        pendingFields = 0
        pendingHeaderBytes = 0
        if urlBytes > 0 {
            guard deliver(.urlBytes(urlBytes)) else { return false }
        }
        if headerBytes > 0 || fields > 0 {
            guard deliver(.headerBytes(fields: fields, bytes: headerBytes)) else { return false }
        }
        return true
    }

    fileprivate func headersComplete() -> Int32 {
        guard countsDelivered() else { return 1 }
        if inValue || !field.isEmpty { completeHeader() }
        inValue = false
        inTrailers = true
        let head = RequestHead(
            headers: headers, versionMajor: Int(parser.pointee.http_major),
            versionMinor: Int(parser.pointee.http_minor), target: url)
        return deliver(.headersComplete(head)) ? 0 : 1
    }

    fileprivate func bodyBytes(_ at: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        guard countsDelivered(), deliver(.bodyBytes(length)) else { return 1 }
        append(at, length, to: &body)
        return 0
    }

    fileprivate func messageComplete() -> Int32 {
        // A chunked request's trailers are counted before it completes.
        guard countsDelivered() else { return 1 }
        if inValue || !field.isEmpty { completeHeader() }
        inValue = false
        // http_parser ends a CONNECT at its head, whatever its Content-Length says (the bytes after
        // it are a tunnel's): it must not reach dispatch as a request with a body it never read.
        if parser.pointee.method == HTTP_CONNECT.rawValue {
            _ = deliver(.parseError(reason: "CONNECT is not supported: this is not a forward proxy"))
            return 1
        }
        let method = String(cString: http_method_str(http_method(rawValue: parser.pointee.method)))
        let request = HTTPRequest(
            method: method, target: String(decoding: url, as: UTF8.self),
            versionMajor: Int(parser.pointee.http_major), versionMinor: Int(parser.pointee.http_minor),
            headers: headers, body: body, keepAlive: http_should_keep_alive(parser) != 0)
        return deliver(.messageComplete(request)) ? 0 : 1
    }

    /// Ends the field being read. A trailer is counted against the head's limits (the state
    /// machine saw its bytes) and then discarded (RFC 9110 §6.5.1): nothing reads trailers, and
    /// one must never pass for a header, a forwarded `Authorization` least of all.
    private func completeHeader() {
        if inTrailers {
            field.removeAll(keepingCapacity: true)
            value.removeAll(keepingCapacity: true)
            return
        }
        headers.append(
            NameValue(name: String(decoding: field, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
    }

    private func append(_ at: UnsafePointer<CChar>?, _ length: Int, to buffer: inout [UInt8]) {
        guard let at, length > 0 else { return }
        at.withMemoryRebound(to: UInt8.self, capacity: length) {
            buffer.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
    }
}

/// The callbacks of every adapter's parser, made once; http_parser only reads them.
nonisolated(unsafe) private let httpParserSettings: UnsafeMutablePointer<http_parser_settings> = {
    let settings = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
    settings.initialize(to: http_parser_settings())
    settings.pointee.on_message_begin = { parser in adapter(parser).messageBegan() }
    settings.pointee.on_url = { parser, at, length in adapter(parser).url(at, length) }
    settings.pointee.on_header_field = { parser, at, length in adapter(parser).headerField(at, length) }
    settings.pointee.on_header_value = { parser, at, length in adapter(parser).headerValue(at, length) }
    settings.pointee.on_headers_complete = { parser in adapter(parser).headersComplete() }
    settings.pointee.on_body = { parser, at, length in adapter(parser).bodyBytes(at, length) }
    settings.pointee.on_message_complete = { parser in adapter(parser).messageComplete() }
    return settings
}()

private func adapter(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTPParserAdapter {
    Unmanaged<HTTPParserAdapter>.fromOpaque(parser!.pointee.data).takeUnretainedValue()
}
