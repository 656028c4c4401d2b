/// Stops the process on an event that a state machine's state cannot receive: a caller broke the
/// machine's contract, and going on would answer something wrong. The message names the event
/// and the state. `fatalError`, not `preconditionFailure`: optimized builds drop a
/// precondition's message. Every machine of the package traps through this one function.
package func impossible(
    _ event: String, in state: String, file: StaticString = #fileID, line: UInt = #line
) -> Never {
    fatalError("impossible event '\(event)' in state '\(state)'", file: file, line: line)
}
