import ReshapeJSON

/// One event of the Firebase Realtime Database REST stream (`Accept: text/event-stream` on a
/// `.json` URL): https://firebase.google.com/docs/reference/rest/database#section-streaming
///
/// Equality is `JSON`'s (by meaning, not spelling): enough for tests, not for change detection.
public enum FirebaseEvent: Sendable, Equatable {
    /// Set the value at `path` (relative to the streamed location) to `data`; `null` deletes it.
    case put(path: [String], data: JSON)
    /// Set each named child of the value at `path` to its value; a `null` deletes that child.
    case patch(path: [String], data: JSONObject)
    /// The server is alive; nothing changed.
    case keepAlive
    /// The stream ended because the rules no longer allow reading the location. Firebase sends
    /// `null`; `reason` keeps any text it sends instead, for the log.
    case cancel(reason: String?)
    /// The credential expired or was revoked; the stream ends. `reason` is the string Firebase
    /// sends (e.g. "credential is no longer valid").
    case authRevoked(reason: String?)

    /// Why an SSE event is not a Firebase event.
    public enum Failure: Error, Equatable, Sendable {
        /// `put` or `patch` whose data is not JSON, or not `{"path": "/...", "data": ...}`;
        /// `message` says what was wrong.
        case malformed(event: String, message: String)
        /// An event name Firebase does not send.
        case unknownEvent(String)
    }

    /// The Firebase event an SSE event carries.
    ///
    /// A path is split on "/" with empty tokens ignored ("/" and "" are the location itself).
    /// Tokens are used as they are: Firebase keys cannot hold "/", and the stream does not
    /// percent-encode them. `keep-alive` is accepted whatever its data; `cancel` and
    /// `auth_revoked` never fail, since the stream is ending anyway.
    public init(_ event: ServerSentEvent) throws(Failure) {
        switch event.name {
        case "put":
            let (path, data) = try Self.pathAndData(of: event)
            self = .put(path: path, data: data)
        case "patch":
            let (path, data) = try Self.pathAndData(of: event)
            guard case .object(let members) = data else {
                throw .malformed(event: event.name, message: "\"data\" of a patch is not an object")
            }
            self = .patch(path: path, data: members)
        case "keep-alive":
            self = .keepAlive
        case "cancel":
            self = .cancel(reason: Self.reason(in: event.data))
        case "auth_revoked":
            self = .authRevoked(reason: Self.reason(in: event.data))
        default:
            throw .unknownEvent(event.name)
        }
    }

    /// The location tokens of a Firebase path: "/a/b" → ["a", "b"]; "/" → [].
    public static func pathTokens(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    private static func pathAndData(of event: ServerSentEvent) throws(Failure) -> ([String], JSON) {
        let parsed: JSON
        do {
            parsed = try JSON.parse(Array(event.data.utf8))
        } catch {
            throw .malformed(event: event.name, message: "data is not JSON: \(error)")
        }
        guard case .object(let envelope) = parsed else {
            throw .malformed(event: event.name, message: "data is not an object with \"path\" and \"data\"")
        }
        guard case .string(let path)? = envelope["path"] else {
            throw .malformed(event: event.name, message: "\"path\" is missing or not a string")
        }
        guard let data = envelope["data"] else {
            throw .malformed(event: event.name, message: "\"data\" is missing")
        }
        return (pathTokens(path), data)
    }

    /// A JSON string's text; nil for `null` or nothing; otherwise the data as it came.
    private static func reason(in data: String) -> String? {
        switch try? JSON(parsing: data) {
        case .string(let text)?: return text
        case .null?: return nil
        case nil where data.isEmpty: return nil
        default: return data
        }
    }
}
