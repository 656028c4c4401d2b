import CCurl
import Glibc
import ReshapeProxy

extension RedirectLocation {
    /// Where the redirect a finished transfer answered points: curl resolves `Location`
    /// against the URL it asked (CURLINFO_REDIRECT_URL, filled even though it follows
    /// nothing) and its URL API takes the result apart. nil: no Location, or no URL in it.
    init?(of easy: UnsafeMutableRawPointer) {
        var pointer: UnsafeMutableRawPointer?
        guard reshape_easy_getinfo_pointer(easy, CURLINFO_REDIRECT_URL, &pointer) == CURLE_OK, let pointer else {
            return nil
        }
        let url = String(cString: pointer.assumingMemoryBound(to: CChar.self))
        guard let handle = reshape_curl_url() else { return nil }
        defer { reshape_curl_url_cleanup(handle) }
        guard reshape_curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var text: UnsafeMutablePointer<CChar>?
            guard reshape_curl_url_get(handle, which, &text, flags) == CURLUE_OK, let text else { return nil }
            defer { reshape_curl_free(text) }
            return String(cString: text)
        }
        guard let scheme = part(CURLUPART_SCHEME), var host = part(CURLUPART_HOST),
            let portText = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)), let port = Int(portText)
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let hasUserInfo = part(CURLUPART_USER) != nil || part(CURLUPART_PASSWORD) != nil
        self.init(
            url: url, scheme: scheme.lowercased(), host: host.lowercased(), port: port, hasUserInfo: hasUserInfo)
    }
}
