/// Stops the process on an event that a state machine's state cannot receive: a caller broke the
/// machine's contract, and going on would send a subscriber something wrong. The message names
/// the event and the state. `fatalError`, not `preconditionFailure`: optimized builds drop a
/// precondition's message. (ReshapeProxy has the same helper; this module depends on no other.)
func impossible(_ event: String, in state: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("impossible event '\(event)' in state '\(state)'", file: file, line: line)
}
