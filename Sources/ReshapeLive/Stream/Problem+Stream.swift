import ReshapeJSON
import ReshapeProblem

/// The problems a stream's own events end it with (docs/errors.md).
extension Problem {
    /// Firebase sent `cancel`: the location can no longer be read with the stream's credential.
    static func cancelled(reason: String?) -> Problem {
        Problem(
            status: 502, code: "upstream-stream-cancelled", title: "Upstream stream cancelled",
            detail: "the upstream cancelled the stream" + because(reason))
    }

    /// Firebase sent `auth_revoked`: the stream's credential expired or was revoked.
    static func authRevoked(reason: String?) -> Problem {
        Problem(
            status: 502, code: "upstream-auth-revoked", title: "Upstream credential revoked",
            detail: "the upstream ended the stream: its credential is no longer valid" + because(reason))
    }

    /// An event the document cannot take (`FirebaseDocument.Failure`).
    static func notApplicable(_ failure: FirebaseDocument.Failure) -> Problem {
        switch failure {
        case .pathNotApplicable(let path):
            let pointer = JSONPointer(tokens: path).description
            return Problem(
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
