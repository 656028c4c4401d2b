import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A record of the example rules' `users` route as the generated client decodes it: with
/// `fields: true` every member is optional, since a view may leave any of them out.
typealias Record = Operations.Users.Output.Ok.Body.JsonPayload.ObjectsPayloadPayload
typealias Query = Operations.Users.Input.Query

/// Drives the client that swift-openapi-generator made from `reshape openapi --rules
/// examples/rules` against a running `reshape serve` of those rules (scripts/check-openapi.sh):
/// the `users` route's client query (docs/queries.md) through the generated parameters, its
/// pages followed by the `Link` header, each page's records decoded and judged against the
/// whole answer fetched first.
@main
struct ClientCheck {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let base = URL(string: arguments[1]) else {
            FileHandle.standardError.write(Data("usage: reshape-client-check BASE_URL\n".utf8))
            exit(2)
        }
        let client = Client(serverURL: base, transport: URLSessionTransport())
        do {
            try await check(client)
        } catch {
            FileHandle.standardError.write(Data("reshape-client-check: \(error)\n".utf8))
            exit(1)
        }
    }

    static func check(_ client: Client) async throws {
        // The whole answer: no view but the largest page, every page followed.
        let all = try await walk(client, Query(limit: 500)).records
        let threshold = 40
        let expected = sortedByName(all.filter { ($0.age ?? Int.min) >= threshold })
        // The demo data must make the view worth checking: a filter that leaves some records
        // out, and more records than one page holds.
        try require(expected.count > 2 && expected.count < all.count, "the demo upstream's users changed: \(all)")

        let byName = Query(
            fields: [.name, .age], age_lbrack_gte_rbrack_: threshold, sort: [.name], limit: 2)
        let pages = try await walk(client, byName)
        try require(pages.count == (expected.count + 1) / 2, "\(pages.count) pages for \(expected.count) records")
        try require(pages.totals.allSatisfy { $0 == expected.count }, "Reshape-Total-Count \(pages.totals)")
        for record in pages.records {
            // Only the selected members, and the record's key, which is always kept.
            try require(
                record.objectId != nil && record.name != nil && record.age != nil && record.email == nil
                    && record.address == nil,
                "a record with other members than objectId, name and age: \(record)")
        }
        try require(
            pages.records.map(Summary.init) == expected.map(Summary.init),
            "the pages \(pages.records.map(Summary.init)) are not the filtered, sorted records \(expected.map(Summary.init))"
        )

        // Two keys, the first descending, one record a page.
        let byAge = Query(fields: [.age], age_lbrack_gte_rbrack_: threshold, sort: [._hyphen_age, .name], limit: 1)
        let oldestFirst = expected.enumerated().sorted { a, b in
            a.element.age! != b.element.age! ? a.element.age! > b.element.age! : a.offset < b.offset
        }.map(\.element)
        let agePages = try await walk(client, byAge)
        try require(agePages.count == expected.count, "\(agePages.count) pages of one for \(expected.count) records")
        try require(
            agePages.records.allSatisfy { $0.name == nil && $0.objectId != nil },
            "fields=age kept other members than the key: \(agePages.records)")
        try require(
            agePages.records.map(\.objectId) == oldestFirst.map(\.objectId),
            "sort=-age,name gave \(agePages.records.map(\.age)), not \(oldestFirst.map(\.age))")

        // A cursor the server did not make: the documented 400, decoded as a problem.
        switch try await client.users(query: Query(limit: 1, cursor: "forged")) {
        case .badRequest(let answer):
            let problem = try answer.body.applicationProblemJson
            try require(problem.code == "bad-cursor", "a forged cursor answered \(problem)")
        case let other:
            throw Failure("a forged cursor answered \(other)")
        }
        print(
            "ok   the generated Swift client: \(all.count) users; fields, age[gte], sort and limit "
                + "over \(pages.count) and \(agePages.count) pages by Link; a forged cursor is bad-cursor")
    }

    /// Every page of `query`, from the first to the one whose answer has no `Link`.
    static func walk(_ client: Client, _ query: Query) async throws -> Pages {
        var pages = Pages()
        var query = query
        while true {
            let answer = try await client.users(query: query).ok
            pages.records += try answer.body.json.objects
            pages.count += 1
            pages.totals.append(answer.headers.reshapeTotalCount.flatMap { Int($0) } ?? -1)
            guard let link = answer.headers.link else { return pages }
            query.cursor = try cursor(in: link)
            try require(pages.count <= 100, "more than 100 pages: the Link never ends")
        }
    }

    /// The `cursor` of the target of `<...>; rel="next"`.
    static func cursor(in link: String) throws -> String {
        guard link.hasSuffix(#">; rel="next""#), link.hasPrefix("<"),
            let target = URLComponents(string: String(link.dropFirst().prefix { $0 != ">" })),
            let cursor = target.queryItems?.first(where: { $0.name == "cursor" })?.value
        else { throw Failure("a Link without a next page's cursor: \(link)") }
        return cursor
    }

    /// By name's bytes, ties in the answer's order: the view's sort on a string field.
    static func sortedByName(_ records: [Record]) -> [Record] {
        records.enumerated().sorted { a, b in
            let x = Array((a.element.name ?? "").utf8)
            let y = Array((b.element.name ?? "").utf8)
            return x != y ? x.lexicographicallyPrecedes(y) : a.offset < b.offset
        }.map(\.element)
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Failure(message()) }
    }
}

struct Pages {
    var records: [Record] = []
    var count = 0
    /// Each page's `Reshape-Total-Count`.
    var totals: [Int] = []
}

/// What the `fields=name,age` view of a record must hold.
struct Summary: Equatable, CustomStringConvertible {
    let objectId: String?
    let name: String?
    let age: Int?
    init(_ record: Record) { (objectId, name, age) = (record.objectId, record.name, record.age) }
    var description: String { "\(objectId ?? "-") \(name ?? "-") \(age.map(String.init) ?? "-")" }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
