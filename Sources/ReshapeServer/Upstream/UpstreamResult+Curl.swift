import CCurl
import ReshapeProxy

extension UpstreamResult {
    /// How a finished transfer ended, from curl's code and what it left in the easy handle.
    init(_ transfer: UpstreamTransfer, code: CURLcode) {
        if code == CURLE_OK {
            var status = 0
            reshape_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            var contentType: UnsafeMutableRawPointer?
            reshape_easy_getinfo_pointer(transfer.easy, CURLINFO_CONTENT_TYPE, &contentType)
            let type = contentType.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
            let success = (200..<300).contains(status)
            let retryAfter = status >= 400 ? UpstreamResult.retryAfter(of: transfer.easy) : nil
            let cacheControl = success ? UpstreamResult.cacheControl(of: transfer.easy) : nil
            var response = UpstreamResponse(
                status: status, contentType: type, body: transfer.body,
                retryAfter: retryAfter, cacheControl: cacheControl)
            // Firebase's ETag, on a 2xx and on a 412 alike (conditional routes, docs/firebase.md).
            response.entityTag = UpstreamResult.lastHeader("ETag", of: transfer.easy)
            self = .response(response)
            return
        }
        let detail = String(cString: transfer.errorBuffer)
        let message = detail.isEmpty ? String(cString: reshape_curl_easy_strerror(code)) : detail
        if transfer.exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            self = .failure(.tooLarge, message: "the upstream body exceeds \(transfer.maxBodyBytes) bytes")
            return
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: self = .failure(.dns, message: message)
        case CURLE_COULDNT_CONNECT: self = .failure(.connect, message: message)
        case CURLE_OPERATION_TIMEDOUT: self = .failure(.timeout, message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            self = .failure(.tls, message: message)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_BAD_CONTENT_ENCODING:
            self = .failure(.transfer, message: message)
        default: self = .failure(.other, message: message)
        }
    }

    /// What the attempt meant for retries and the circuit. A reset is a receive or send error, or
    /// an empty reply, before any byte of the answer: the upstream cannot have answered, and
    /// may not have seen the request. curl has already retried once, on a new connection, a
    /// request whose kept-alive connection turned out closed; what arrives here is what that
    /// did not cure, so a reset is never counted twice.
    func attemptEnd(_ transfer: UpstreamTransfer, code: CURLcode) -> AttemptEnd {
        switch self {
        case .response(let response):
            if RedirectPolicy.isRedirect(response.status) {
                return .redirected(status: response.status, location: RedirectLocation(of: transfer.easy))
            }
            return .answered(status: response.status, retryAfter: response.retryAfter)
        case .failure(let failure, _):
            switch code {
            case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
                var headerBytes = 0
                reshape_easy_getinfo_long(transfer.easy, CURLINFO_HEADER_SIZE, &headerBytes)
                return headerBytes == 0 && transfer.body.isEmpty ? .reset : .transportFailure
            default: break
            }
            switch failure {
            case .connect: return .connectFailure
            case .timeout: return .timeout
            case .dns, .tls, .transfer: return .transportFailure
            case .tooLarge, .other, .unavailable, .redirectRefused, .saturated, .loadShed: return .otherFailure
            }
        }
    }

    /// The upstream's `Retry-After` (the last one, if it sent several), read from the headers
    /// curl keeps for the finished transfer.
    private static func retryAfter(of easy: UnsafeMutableRawPointer) -> String? {
        lastHeader("Retry-After", of: easy)
    }

    /// The last header called `name` of the finished transfer's last answer.
    private static func lastHeader(_ name: String, of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard reshape_curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
            let first = header
        else { return nil }
        let amount = first.pointee.amount
        if amount > 1 {
            var last: UnsafeMutablePointer<curl_header>?
            if reshape_curl_easy_header(easy, name, amount - 1, UInt32(CURLH_HEADER), -1, &last) == CURLHE_OK,
                let value = last?.pointee.value
            {
                return String(cString: value)
            }
        }
        return first.pointee.value.map { String(cString: $0) }
    }

    /// Every `Cache-Control` header of the answer, joined as one list (RFC 9110 §5.3).
    private static func cacheControl(of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard reshape_curl_easy_header(easy, "Cache-Control", 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
            let first = header
        else { return nil }
        var values: [String] = []
        for index in 0..<first.pointee.amount {
            var each: UnsafeMutablePointer<curl_header>?
            if reshape_curl_easy_header(easy, "Cache-Control", index, UInt32(CURLH_HEADER), -1, &each) == CURLHE_OK,
                let value = each?.pointee.value
            {
                values.append(String(cString: value))
            }
        }
        return values.joined(separator: ", ")
    }
}
