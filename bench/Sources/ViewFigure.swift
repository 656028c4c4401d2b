import ReshapeJSON
import ReshapeRules

/// Issue 26's "Cost": a client view (fields + one filter + sort + limit 20) of a cached
/// ~150 KB answer against building that answer uncached (parse the upstream body to a tape,
/// the realistic route, write). The view's work is what `ClientViewRequest.render` does:
/// parse the cached answer, apply the view, write it.
func viewFigures() throws {
    let upstream = FirebaseDocument.generate(targetBytes: 150 * 1024, shuffled: true)
    let (route, _) = try realisticPipeline()
    let answer = try route.run(JSONTape.parse(upstream.bytes)).serialized()
    var rule = ClientQueryRule(array: JSONPointer(tokens: ["objects"]))
    rule.fields = true
    rule.filter = ["age"]
    rule.sort = ["name"]
    rule.keyMember = "objectId"
    rule.kinds = ["age": .integer, "name": .string]
    guard let view = try ClientView.parse("fields=name,age&age[gte]=30&sort=name&limit=20", rule: rule),
        let fieldsOnly = try ClientView.parse("fields=name,age", rule: rule)
    else { fatalError("the view's query was not parsed") }
    print("view document: \(upstream.bytes.count) upstream bytes, \(answer.count) answer bytes")
    var output: [UInt8] = []
    let full = run(
        "view baseline: uncached answer of ~150 KB (tape, realistic route, write)", bytes: upstream.bytes.count
    ) {
        let result = try! route.run(try! JSONTape.parse(upstream.bytes))
        output.removeAll(keepingCapacity: true)
        result.serialize(into: &output)
    }
    let made = run("client view of the cached answer (fields+filter+sort+limit 20)", bytes: answer.count) {
        let outcome = try! view.apply(toTape: try! JSONTape.parse(answer), rule: rule, fingerprint: "bench")
        blackHole(outcome.body)
    }
    let answerTape = try JSONTape.parse(answer)
    _ = run("view part: tape parse of the answer", bytes: answer.count) { blackHole(try! JSONTape.parse(answer)) }
    // What a cache hit costs once another view parsed the answer (`ViewTapes`).
    let reused = run("view part: apply on a parsed tape", bytes: answer.count) {
        blackHole(try! view.apply(toTape: answerTape, rule: rule, fingerprint: "bench"))
    }
    var noFilter = view
    noFilter.filters = []
    _ = run("view part: apply without the filter", bytes: answer.count) {
        blackHole(try! noFilter.apply(toTape: answerTape, rule: rule, fingerprint: "bench"))
    }
    var noSort = view
    noSort.sort = []
    _ = run("view part: apply without the sort", bytes: answer.count) {
        blackHole(try! noSort.apply(toTape: answerTape, rule: rule, fingerprint: "bench"))
    }
    let fieldsBytes = try fieldsOnly.apply(to: JSON.parse(answer), rule: rule, fingerprint: "bench").body.serialized()
    print(
        "fields=name,age sends \(fieldsBytes.count) of \(answer.count) bytes (\(format(100 * Double(fieldsBytes.count) / Double(answer.count)))%)"
    )
    if let full, let made, let reused {
        let fullMicros = Double(upstream.bytes.count) / full.median
        let viewMicros = Double(answer.count) / made.median
        let reusedMicros = Double(answer.count) / reused.median
        print(
            "per request (median): uncached answer \(format(fullMicros)) µs, view of the cached answer \(format(viewMicros)) µs (\(format(viewMicros / fullMicros))x), with its tape reused \(format(reusedMicros)) µs (\(format(reusedMicros / fullMicros))x)"
        )
    }
}
