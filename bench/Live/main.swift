// reshape-live-bench: CPU per upstream change of a live stream, record by record against the
// whole pipeline, on the peer benchmark's 8 MB collection and its `users` route.
//
//   python3 bench/peers/gen.py /tmp/peers
//   swift build -c release --product reshape-live-bench
//   .build/release/reshape-live-bench /tmp/peers/8mb.json bench/peers/rules [changes]
//
// Both streams take the same events; the whole pipeline's events must be the same bytes.
import ReshapeJSON
import ReshapeLive
import ReshapeProxy
import ReshapeRules

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: reshape-live-bench DOCUMENT.json RULES [changes] [whole-changes]")
    exit(2)
}
let changes = arguments.count > 3 ? Int(arguments[3]) ?? 3000 : 3000
let wholeChanges = arguments.count > 4 ? Int(arguments[4]) ?? 30 : 30

let ruleSet: RuleSet
switch RuleLoader.load(path: arguments[2], environment: [:]) {
case .success(let loaded): ruleSet = loaded
case .failure(let diagnostics):
    print(diagnostics.diagnostics.map(\.description).joined(separator: "\n"))
    exit(1)
}
guard let route = ruleSet.routes.first(where: { $0.name == "users" }) else { fatalError("no route 'users'") }
let parameters = ["size": "8mb"]
guard let recordwise = LiveNormalizer.recordwise(route, in: ruleSet, parameters: parameters) else {
    fatalError("route 'users' is not recordwise")
}
let bytes = readFile(arguments[1])
let document = try JSON.parse(bytes)
guard case .object(let collection) = document else { fatalError("not a collection") }
print("document: \(bytes.count) bytes, \(collection.count) records; route users: \(route.pipeline.written.count) steps")

var whole = LiveStream(normalize: LiveNormalizer.normalize(route, in: ruleSet, parameters: parameters))
var spliced = LiveStream(recordwise: recordwise)
let start = FirebaseEvent.put(path: [], data: document)
let (wholeSnapshot, wholeSnapshotBytes) = fanOut(start, to: &whole)
let (splicedSnapshot, splicedSnapshotBytes) = fanOut(start, to: &spliced)
precondition(wholeSnapshotBytes == splicedSnapshotBytes, "snapshots differ")
print("snapshot (\(wholeSnapshotBytes.count) bytes): whole \(ms(wholeSnapshot)) ms, recordwise \(ms(splicedSnapshot)) ms CPU")

// What a subscriber joining at a new answer costs the server beyond the bytes' copy to its socket:
// the snapshot event rendered (the server renders it once per answer and shares it).
guard let answer = spliced.answer else { fatalError("no answer after the snapshot") }
var renderCPU: [Double] = []
for _ in 0..<9 {
    var rendered: [UInt8] = []
    let before = threadCPU()
    LiveEvent(id: 1, kind: .snapshot(answer)).appendServerSentEvent(to: &rendered)
    renderCPU.append(threadCPU() - before)
    precondition(rendered == wholeSnapshotBytes, "the snapshot rendered again differs")
}
renderCPU.sort()
print(
    "snapshot event rendered alone: median \(ms(percentile(renderCPU, 0.5))) ms,",
    "best \(ms(renderCPU[0])) ms CPU (9 runs)")

var events = ChangeEvents(keys: collection.members.map(\.key))
var wholeCPU: [String: [Double]] = [:]
var splicedCPU: [String: [Double]] = [:]
var patchBytes: [String: [Double]] = [:]
for number in 0..<changes {
    let (kind, event) = events.next()
    let (cpu, sent) = fanOut(event, to: &spliced)
    splicedCPU[kind, default: []].append(cpu)
    patchBytes[kind, default: []].append(Double(sent.count))
    if number < wholeChanges {
        let (wholeTime, wholeSent) = fanOut(event, to: &whole)
        precondition(wholeSent == sent, "event \(number) (\(kind)): the streams sent different bytes")
        wholeCPU[kind, default: []].append(wholeTime)
    }
}

print("\nCPU per change, received(_:) plus the event's SSE bytes, one subscriber (µs):")
print("kind               changes   recordwise median    p90     max    whole median   SSE bytes median")
for kind in ChangeEvents.kinds {
    let mine = splicedCPU[kind, default: []].sorted()
    let theirs = wholeCPU[kind, default: []].sorted()
    let sizes = patchBytes[kind, default: []].sorted()
    print(
        pad(kind, 18), pad(String(mine.count), 8, left: true), pad(us(percentile(mine, 0.5)), 18, left: true),
        pad(us(percentile(mine, 0.9)), 8, left: true), pad(us(mine.last ?? 0), 8, left: true),
        pad(theirs.isEmpty ? "-" : us(percentile(theirs, 0.5)), 15, left: true),
        pad(String(Int(percentile(sizes, 0.5))), 18, left: true))
}
let all = splicedCPU.values.flatMap { $0 }.sorted()
let allWhole = wholeCPU.values.flatMap { $0 }.sorted()
print(
    "all: recordwise median \(us(percentile(all, 0.5))) µs, p99 \(us(percentile(all, 0.99))) µs over \(all.count) changes;",
    "whole median \(us(percentile(allWhole, 0.5))) µs over \(allWhole.count)")
print("goal < 1 ms per one-record change: \(percentile(all, 0.99) < 1e-3 ? "met" : "not met") at p99")

/// Feeds `event` and renders what it sends as the subscriber's bytes; the thread's CPU time.
func fanOut(_ event: FirebaseEvent, to stream: inout LiveStream) -> (seconds: Double, bytes: [UInt8]) {
    var output: [UInt8] = []
    let before = threadCPU()
    switch stream.received(event) {
    case .none: break
    case .send(let sent), .end(let sent): sent.appendServerSentEvent(to: &output)
    }
    return (threadCPU() - before, output)
}

func threadCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
func us(_ seconds: Double) -> String { String(Int((seconds * 1e6).rounded())) }
func ms(_ seconds: Double) -> String { String(Int((seconds * 1e3).rounded())) }
func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
    let fill = String(repeating: " ", count: max(0, width - text.count))
    return left ? fill + text : text + fill
}
