import ReshapeRules
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// The events `HTTPConnectionStateMachine` cannot receive in a state: a driver or parser that
/// sends them broke the machine's contract, and the process stops naming event and state.
/// Each test runs in a child process (DeathTest.swift).
final class HTTPConnectionStateMachineDeathTests: XCTestCase {
    typealias Machine = HTTPConnectionStateMachine

    private let get = HTTPRequest(method: "GET", target: "/a")

    private func idle(answered: Bool = true) -> Machine {
        var machine = Machine(limits: ServerLimits())
        _ = machine.handle(.messageBegan)
        _ = machine.handle(.headersComplete(RequestHead()))
        _ = machine.handle(.messageComplete(get))
        if answered { _ = machine.handle(.responseReady(id: 0, .json(200, Array("1".utf8)))) }
        return machine
    }

    private func readingHead() -> Machine {
        var machine = Machine(limits: ServerLimits())
        _ = machine.handle(.messageBegan)
        return machine
    }

    private func readingBody() -> Machine {
        var machine = readingHead()
        _ = machine.handle(.headersComplete(RequestHead(contentLength: 3)))
        return machine
    }

    func testHeadBytesBeforeAnyMessageTrap() throws {
        try expectTrap(containing: "impossible event 'urlBytes' in state 'awaitingFirstRequest'") {
            var machine = Machine(limits: ServerLimits())
            _ = machine.handle(.urlBytes(1))
        }
    }

    func testAHeaderFieldBetweenRequestsTraps() throws {
        try expectTrap(containing: "impossible event 'headerBytes' in state 'idle'") {
            var machine = idle()
            _ = machine.handle(.headerBytes(fields: 1, bytes: 1))
        }
    }

    func testHeadersCompleteWithNoMessageBegunTraps() throws {
        try expectTrap(containing: "impossible event 'headersComplete' in state 'idle'") {
            var machine = idle()
            _ = machine.handle(.headersComplete(RequestHead()))
        }
    }

    func testASecondHeadersCompleteTraps() throws {
        try expectTrap(containing: "impossible event 'headersComplete' in state 'readingBody'") {
            var machine = readingBody()
            _ = machine.handle(.headersComplete(RequestHead()))
        }
    }

    func testTargetBytesInABodyTrap() throws {
        try expectTrap(containing: "impossible event 'urlBytes' in state 'readingBody'") {
            var machine = readingBody()
            _ = machine.handle(.urlBytes(1))
        }
    }

    func testBodyBytesBeforeTheHeadEndsTrap() throws {
        try expectTrap(containing: "impossible event 'bodyBytes' in state 'readingHead'") {
            var machine = readingHead()
            _ = machine.handle(.bodyBytes(1))
        }
    }

    func testBodyBytesBetweenRequestsTrap() throws {
        try expectTrap(containing: "impossible event 'bodyBytes' in state 'idle'") {
            var machine = idle()
            _ = machine.handle(.bodyBytes(1))
        }
    }

    func testMessageCompleteWithNoMessageBegunTraps() throws {
        try expectTrap(containing: "impossible event 'messageComplete' in state 'awaitingFirstRequest'") {
            var machine = Machine(limits: ServerLimits())
            _ = machine.handle(.messageComplete(get))
        }
    }

    func testMessageCompleteBeforeTheHeadEndsTraps() throws {
        try expectTrap(containing: "impossible event 'messageComplete' in state 'readingHead'") {
            var machine = readingHead()
            _ = machine.handle(.messageComplete(get))
        }
    }

    func testAMessageBeginningInsideAHeadTraps() throws {
        try expectTrap(containing: "impossible event 'messageBegan' in state 'readingHead'") {
            var machine = readingHead()
            _ = machine.handle(.messageBegan)
        }
    }

    func testAMessageBeginningInsideABodyTraps() throws {
        try expectTrap(containing: "impossible event 'messageBegan' in state 'readingBody'") {
            var machine = readingBody()
            _ = machine.handle(.messageBegan)
        }
    }

    func testAnAnswerToARequestNeverDispatchedTraps() throws {
        try expectTrap(containing: "impossible event 'responseReady(id: 7)' in state 'idle'") {
            var machine = idle()
            _ = machine.handle(.responseReady(id: 7, .json(200, [])))
        }
    }

    func testASecondAnswerToARequestTraps() throws {
        try expectTrap(containing: "impossible event 'responseReady(id: 1)' in state 'idle'") {
            var machine = idle(answered: false)
            _ = machine.handle(.messageBegan)
            _ = machine.handle(.headersComplete(RequestHead()))
            _ = machine.handle(.messageComplete(get))
            // Request 1's answer waits behind request 0's; a second one for it is a driver's bug.
            _ = machine.handle(.responseReady(id: 1, .json(200, [])))
            _ = machine.handle(.responseReady(id: 1, .json(200, [])))
        }
    }

    func testARefusalAfterARequestTraps() throws {
        try expectTrap(containing: "impossible event 'refused' in state 'idle'") {
            var machine = idle()
            _ = machine.refused()
        }
    }

    func testOpenedTwiceTraps() throws {
        try expectTrap(containing: "impossible event 'opened' in state 'idle'") {
            var machine = idle()
            _ = machine.opened()
        }
    }
}
