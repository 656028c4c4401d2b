/// Stops the process on an event that a state machine's state cannot receive: it means a caller
/// broke the machine's contract, and going on would answer a client wrongly. The message names
/// the event and the state, so a crash report says which transition was attempted. `fatalError`,
/// not `preconditionFailure`: optimized builds drop a precondition's message.
package func impossible(_ event: String, in state: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("impossible event '\(event)' in state '\(state)'", file: file, line: line)
}
