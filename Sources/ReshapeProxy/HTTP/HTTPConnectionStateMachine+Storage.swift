extension HTTPConnectionStateMachine {
    /// Between requests with every answer written: nothing of a request is held, and the
    /// connection may let go of what its requests used (`releaseStorage`).
    package var holdsNoRequest: Bool {
        guard slots.isEmpty else { return false }
        switch state {
        case .awaitingFirstRequest, .idle: return true
        case .readingHead, .readingBody, .readingDone, .streaming, .closed: return false
        }
    }

    /// The queue of answers owed is empty: its storage goes rather than stay with a connection
    /// that may idle for long.
    package mutating func releaseStorage() {
        if slots.isEmpty { slots = [] }
    }
}
