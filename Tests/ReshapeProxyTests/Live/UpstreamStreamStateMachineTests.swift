import ReshapeJSON
import ReshapeLive
import ReshapeProblem
import XCTest

@testable import ReshapeProxy

/// `UpstreamStreamStateMachine` with times passed in and the jitter drawn from a fixed
/// generator: the backoff, its reset once a transfer lasted, the ends for good, the idle
/// close and the keep-alive, without sockets or a clock.
final class UpstreamStreamStateMachineTests: XCTestCase {
    typealias Machine = UpstreamStreamStateMachine

    static let context = [JSONMember(key: "route", value: .string("users"))]
    private let shuttingDown = Problem.shuttingDown(context: context)
    private let dropped = UpstreamResult.failure(.transfer, message: "the connection dropped")

    /// A stream whose transfer opened at `now`; the jitter draws the ceiling unless `random`.
    static func connected(now: Double = 0, random: any RandomNumberGenerator = FixedRandom.ceiling) -> Machine {
        var machine = Machine(context: context, random: random)
        _ = machine.open()
        _ = machine.transferStarted(now: now)
        return machine
    }

    /// The delay the failure that `actions` answer asks to reconnect after.
    private func reconnectDelay(_ actions: [Machine.Action], file: StaticString = #filePath, line: UInt = #line)
        -> Int?
    {
        for case .startReconnectTimer(let milliseconds) in actions { return milliseconds }
        XCTFail("no reconnect in \(actions)", file: file, line: line)
        return nil
    }

    func testOpeningStartsTheKeepAliveThenTheTransfer() {
        var machine = Machine(context: Self.context)
        XCTAssertEqual(machine.stateName, "unopened")
        XCTAssertEqual(machine.open(), [.startKeepAliveTimer, .startTransfer])
        XCTAssertEqual(machine.stateName, "connecting")
        XCTAssertFalse(machine.isReceiving)
        XCTAssertEqual(machine.transferStarted(now: 5), [.upstreamStreamsChanged(by: 1)])
        XCTAssertEqual(machine.state, .connected(since: 5, failures: 0))
        XCTAssertTrue(machine.isReceiving)
        XCTAssertFalse(machine.isOver)
    }

    func testATransientEndReconnectsAfterABackoffThatDoublesUpToTenSeconds() {
        var machine = Self.connected()
        var delays: [Int] = []
        for second in 1...9 {
            let actions = machine.transferEnded(dropped, now: Double(second), hasSubscribers: true)
            XCTAssertEqual(actions.first, .upstreamStreamsChanged(by: -1))
            XCTAssertEqual(actions.dropFirst().first, .resetStream, "the next root put is a fresh snapshot")
            delays += reconnectDelay(actions).map { [$0] } ?? []
            XCTAssertEqual(machine.state, .reconnecting(failures: second))
            XCTAssertFalse(machine.isReceiving)
            XCTAssertEqual(machine.reconnectDue(), [.startTransfer])
            XCTAssertEqual(machine.transferStarted(now: Double(second)), [.upstreamStreamsChanged(by: 1)])
        }
        XCTAssertEqual(delays, [250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000])
    }

    func testTheFifthFailureInARowIsLoggedOnce() {
        var run = Self.connected()
        var logged: [Int] = []
        for failure in 1...12 {
            let actions = run.transferEnded(dropped, now: 1, hasSubscribers: true)
            if actions.contains(.logKeepsFailing) { logged.append(failure) }
            _ = run.reconnectDue()
            _ = run.transferStarted(now: 1)
        }
        XCTAssertEqual(logged, [5])
        var machine = Self.connected()
        for _ in 1...4 {
            _ = machine.transferEnded(dropped, now: 1, hasSubscribers: true)
            _ = machine.reconnectDue()
            _ = machine.transferStarted(now: 1)
        }
        XCTAssertEqual(
            machine.transferEnded(dropped, now: 2, hasSubscribers: true),
            [.upstreamStreamsChanged(by: -1), .resetStream, .logKeepsFailing, .startReconnectTimer(milliseconds: 4000)])
    }

    func testTheJitterIsDrawnBetweenHalfTheCeilingAndTheCeiling() {
        var least = Self.connected(random: FixedRandom.least)
        XCTAssertEqual(reconnectDelay(least.transferEnded(dropped, now: 1, hasSubscribers: true)), 125)
        _ = least.reconnectDue()
        // Failing to start counts as a failure too.
        XCTAssertEqual(reconnectDelay(least.transferNotStarted(hasSubscribers: true)), 250)

        var seeded = Self.connected(random: TraceRandom(seed: 7))
        var seen = Set<Int>()
        for _ in 0..<200 {
            let delay = reconnectDelay(seeded.transferEnded(dropped, now: 1, hasSubscribers: true)) ?? 0
            XCTAssertTrue((125...250).contains(delay), "\(delay)")
            seen.insert(delay)
            // Back to a first failure each time: the transfer lasted the stable time.
            _ = seeded.reconnectDue()
            _ = seeded.transferStarted(now: -Machine.stableSeconds)
        }
        XCTAssertGreaterThan(seen.count, 50, "the delays are spread")
    }

    func testATransferThatLastedTheStableTimeStartsTheBackoffAgain() {
        var machine = Self.connected(now: 0)
        for _ in 1...3 {
            _ = machine.transferEnded(dropped, now: 1, hasSubscribers: true)
            _ = machine.reconnectDue()
            _ = machine.transferStarted(now: 100)
        }
        var short = machine
        // Just short of it: the fourth failure in a row.
        XCTAssertEqual(reconnectDelay(short.transferEnded(dropped, now: 129.9, hasSubscribers: true)), 2000)
        XCTAssertEqual(short.state, .reconnecting(failures: 4))
        XCTAssertEqual(reconnectDelay(machine.transferEnded(dropped, now: 130, hasSubscribers: true)), 250)
        XCTAssertEqual(machine.state, .reconnecting(failures: 1))
    }

    func testAStalledOrCleanlyEndedTransferIsTransient() {
        for result in [
            UpstreamResult.failure(.timeout, message: "no bytes for 60 s"),
            .response(UpstreamResponse(status: 200, contentType: "Text/Event-Stream; charset=utf-8", body: [])),
        ] {
            var machine = Self.connected()
            XCTAssertEqual(reconnectDelay(machine.transferEnded(result, now: 1, hasSubscribers: true)), 250)
            XCTAssertEqual(machine.stateName, "reconnecting")
        }
    }

    func testATransferThatCannotStartRetriesLikeAFailure() {
        var machine = Machine(context: Self.context, random: FixedRandom.ceiling)
        _ = machine.open()
        XCTAssertEqual(
            machine.transferNotStarted(hasSubscribers: true), [.resetStream, .startReconnectTimer(milliseconds: 250)])
        XCTAssertEqual(machine.state, .reconnecting(failures: 1))
        XCTAssertEqual(machine.reconnectDue(), [.startTransfer])
        XCTAssertEqual(machine.transferNotStarted(hasSubscribers: true).last, .startReconnectTimer(milliseconds: 500))
    }

    func testWithNobodyLeftAFailureClosesInsteadOfReconnecting() {
        var machine = Self.connected()
        XCTAssertEqual(
            machine.transferEnded(dropped, now: 1, hasSubscribers: false),
            [
                .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer, .releaseSubscribers(endingWith: shuttingDown),
                .forgetStream,
            ])
        XCTAssertTrue(machine.isClosed)
        var unstarted = Machine(context: Self.context)
        _ = unstarted.open()
        XCTAssertEqual(
            unstarted.transferNotStarted(hasSubscribers: false),
            [.stopKeepAliveTimer, .releaseSubscribers(endingWith: shuttingDown), .forgetStream])
    }

    func testAnAnswerThatIsNotAnEventStreamEndsTheStreamForGood() {
        for (status, type) in [(404, "application/json"), (200, "application/json"), (200, nil), (307, nil)] {
            var machine = Self.connected()
            let result = UpstreamResult.response(UpstreamResponse(status: status, contentType: type, body: []))
            let refused = Problem.streamRefused(status: status, contentType: type, context: Self.context)
            XCTAssertEqual(
                machine.transferEnded(result, now: 1, hasSubscribers: true),
                [
                    .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer, .releaseSubscribers(endingWith: refused),
                    .forgetStream,
                ])
            XCTAssertTrue(machine.isClosed)
        }
    }

    func testAFailingUpstreamOnAReconnectionIsTransientOnceTheStreamHasDelivered() {
        for status in [429, 500, 502, 503, 504] {
            let result = UpstreamResult.response(
                UpstreamResponse(status: status, contentType: "application/json", body: []))
            var delivered = Self.connected()
            delivered.snapshotDelivered()
            let actions = delivered.transferEnded(result, now: 1, hasSubscribers: true)
            XCTAssertEqual(actions.prefix(2), [.upstreamStreamsChanged(by: -1), .resetStream], "\(status)")
            XCTAssertEqual(delivered.state, .reconnecting(failures: 1))
            // And again on the next try: an outage is waited out, not only one bad answer.
            _ = delivered.reconnectDue()
            _ = delivered.transferStarted(now: 2)
            _ = delivered.transferEnded(result, now: 2, hasSubscribers: true)
            XCTAssertEqual(delivered.state, .reconnecting(failures: 2), "\(status)")
            // Before any delivery it is a refusal: the first subscriber learns at once.
            var fresh = Self.connected()
            _ = fresh.transferEnded(result, now: 1, hasSubscribers: true)
            XCTAssertTrue(fresh.isClosed, "\(status)")
        }
        // A refusal stays one whatever came before.
        var revoked = Self.connected()
        let unauthorized = UpstreamResult.response(UpstreamResponse(status: 401, contentType: nil, body: []))
        revoked.snapshotDelivered()
        _ = revoked.transferEnded(unauthorized, now: 1, hasSubscribers: true)
        XCTAssertTrue(revoked.isClosed)
    }

    func testARefusedRedirectEndsTheStreamWithUpstreamRedirectRefused() {
        var machine = Self.connected()
        let result = UpstreamResult.failure(.redirectRefused, message: "redirect to evil.example is not allowed")
        let actions = machine.transferEnded(result, now: 1, hasSubscribers: true)
        XCTAssertEqual(
            actions,
            [
                .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer,
                .releaseSubscribers(
                    endingWith: .redirectRefused("redirect to evil.example is not allowed", context: Self.context)),
                .forgetStream,
            ])
        guard case .releaseSubscribers(let problem) = actions[2] else { return XCTFail("\(actions)") }
        XCTAssertEqual(problem.code, "upstream-redirect-refused")
    }

    func testAnUpstreamEventThatEndsTheStreamEndsItsSubscribersNowAndClosesOnTheNextTurn() {
        let cancelled = Problem(status: 502, code: "upstream-stream-cancelled", title: "t", detail: "d")
        var machine = Self.connected()
        XCTAssertEqual(machine.ended(with: cancelled), [.endSubscribers(cancelled), .closeOnNextTurn])
        XCTAssertTrue(machine.isOver)
        XCTAssertFalse(machine.isClosed)
        XCTAssertFalse(machine.isReceiving, "nothing more is read from it")
        var closedOnTurn = machine
        XCTAssertEqual(
            closedOnTurn.closeDue(),
            [
                .cancelTransfer, .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer,
                .releaseSubscribers(endingWith: cancelled), .forgetStream,
            ])
        XCTAssertEqual(closedOnTurn.closeDue(), [], "a close due after the close")
        // The transfer may end first: nothing to reconnect for, nothing to cancel.
        XCTAssertEqual(
            machine.transferEnded(dropped, now: 1, hasSubscribers: true),
            [
                .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer, .releaseSubscribers(endingWith: cancelled),
                .forgetStream,
            ])
        XCTAssertEqual(machine.closeDue(), [])
    }

    func testDrainingEndsSubscribersWithShuttingDownUnlessAnEventEndedThemFirst() {
        var connected = Self.connected()
        XCTAssertEqual(
            connected.drain(),
            [
                .cancelTransfer, .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer,
                .releaseSubscribers(endingWith: shuttingDown), .forgetStream,
            ])
        var reconnecting = Self.connected()
        _ = reconnecting.transferEnded(dropped, now: 1, hasSubscribers: true)
        XCTAssertEqual(
            reconnecting.drain(),
            [.stopReconnectTimer, .stopKeepAliveTimer, .releaseSubscribers(endingWith: shuttingDown), .forgetStream])
        let invalid = Problem.streamInvalid("an upstream event is too large", context: Self.context)
        var ending = Self.connected()
        _ = ending.ended(with: invalid)
        XCTAssertEqual(ending.drain().dropFirst(3).first, .releaseSubscribers(endingWith: invalid))
        XCTAssertEqual(ending.drain(), [], "closed already")
    }

    func testClosingLetsGoOfWhatItHoldsOnce() {
        var unopened = Machine(context: Self.context)
        XCTAssertEqual(unopened.close(), [.releaseSubscribers(endingWith: shuttingDown), .forgetStream])
        var connected = Self.connected()
        _ = connected.subscriberLeft(hasSubscribers: false)
        XCTAssertEqual(
            connected.close(),
            [
                .cancelTransfer, .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer, .stopIdleCloseTimer,
                .releaseSubscribers(endingWith: shuttingDown), .forgetStream,
            ])
        XCTAssertFalse(connected.idleClosePending)
        XCTAssertEqual(connected.close(), [])
        XCTAssertEqual(connected.subscriberLeft(hasSubscribers: false), [], "let go by the close")
    }

    func testTheLastSubscriberLeavingClosesTheStreamShortlyAfterUnlessOneComesBack() {
        var machine = Self.connected()
        XCTAssertEqual(machine.subscriberLeft(hasSubscribers: true), [])
        XCTAssertEqual(machine.subscriberLeft(hasSubscribers: false), [.startIdleCloseTimer(milliseconds: 500)])
        XCTAssertEqual(machine.subscriberLeft(hasSubscribers: false), [], "one timer")
        XCTAssertEqual(machine.subscriberJoined(), [.stopIdleCloseTimer])
        XCTAssertEqual(machine.subscriberJoined(), [])
        _ = machine.subscriberLeft(hasSubscribers: false)
        // One came back and left again while the timer ran: the timer decides.
        XCTAssertEqual(machine.idleCloseDue(hasSubscribers: true), [])
        XCTAssertEqual(machine.stateName, "connected")
        _ = machine.subscriberLeft(hasSubscribers: false)
        XCTAssertEqual(
            machine.idleCloseDue(hasSubscribers: false),
            [
                .cancelTransfer, .upstreamStreamsChanged(by: -1), .stopKeepAliveTimer,
                .releaseSubscribers(endingWith: shuttingDown), .forgetStream,
            ])
        // While it waits to reconnect, likewise.
        var reconnecting = Self.connected()
        _ = reconnecting.transferEnded(dropped, now: 1, hasSubscribers: true)
        _ = reconnecting.subscriberLeft(hasSubscribers: false)
        XCTAssertEqual(reconnecting.idleCloseDue(hasSubscribers: false).first, .stopReconnectTimer)
    }

    func testTheKeepAliveRunsUntilTheClose() {
        var machine = Self.connected()
        XCTAssertEqual(machine.keepAliveDue(), [.sendKeepAlive, .startKeepAliveTimer])
        _ = machine.transferEnded(dropped, now: 1, hasSubscribers: true)
        XCTAssertEqual(machine.keepAliveDue(), [.sendKeepAlive, .startKeepAliveTimer])
        XCTAssertEqual(machine.close().contains(.stopKeepAliveTimer), true)
    }

    func testStateNamesNameEveryState() {
        var machines = [Machine(context: Self.context)]
        var connecting = Machine(context: Self.context)
        _ = connecting.open()
        machines.append(connecting)
        machines.append(Self.connected())
        var reconnecting = Self.connected()
        _ = reconnecting.transferEnded(dropped, now: 1, hasSubscribers: true)
        machines.append(reconnecting)
        var ending = Self.connected()
        _ = ending.ended(with: shuttingDown)
        machines.append(ending)
        var closed = Self.connected()
        _ = closed.close()
        machines.append(closed)
        XCTAssertEqual(machines.map(\.stateName), Machine.StateName.allCases.map(\.rawValue))
    }
}

/// A generator that always gives the same number: `least` draws the low end of any range,
/// `ceiling` its high end.
struct FixedRandom: RandomNumberGenerator {
    let value: UInt64

    static let least = FixedRandom(value: 1)
    static let ceiling = FixedRandom(value: .max)

    mutating func next() -> UInt64 { value }
}
