// Redirects as Firebase sends them: a `307` to "the correct machine" for the data (its second
// listener, `--redirect-listen`), in hops a test can count, and any redirect a test names.

extension Router {
    /// `/redirect/N/<path>` (N hops, 1 to 20): a 307 to `/redirect/N-1/<path>` (to `/<path>` at
    /// the last hop) on the second listener, or on this one without `--redirect-listen`.
    /// `/fault/redirect/STATUS/HOST:PORT/<path>`: STATUS (301, 302, 303, 307 or 308) to
    /// `http://HOST:PORT/<path>`; `-` for HOST:PORT sends the relative `/<path>`. The query goes
    /// along. nil: not a redirect path.
    func redirect(_ segments: [String], _ request: DemoRequest) -> DemoReply? {
        let query = request.target.firstIndex(of: "?").map { String(request.target[$0...]) } ?? ""
        if segments.first == "redirect" {
            guard segments.count > 2, let hops = Int(segments[1]), (1...20).contains(hops) else {
                return .respond(.firebaseError(400, "Use /redirect/N/<path> with N from 1 to 20."))
            }
            let rest = segments.dropFirst(2).joined(separator: "/")
            let next = hops == 1 ? "/" + rest : "/redirect/\(hops - 1)/" + rest
            let host = redirectHost ?? request.header("host") ?? "127.0.0.1"
            return .respond(Self.redirectResponse(307, location: "http://\(host)\(next)\(query)"))
        }
        guard segments.count > 1, segments[0] == "fault", segments[1] == "redirect" else { return nil }
        guard segments.count > 4, let status = Int(segments[2]), [301, 302, 303, 307, 308].contains(status) else {
            return .respond(
                .firebaseError(
                    400, "Use /fault/redirect/STATUS/HOST:PORT/<path> with STATUS 301, 302, 303, 307 or 308."))
        }
        let rest = "/" + segments.dropFirst(4).joined(separator: "/") + query
        let location = segments[3] == "-" ? rest : "http://\(segments[3])\(rest)"
        return .respond(Self.redirectResponse(status, location: location))
    }

    private static func redirectResponse(_ status: Int, location: String) -> DemoResponse {
        var response = DemoResponse.firebaseError(status, "Moved to \(location)")
        response.headers.append(("Location", location))
        return response
    }
}
