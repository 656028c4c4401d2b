import ReshapeJSON

/// An RFC 9457 problem that ends a live stream, sent as the `data` of its `event: error`: the
/// same members, in the same order, as the problem+json answers of ReshapeProxy's `Problem`
/// (`type` derived from `code`, then `title`, `status`, `detail`, `code`, then the extras).
public struct LiveProblem: Error, Sendable, Equatable {
    public var status: Int
    /// Reshape's stable name for the error (docs/errors.md): `validation-failed`,
    /// `upstream-stream-cancelled`, ...
    public var code: String
    public var title: String
    public var detail: String
    /// Extra members after `code`: `route`, `upstream`, `pointer`, `errors`, ...
    public var extra: [JSONMember]

    public init(status: Int, code: String, title: String, detail: String, extra: [JSONMember] = []) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.extra = extra
    }

    /// The problem as JSON: what `event: error` carries.
    public var body: JSON {
        var members: [JSONMember] = [
            JSONMember(key: "type", value: .string("https://reshape.dev/problems/\(code)")),
            JSONMember(key: "title", value: .string(title)),
            JSONMember(key: "status", value: .number(JSONNumber(status))),
            JSONMember(key: "detail", value: .string(detail)),
            JSONMember(key: "code", value: .string(code)),
        ]
        members += extra
        return .object(JSONObject(members))
    }
}

extension LiveProblem {
    /// Firebase sent `cancel`: the location can no longer be read with the stream's credential.
    static func cancelled(reason: String?) -> LiveProblem {
        LiveProblem(
            status: 502, code: "upstream-stream-cancelled", title: "Upstream stream cancelled",
            detail: "the upstream cancelled the stream" + because(reason))
    }

    /// Firebase sent `auth_revoked`: the stream's credential expired or was revoked.
    static func authRevoked(reason: String?) -> LiveProblem {
        LiveProblem(
            status: 502, code: "upstream-auth-revoked", title: "Upstream credential revoked",
            detail: "the upstream ended the stream: its credential is no longer valid" + because(reason))
    }

    /// An event the document cannot take (`FirebaseDocument.Failure`).
    static func notApplicable(_ failure: FirebaseDocument.Failure) -> LiveProblem {
        switch failure {
        case .pathNotApplicable(let path):
            let pointer = JSONPointer(tokens: path).description
            return LiveProblem(
                status: 502, code: "upstream-stream-too-deep", title: "Upstream stream event not applicable",
                detail: "an event at \(pointer.isEmpty ? "/" : pointer) would nest the document deeper than "
                    + "\(FirebaseDocument.maxDepth) levels",
                extra: [JSONMember(key: "pointer", value: .string(pointer))])
        }
    }

    private static func because(_ reason: String?) -> String {
        reason.map { " (\($0))" } ?? ""
    }
}
