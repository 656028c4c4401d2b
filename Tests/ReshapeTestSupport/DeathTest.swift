import Foundation
import XCTest

/// Death tests: a transition that must trap runs in a child process (this same test binary,
/// filtered to the one test, with `RESHAPE_DEATH_TEST` set), and the parent checks that the
/// child died by a signal with the expected words on its standard error.
///
///     func testAnswerTwiceTraps() throws {
///         try expectTrap(containing: "state 'answered'") { lifecycle.answerAgain() }
///     }
public enum DeathTest {
    public static let variable = "RESHAPE_DEATH_TEST"

    /// True in the child: the test body should run the transition that traps.
    public static var isChild: Bool { ProcessInfo.processInfo.environment[variable] != nil }
}

extension XCTestCase {
    /// In the parent, runs this test again in a child and asserts it trapped with `message` in
    /// its standard error; in the child, runs `body`, which must not return.
    public func expectTrap(
        containing message: String, testName: String = #function, file: StaticString = #filePath,
        line: UInt = #line, _ body: () throws -> Void
    ) throws {
        if DeathTest.isChild {
            try body()
            XCTFail("the transition did not trap", file: file, line: line)
            return
        }
        let typeName = String(reflecting: type(of: self))  // "ReshapeProxyTests.SomeTests": the test's own module
        let test = typeName + "/" + testName.replacingOccurrences(of: "()", with: "")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = [test]
        var environment = ProcessInfo.processInfo.environment
        environment[DeathTest.variable] = "1"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(
            process.terminationReason, .uncaughtSignal,
            "the child exited (\(process.terminationStatus)) instead of trapping: \(stderr.suffix(600))",
            file: file, line: line)
        XCTAssertTrue(
            stderr.contains(message), "the trap's message lacks '\(message)': \(stderr.suffix(600))",
            file: file, line: line)
    }
}
