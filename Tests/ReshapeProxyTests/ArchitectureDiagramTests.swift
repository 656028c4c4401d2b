import Foundation
import XCTest

@testable import ReshapeProxy

/// docs/architecture.md draws each state machine as a Mermaid `stateDiagram-v2`; its states must
/// be exactly the enum's cases, so the picture cannot go stale.
final class ArchitectureDiagramTests: XCTestCase {
    private static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)) ?? ""
    }()

    /// The states of the diagram that follows `<!-- diagram: NAME -->`.
    private func diagramStates(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Set<String>
    {
        let marker = "<!-- diagram: \(name) -->"
        let document = Self.document
        let start = try XCTUnwrap(
            document.range(of: marker), "docs/architecture.md has no \(marker)", file: file, line: line)
        let rest = document[start.upperBound...]
        let open = try XCTUnwrap(
            rest.range(of: "```mermaid\n"), "no mermaid block after \(marker)", file: file, line: line)
        let close = try XCTUnwrap(
            rest[open.upperBound...].range(of: "```"), "unclosed mermaid block", file: file, line: line)
        let lines = rest[open.upperBound..<close.lowerBound].split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        XCTAssertEqual(lines.first, "stateDiagram-v2", file: file, line: line)
        var states = Set<String>()
        for line in lines.dropFirst() where line.contains("-->") {
            let transition = line.split(separator: ":", maxSplits: 1)[0]
            for end in transition.components(separatedBy: "-->") {
                let state = end.trimmingCharacters(in: .whitespaces)
                if state != "[*]" { states.insert(state) }
            }
        }
        return states
    }

    func testTheHTTPConnectionDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(
            try diagramStates("HTTPConnectionStateMachine"),
            Set(HTTPConnectionStateMachine.StateName.allCases.map(\.rawValue)))
    }

    func testTheCircuitBreakerDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(try diagramStates("CircuitBreaker"), Set(CircuitBreaker.StateName.allCases.map(\.rawValue)))
    }

    func testTheUpstreamStreamDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(
            try diagramStates("UpstreamStreamStateMachine"),
            Set(UpstreamStreamStateMachine.StateName.allCases.map(\.rawValue)))
    }

    func testTheRequestLifecycleDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(try diagramStates("RequestLifecycle"), Set(RequestLifecycle.StateName.allCases.map(\.rawValue)))
    }

    func testTheRouteExchangeDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(try diagramStates("RouteExchange"), Set(RouteExchange.StateName.allCases.map(\.rawValue)))
    }

    func testTheFetchAdmissionDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(
            try diagramStates("FetchAdmission"), Set(FetchAdmission<Int>.StateName.allCases.map(\.rawValue)))
    }

    func testTheInflightBudgetDiagramDrawsEveryStateAndNoOther() throws {
        XCTAssertEqual(
            try diagramStates("InflightBudget"), Set(InflightBudget<Int>.StateName.allCases.map(\.rawValue)))
    }
}
