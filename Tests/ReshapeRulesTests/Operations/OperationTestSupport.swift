import ReshapeJSON
@testable import ReshapeRules
import XCTest

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

func compileStep(_ step: String, parameters: Set<String> = [], types: OperationCompileContext? = nil) throws -> any TransformOperation {
    let context = types ?? OperationCompileContext(parameterNames: parameters)
    return try OperationCatalog.compile(step: json(step), context: context)
}

/// Compiles `step`, runs it on `input`, and returns the result and the drops.
func transform(_ step: String, on input: String, parameters: [String: String] = [:],
         context: OperationCompileContext? = nil) throws -> PipelineOutput {
    let compileContext = context ?? OperationCompileContext(parameterNames: Set(parameters.keys))
    let pipeline = try OperationCatalog.compile(steps: json("[\(step)]"), context: compileContext)
    return try pipeline.run(json(input), parameters: parameters)
}

/// The configuration error compiling `step` produces, or a test failure.
func configError(_ step: String, parameters: Set<String> = [], context: OperationCompileContext? = nil,
                 file: StaticString = #filePath, line: UInt = #line) -> OperationConfigError? {
    do {
        _ = try OperationCatalog.compile(step: json(step), context: context ?? OperationCompileContext(parameterNames: parameters))
        XCTFail("expected a configuration error for \(step)", file: file, line: line)
    } catch {
        return error
    }
    return nil
}

/// The run-time error of `step` on `input`, or a test failure.
func runError(_ step: String, on input: String, context: OperationCompileContext? = nil,
              file: StaticString = #filePath, line: UInt = #line) -> PipelineError? {
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
