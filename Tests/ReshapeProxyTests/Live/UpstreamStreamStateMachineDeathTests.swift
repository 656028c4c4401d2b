import ReshapeLive
import ReshapeProblem
import XCTest

@testable import ReshapeProxy

/// The events `UpstreamStreamStateMachine` cannot receive in a state: a driver that sends them
/// broke the machine's contract, and the process stops naming event and state. Each test runs
/// in a child process (DeathTest.swift).
final class UpstreamStreamStateMachineDeathTests: XCTestCase {
    typealias Machine = UpstreamStreamStateMachine

    private let dropped = UpstreamResult.failure(.transfer, message: "the connection dropped")

    private func reconnecting() -> Machine {
        var machine = UpstreamStreamStateMachineTests.connected()
        _ = machine.transferEnded(dropped, now: 1, hasSubscribers: true)
        return machine
    }

    func testOpeningTwiceTraps() throws {
        try expectTrap(containing: "impossible event 'open' in state 'connected'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            _ = machine.open()
        }
    }

    func testATransferEndWhileWaitingToReconnectTraps() throws {
        try expectTrap(containing: "impossible event 'transferEnded' in state 'reconnecting'") {
            var machine = reconnecting()
            _ = machine.transferEnded(dropped, now: 2, hasSubscribers: true)
        }
    }

    func testAReconnectWhileConnectedTraps() throws {
        try expectTrap(containing: "impossible event 'reconnectDue' in state 'connected'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            _ = machine.reconnectDue()
        }
    }

    func testAnEventWhileClosingTraps() throws {
        try expectTrap(containing: "impossible event 'ended' in state 'ending'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            let problem = Problem.streamInvalid("bad", context: [])
            _ = machine.ended(with: problem)
            _ = machine.ended(with: problem)
        }
    }

    func testJoiningAStreamThatIsOverTraps() throws {
        try expectTrap(containing: "impossible event 'subscriberJoined' in state 'ending'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            _ = machine.ended(with: .streamInvalid("bad", context: []))
            _ = machine.subscriberJoined()
        }
    }

    func testAKeepAliveAfterTheCloseTraps() throws {
        try expectTrap(containing: "impossible event 'keepAliveDue' in state 'closed'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            _ = machine.close()
            _ = machine.keepAliveDue()
        }
    }

    func testAnIdleCloseThatWasNotStartedTraps() throws {
        try expectTrap(containing: "impossible event 'idleCloseDue' in state 'connected without an idle close'") {
            var machine = UpstreamStreamStateMachineTests.connected()
            _ = machine.idleCloseDue(hasSubscribers: false)
        }
    }

    func testACloseOnTheNextTurnThatNothingAskedForTraps() throws {
        try expectTrap(containing: "impossible event 'closeDue' in state 'reconnecting'") {
            var machine = reconnecting()
            _ = machine.closeDue()
        }
    }

    func testALeaveBeforeTheOpenTraps() throws {
        try expectTrap(containing: "impossible event 'subscriberLeft' in state 'unopened'") {
            var machine = Machine(context: [])
            _ = machine.subscriberJoined()
            _ = machine.subscriberLeft(hasSubscribers: false)
        }
    }

    func testClosingWhileTheTransferStartsTraps() throws {
        try expectTrap(containing: "impossible event 'close' in state 'connecting'") {
            var machine = Machine(context: [])
            _ = machine.open()
            _ = machine.close()
        }
    }
}
