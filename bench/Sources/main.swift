// reshape-bench: throughput of ReshapeJSON (and, once it exists, the whole transform pipeline)
// on a deterministic ~8 MB Firebase-style document, against Foundation's JSONSerialization.
// Run in release: swift run -c release --scratch-path .build-json reshape-bench [runs] [only]
// `only` keeps the measurements whose name contains it (handy under a profiler).
import Foundation
import ReshapeJSON
import ReshapeRules

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 9
let only = CommandLine.arguments.dropFirst(2).first

let document = FirebaseDocument.generate()
let size = document.bytes.count
print("document: \(size) bytes (\(format(Double(size) / 1_048_576, decimals: 2)) MiB), \(document.records) records, \(document.corrupt) corrupt; \(runs) runs each")

// The generated document must be valid and must survive a round trip byte for byte.
let parsed = try JSON.parse(document.bytes)
precondition(parsed.serialized() == document.bytes, "round trip changed the document")

/// Measures and prints one figure unless `only` excludes it.
func run(_ name: String, bytes: Int = size, runs: Int = runs, _ body: () -> Void) -> Throughput? {
    if let only, !name.contains(only) { return nil }
    let result = measure(name, bytes: bytes, runs: runs, body)
    print(result.line())
    return result
}

_ = run("ReshapeJSON parse") { blackHole(try! JSON.parse(document.bytes)) }
_ = run("JSONTape parse") { blackHole(try! JSONTape.parse(document.bytes)) }
// The same parse by each path (docs/benchmarks.md, "The parser's two stages").
_ = run("JSONTape scalar-path parse") { blackHole(try! JSONTape.parse(document.bytes, options: .init(path: .scalar))) }
_ = run("JSONTape portable-index parse") {
    blackHole(try! JSONTape.parse(document.bytes, options: .init(path: .portableIndex)))
}
let prettyDocument = parsed.serialized(pretty: true)
_ = run("JSONTape parse of the pretty document", bytes: prettyDocument.count) {
    blackHole(try! JSONTape.parse(prettyDocument))
}
_ = run("JSONTape scalar-path parse of the pretty document", bytes: prettyDocument.count) {
    blackHole(try! JSONTape.parse(prettyDocument, options: .init(path: .scalar)))
}
let tape = try JSONTape.parse(document.bytes)
_ = run("JSONTape materialize") { blackHole(tape.materialize(tape.root)) }
_ = run("JSONTape serialize (copy)") {
    var out: [UInt8] = []
    tape.serialize(tape.root, into: &out)
    blackHole(out)
}
_ = run("ReshapeJSON serialize (compact)") { blackHole(parsed.serialized()) }
_ = run("ReshapeJSON serialize (pretty)", bytes: parsed.serialized(pretty: true).count) {
    blackHole(parsed.serialized(pretty: true))
}
var reused: [UInt8] = []
_ = run("ReshapeJSON serialize into a reused buffer") {
    reused.removeAll(keepingCapacity: true)
    parsed.serialize(into: &reused)
}
let roundTrip = run("ReshapeJSON parse+serialize") { blackHole(try! JSON.parse(document.bytes).serialized()) }

let (pipeline, pipelineLabel) = try pipelineUnderTest()
let dropped = try pipeline.run(JSONTape.parse(document.bytes)).dropped.count
print("pipeline drops \(dropped) of \(document.records) records (\(document.corrupt) are corrupt)")
if dropped != document.corrupt {
    print("WARNING: the validator did not drop exactly the corrupt records, so the pipeline figure does not measure real validation")
}
let treeOutput = try pipeline.run(parsed).value.serialized()
if try pipeline.run(JSONTape.parse(document.bytes)).serialized() != treeOutput {
    print("WARNING: the tape and tree pipelines wrote different bytes")
}
// Like a server connection, the pipeline writes into an output buffer it keeps.
var pipelineOutput: [UInt8] = []
let treePipelineFigure = run("tree pipeline (as before the tape)") {
    let output = try! pipeline.run(try! JSON.parse(document.bytes))
    pipelineOutput.removeAll(keepingCapacity: true)
    output.value.serialize(into: &pipelineOutput)
}
let reshapeOnly = Pipeline(steps: [KeyedToArrayOperation(keyField: "objectId"), WrapOperation(field: "objects")])
_ = run("tape pipeline without validation") {
    let output = try! reshapeOnly.run(try! JSONTape.parse(document.bytes))
    pipelineOutput.removeAll(keepingCapacity: true)
    output.serialize(into: &pipelineOutput)
}
// What the server does: parse to a tape, run the steps, write (copying untouched records).
let pipelineFigure = run(pipelineLabel) {
    let output = try! pipeline.run(try! JSONTape.parse(document.bytes))
    pipelineOutput.removeAll(keepingCapacity: true)
    output.serialize(into: &pipelineOutput)
}

// The same route as a user would write it, on the document as a real backend sends it.
let realistic = FirebaseDocument.generate(shuffled: true)
let (realisticRoute, realisticLabel) = try realisticPipeline()
let realisticDropped = try realisticRoute.run(JSONTape.parse(realistic.bytes)).dropped.count
print("realistic document: \(realistic.bytes.count) bytes, \(realistic.records) records, drops \(realisticDropped) (\(realistic.corrupt) corrupt)")
if try realisticRoute.run(JSONTape.parse(realistic.bytes)).serialized() != realisticRoute.run(JSON.parse(realistic.bytes)).value.serialized() {
    print("WARNING: the tape and tree pipelines wrote different bytes for the realistic document")
}
let realisticFigure = run(realisticLabel, bytes: realistic.bytes.count) {
    let output = try! realisticRoute.run(try! JSONTape.parse(realistic.bytes))
    pipelineOutput.removeAll(keepingCapacity: true)
    output.serialize(into: &pipelineOutput)
}

let validation = try ValidationWorkload(tape: tape)
validation.report(run("validate User on trees (prebuilt)") { blackHole(validation.validOnTrees()) })
validation.report(run("validate User on tape") { blackHole(validation.timedPass()) })
// The realistic document: each record has its members in an order of its own.
let realisticValidation = try ValidationWorkload(tape: JSONTape.parse(realistic.bytes), types: userTypesWithPattern)
realisticValidation.report(run("validate User on the realistic tape") { blackHole(realisticValidation.timedPass()) })

let data = Data(document.bytes)
let foundation = run("Foundation JSONSerialization parse+serialize", runs: max(1, min(runs, 3))) {
    blackHole(try! foundationRoundTrip(data))
}

if let roundTrip, let foundation {
    print("ratio parse+serialize ReshapeJSON / Foundation: best \(format(roundTrip.best / foundation.best))x, median \(format(roundTrip.median / foundation.median))x")
}
if let pipelineFigure, let treePipelineFigure {
    print("ratio pipeline tape / tree: best \(format(pipelineFigure.best / treePipelineFigure.best))x, median \(format(pipelineFigure.median / treePipelineFigure.median))x")
}
if let pipelineFigure, let realisticFigure {
    print("ratio realistic / sorted pipeline: median \(format(realisticFigure.median / pipelineFigure.median))x")
}
if let pipelineFigure {
    let verdict = pipelineFigure.median >= 300 ? "meets" : "is below"
    print("pipeline median \(format(pipelineFigure.median)) MB/s \(verdict) the 300 MB/s target")
}

// Issue 26: a client view of a cached answer against the uncached answer (docs/queries.md).
try viewFigures()
