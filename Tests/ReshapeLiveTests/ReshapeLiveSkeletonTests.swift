import ReshapeJSON
import XCTest

@testable import ReshapeLive

final class ReshapeLiveSkeletonTests: XCTestCase {
    func testAnEmptyPatchIsEmpty() {
        XCTAssertTrue(JSONPatch().isEmpty)
    }
}
