import ReshapeJSON

/// One event of the Firebase Realtime Database REST stream (`Accept: text/event-stream` on a
/// `.json` URL): https://firebase.google.com/docs/reference/rest/database#section-streaming
public enum FirebaseEvent: Sendable {
    /// Set the value at `path` (relative to the streamed location) to `data`; `null` deletes it.
    case put(path: [String], data: JSON)
    /// Set each named child of the value at `path` to its value; a `null` deletes that child.
    case patch(path: [String], data: JSONObject)
    /// The server is alive; nothing changed.
    case keepAlive
    /// The stream ended because the rules no longer allow reading the location.
    case cancel
    /// The credential expired or was revoked; the stream ends.
    case authRevoked

    /// Why an SSE event is not a Firebase event.
    public enum Failure: Error, Equatable, Sendable {
        /// `put` or `patch` whose data is not JSON, or not `{"path": "/...", "data": ...}`;
        /// `message` says what was wrong.
        case malformed(event: String, message: String)
        /// An event name Firebase does not send.
        case unknownEvent(String)
    }

    /// The Firebase event an SSE event carries.
    public init(_ event: ServerSentEvent) throws(Failure) {
        fatalError("FirebaseEvent.init: not built yet")
    }
}
