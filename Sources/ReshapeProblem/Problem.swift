import ReshapeJSON

/// An RFC 9457 problem: the problem+json body of an error answer, and the `data` of a live
/// stream's `event: error`, the same members in the same order (`type` derived from `code`,
/// then `title`, `status`, `detail`, `code`, then the extras). `code` is Reshape's stable name
/// for the error, catalogued in docs/errors.md.
public struct Problem: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var title: String
    public var detail: String
    /// Extra members after `code`: `route`, `upstream`, `pointer`, `line`, `column`, `errors`, ...
    public var extra: [JSONMember]
    /// Headers an answer with this problem carries besides it (`Allow` on 405, `Retry-After`);
    /// not part of the body, so a stream's error event has none.
    public var extraHeaders: [Header] = []

    /// One header field of `extraHeaders`.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, code: String, title: String, detail: String, extra: [JSONMember] = []) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.extra = extra
    }

    /// `body`'s text, written member by member without building the tree: what every error
    /// answer and every live stream's `event: error` carries (the same bytes as
    /// `body.serialized()`, which tests compare it with).
    public var serializedBody: [UInt8] {
        JSONTextWriter.bytes(capacity: 192 + title.utf8.count + detail.utf8.count + 2 * code.utf8.count) { out in
            out.appendRaw("{\"type\":")
            out.appendString("https://reshape.dev/problems/" + code)
            out.appendRaw(",\"title\":")
            out.appendString(title)
            out.appendRaw(",\"status\":")
            out.appendInteger(status)
            out.appendRaw(",\"detail\":")
            out.appendString(detail)
            out.appendRaw(",\"code\":")
            out.appendString(code)
            for member in extra {
                out.appendRaw(",")
                out.appendString(member.key)
                out.appendRaw(":")
                out.append(member.value)
            }
            out.appendRaw("}")
        }
    }

    /// The problem as JSON.
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
