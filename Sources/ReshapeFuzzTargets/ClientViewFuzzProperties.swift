import ReshapeJSON
import ReshapeRules

// A client query (issue 26) is part of a request target, so `fuzzURL` also hands the target's
// query to `ClientView` for a fixed rule and answer. Properties: parsing and applying never
// trap; a view holds at most `limit` records, never more than match; a next cursor is accepted
// by the same query and leads to a page after it; `checkCursor` refuses exactly what `apply` does.

private let viewRule: ClientQueryRule = {
    var rule = ClientQueryRule(array: JSONPointer(tokens: ["objects"]))
    rule.fields = true
    rule.filter = ["name", "age", "address.city", "mixed"]
    rule.sort = ["name", "age", "mixed"]
    rule.page = ClientQueryRule.Page(size: 2, max: 5)
    rule.keyMember = "objectId"
    rule.kinds = ["name": .string, "age": .integer, "address.city": .string, "mixed": .all]
    rule.fieldNames = ["objectId", "name", "age", "address", "address.city", "mixed"]
    return rule
}()

private let viewAnswer: JSON = {
    let text = """
        {"objects":[
          {"objectId":"a","name":"Ada","age":36,"address":{"city":"London"},"mixed":null},
          {"objectId":"b","name":"Alan","age":41,"mixed":true},
          {"objectId":"c","age":-3,"address":{"city":"Paris"},"mixed":"x"},
          {"objectId":"d","name":"Grace","age":85,"mixed":3.5},
          {"objectId":"e","name":"","mixed":{"k":1}},
          {"objectId":"f","name":"Ada","age":36,"mixed":[1]}
        ]}
        """
    return try! JSON.parse(Array(text.utf8))
}()

func checkClientView(_ rawQuery: Substring) {
    guard let view = try? ClientView.parse(rawQuery, rule: viewRule) else { return }
    // The server refuses a cursor before the fetch (`checkCursor`): it must refuse exactly the
    // views `apply` would.
    let cursorChecks = (try? view.checkCursor(fingerprint: "fuzz")) != nil
    guard let outcome = try? view.apply(to: viewAnswer, rule: viewRule, fingerprint: "fuzz") else {
        require(view.cursor != nil, "a view without a cursor was refused")
        require(!cursorChecks, "a view was refused for a cursor checkCursor accepted")
        return
    }
    require(cursorChecks, "checkCursor refused a cursor the view accepts")
    let tape = try! JSONTape.parse(viewAnswer.serialized())
    let fromTape = try? view.apply(toTape: tape, rule: viewRule, fingerprint: "fuzz")
    require(
        fromTape?.body == outcome.body.serialized() && fromTape?.total == outcome.total
            && fromTape?.nextCursor == outcome.nextCursor, "the tape's view differs")
    guard case .object(let body) = outcome.body, case .array(let records)? = body["objects"], let total = outcome.total
    else {
        return require(false, "a view lost its array")
    }
    require(total <= 6, "more records match than there are")
    require(records.count <= min(total, view.limit ?? 6), "a page holds more than its limit")
    guard let next = outcome.nextCursor else { return }
    var following = view
    following.cursor = next
    guard let second = try? following.apply(to: viewAnswer, rule: viewRule, fingerprint: "fuzz") else {
        return require(false, "a view refused its own next cursor")
    }
    require(second.total == total, "the next page counts other records")
}
