import ReshapeStateMachines
import ReshapeTestSupport
import XCTest

@testable import ReshapeProxy

/// The death-test harness itself: a trap is seen as one, and its message is read.
final class DeathTestTests: XCTestCase {
    func testImpossibleTrapsNamingEventAndState() throws {
        try expectTrap(containing: "impossible event 'probe' in state 'idle'") {
            impossible("probe", in: "idle")
        }
    }
}
