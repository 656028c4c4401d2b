import CCurl
import ReshapeProxy
import ReshapeRules

/// A request's headers as the curl list its transfer sends (CURLOPT_HTTPHEADER): a thin owner
/// of the `curl_slist`, freed with the last transfer that holds it. Transfers keep the list
/// they started with, so a reload that changes the headers never frees a list curl still reads.
/// Which lists are reused is `HeaderListCache`'s to decide.
final class HeaderList {
    let list: UnsafeMutablePointer<curl_slist>?

    init(_ headers: [NameValue], forBody: Bool) {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = reshape_curl_slist_append(list, HeaderList.line(for: header)) }
        if forBody { list = reshape_curl_slist_append(list, HeaderList.noContinueLine) }
        self.list = list
    }

    deinit { reshape_curl_slist_free_all(list) }

    /// curl reads `Name:` with nothing after it as "remove this header"; `Name;` sends it empty.
    static func line(for header: NameValue) -> String {
        header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
    }

    /// curl would add `Expect: 100-continue` to a large body and wait for the upstream's
    /// interim answer before sending it; an empty value stops that.
    static let noContinueLine = "Expect:"

    /// Whether a request's list needs `noContinueLine`: a write, which has a body (an empty one
    /// for a write without). Only then: curl compares every list entry against the headers it
    /// sets itself, per transfer, so a GET's list carries nothing it does not need.
    static func forBody(_ request: UpstreamRequest) -> Bool {
        request.body != nil || request.method != "GET"
    }
}
