// reshape-bench: throughput of ReshapeJSON (and, once it exists, the whole transform pipeline)
// on a deterministic ~8 MB Firebase-style document, against Foundation's JSONSerialization.
// Run in release: swift run -c release --scratch-path .build-json reshape-bench [runs]
import Foundation
import ReshapeJSON

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 9
let document = FirebaseDocument.generate()
let size = document.bytes.count
print("document: \(size) bytes (\(format(Double(size) / 1_048_576, decimals: 2)) MiB), \(document.records) records, \(document.corrupt) corrupt; \(runs) runs each")

// The generated document must be valid and must survive a round trip byte for byte.
let parsed = try JSON.parse(document.bytes)
precondition(parsed.serialized() == document.bytes, "round trip changed the document")

var results: [Throughput] = []
results.append(measure("ReshapeJSON parse", bytes: size, runs: runs) {
    blackHole(try! JSON.parse(document.bytes))
})
results.append(measure("ReshapeJSON serialize (compact)", bytes: size, runs: runs) {
    blackHole(parsed.serialized())
})
let prettySize = parsed.serialized(pretty: true).count
results.append(measure("ReshapeJSON serialize (pretty)", bytes: prettySize, runs: runs) {
    blackHole(parsed.serialized(pretty: true))
})
results.append(measure("ReshapeJSON parse+serialize", bytes: size, runs: runs) {
    blackHole(try! JSON.parse(document.bytes).serialized())
})

let (pipeline, pipelineLabel) = pipelineUnderTest()
results.append(measure(pipelineLabel, bytes: size, runs: runs) {
    let output = try! pipeline.run(try! JSON.parse(document.bytes))
    blackHole(output.value.serialized())
})

let data = Data(document.bytes)
let foundationRuns = max(1, min(runs, 3))
results.append(measure("Foundation parse+serialize", bytes: size, runs: foundationRuns) {
    blackHole(try! foundationRoundTrip(data))
})

for result in results { print(result.line()) }
let roundTrip = results[3]
let foundation = results[results.count - 1]
print("ratio parse+serialize ReshapeJSON / Foundation: best \(format(roundTrip.best / foundation.best))x, median \(format(roundTrip.median / foundation.median))x")
let pipelineFigure = results[4]
let verdict = pipelineFigure.median >= 300 ? "meets" : "below"
print("pipeline median \(format(pipelineFigure.median)) MB/s \(verdict) the 300 MB/s target")
