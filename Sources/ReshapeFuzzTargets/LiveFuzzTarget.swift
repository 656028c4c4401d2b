import ReshapeJSON
import ReshapeLive

// The input is an upstream's `text/event-stream` as Firebase would send it (any bytes), after a
// first byte that chooses how it is cut into chunks. Every event the parser dispatches goes
// through `FirebaseEvent` and `FirebaseDocument`, as a live route's stream will. Properties:
// - the parser dispatches the same events, with the same last event ID, however the bytes are
//   cut (whole, and in chunks of 1 to 16 bytes);
// - for every change of the document, the patch `JSONPatch.difference` makes from the previous
//   value to the new one, applied to the previous value, gives the new value's exact bytes;
// - nothing traps on any input: a malformed event is an error, not a crash.

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzLive(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let first = input.first else { return 0 }
    let stream = Array(input.dropFirst())
    let chunk = Int(first % 16) + 1

    var whole = ServerSentEventParser(maxEventBytes: 4096)
    let wholeEvents = (try? whole.feed(stream)) ?? nil
    var chunked = ServerSentEventParser(maxEventBytes: 4096)
    var chunkedEvents: [ServerSentEvent]? = []
    var start = 0
    while start < stream.count, chunkedEvents != nil {
        let end = min(stream.count, start + chunk)
        if let events = try? chunked.feed(Array(stream[start..<end])) {
            chunkedEvents! += events
        } else {
            chunkedEvents = nil
        }
        start = end
    }
    // A stream over the bound fails either way; one within it gives the same events.
    require(
        (wholeEvents == nil) == (chunkedEvents == nil),
        "the bound tripped in one reading only (chunks of \(chunk)): \(describe(stream))")
    guard let events = wholeEvents, let chunkedEvents else { return 0 }
    require(
        events == chunkedEvents && whole.lastEventID == chunked.lastEventID,
        "chunks of \(chunk) gave other events than the whole stream: \(describe(stream))")

    var document = FirebaseDocument()
    for event in events {
        guard let firebase = try? FirebaseEvent(event) else { continue }
        let before = document.value
        guard let change = try? document.apply(firebase), change != .none else { continue }
        let patch = JSONPatch.difference(from: before, to: document.value)
        guard let patched = try? patch.applied(to: before) else {
            require(false, "the patch from \(before.serializedString()) does not apply to it")
            return 0
        }
        require(
            patched.serialized() == document.value.serialized(),
            "patching \(before.serializedString()) gave \(patched.serializedString()), "
                + "not \(document.value.serializedString())")
    }
    return 0
}
