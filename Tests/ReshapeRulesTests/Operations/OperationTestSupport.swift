import ReshapeJSON
import XCTest

@testable import ReshapeRules

// Shared helpers: operations are written as the rule file would write them (as JSON),
// compiled through the catalog, and run on parsed documents.

func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSON {
    do {
        return try JSON(parsing: text)
    } catch {
        XCTFail("bad test JSON: \(error) in \(text)", file: file, line: line)
        return .null
    }
}

func compileStep(_ step: String, parameters: Set<String> = [], types: OperationCompileContext? = nil) throws
    -> any TransformOperation
{
    let context = types ?? OperationCompileContext(parameterNames: parameters)
    return try OperationCatalog.compile(step: json(step), context: context)
}

/// Compiles `step`, runs it on `input`, and returns the result and the drops.
///
/// Every run goes both ways the pipeline can run: on the tree (`JSON`) and on the tape of the
/// input text as written (what the server does), and fails the test when they differ in
/// output bytes, drops or error. So every operation test is also a test of the tape path.
func transform(
    _ step: String, on input: String, parameters: [String: String] = [:],
    context: OperationCompileContext? = nil, queryOrder: FirebaseQuery.Order = .key,
    file: StaticString = #filePath, line: UInt = #line
) throws -> PipelineOutput {
    let compileContext = context ?? OperationCompileContext(parameterNames: Set(parameters.keys))
    let pipeline = try OperationCatalog.compile(steps: json("[\(step)]"), context: compileContext)
    return try runBothWays(pipeline, on: input, parameters: parameters, queryOrder: queryOrder, file: file, line: line)
}

/// Runs `pipeline` on the tree and on the tape of `input`; asserts they agree; returns the tape's result.
func runBothWays(
    _ pipeline: Pipeline, on input: String, parameters: [String: String] = [:],
    queryOrder: FirebaseQuery.Order = .key,
    file: StaticString = #filePath, line: UInt = #line
) throws -> PipelineOutput {
    let tree = Result { () throws(PipelineError) in
        try pipeline.run(json(input), parameters: parameters, queryOrder: queryOrder)
    }
    let tape = Result { () throws(PipelineError) in
        try pipeline.run(try! JSONTape.parse(Array(input.utf8)), parameters: parameters, queryOrder: queryOrder)
    }
    switch (tree, tape) {
    case (.success(let fromTree), .success(let fromTape)):
        XCTAssertEqual(
            String(decoding: fromTape.serialized(), as: UTF8.self), fromTree.value.serializedString(),
            "tape and tree outputs differ", file: file, line: line)
        XCTAssertEqual(
            fromTape.value.serializedString(), fromTree.value.serializedString(),
            "the tape output, built as a tree, differs", file: file, line: line)
        XCTAssertEqual(fromTape.dropped, fromTree.dropped, "tape and tree drops differ", file: file, line: line)
    case (.failure(let fromTree), .failure(let fromTape)):
        XCTAssertEqual(fromTape, fromTree, "tape and tree errors differ", file: file, line: line)
    default:
        XCTFail("tape and tree disagree: tree \(tree), tape \(tape)", file: file, line: line)
    }
    return try tape.get()
}

/// The configuration error compiling `step` produces, or a test failure.
func configError(
    _ step: String, parameters: Set<String> = [], context: OperationCompileContext? = nil,
    file: StaticString = #filePath, line: UInt = #line
) -> OperationConfigError? {
    do {
        _ = try OperationCatalog.compile(
            step: json(step), context: context ?? OperationCompileContext(parameterNames: parameters))
        XCTFail("expected a configuration error for \(step)", file: file, line: line)
    } catch {
        return error
    }
    return nil
}

/// The run-time error of `step` on `input`, or a test failure.
func runError(
    _ step: String, on input: String, context: OperationCompileContext? = nil,
    file: StaticString = #filePath, line: UInt = #line
) -> PipelineError? {
    do {
        let output = try transform(step, on: input, context: context)
        XCTFail("expected a pipeline error, got \(output.value.serializedString())", file: file, line: line)
    } catch let error as PipelineError {
        return error
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
    return nil
}

/// Compares by serialized bytes, so member order and number spelling count.
func assertJSON(_ actual: JSON, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.serializedString(), json(expected).serializedString(), file: file, line: line)
}
