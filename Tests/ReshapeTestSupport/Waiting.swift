import Foundation

/// Waits until `condition` holds, checking it again and again until `timeout` seconds have
/// passed; returns whether it held. For what happens in another process (a server, the demo
/// upstream, a receiver) that cannot wake the test when it is done. A test asserts after it
/// as it would without the wait, so that a condition that never comes still fails the test,
/// with the test's own message:
///
///     waitUntil { try upstream.entries("/hang").count == 2 }
///     XCTAssertEqual(try upstream.entries("/hang").count, 2)
@discardableResult
public func waitUntil(timeout: TimeInterval = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        // The interval between two checks: each may be a request to a child process.
        Thread.sleep(forTimeInterval: 0.02)
    }
}
