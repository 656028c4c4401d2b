// The canned Firebase-shaped database the demo serves. Deterministic: the same bytes on every run.
// Keys are 20-character push ids ("-N" + 18 characters), so sorting them as strings gives
// creation order, as in Firebase. Some records are corrupt on purpose, so rules have
// something to drop, coerce or reject.

enum DemoData {
    static let adaId = "-NqK3a9Xb2mLp0Rt7Yv1"
    static let graceId = "-NqK3a9Xb2mLp0Rt7Yv2"
    static let emptyNameId = "-NqK3bA1c4DeF5gH6iJ7"
    static let stringAgeId = "-NqK3cB2d5EfG6hI7jK8"
    static let negativeAgeId = "-NqK3dC3e6FgH7iJ8kL9"
    static let missingNameId = "-NqK3eD4f7GhI8jK9lM0"
    static let alanId = "-NqK3fE5g8HiJ9kL0mN1"

    private static func user(_ name: String?, age: DemoValue, email: String, city: String, zip: String) -> DemoValue {
        var members: [(String, DemoValue)] = []
        if let name { members.append(("name", .string(name))) }
        members.append(("age", age))
        members.append(("email", .string(email)))
        members.append(("address", .object([("city", .string(city)), ("zip", .string(zip))])))
        return .object(members)
    }

    /// `/users`: seven users, four of them corrupt (empty name, age as a string that
    /// `coerce` can fix, negative age, missing name). Not in key order, as after an `orderBy`.
    static let users: DemoValue = .object([
        (graceId, user("Grace Hopper", age: .int(85), email: "grace@example.com", city: "Arlington", zip: "22201")),
        (adaId, user("Ada Lovelace", age: .int(36), email: "ada@example.com", city: "London", zip: "NW1 6XE")),
        (emptyNameId, user("", age: .int(30), email: "nobody@example.com", city: "Nowhere", zip: "00000")),
        (
            stringAgeId,
            user("Linus Torvalds", age: .string("42"), email: "linus@example.com", city: "Portland", zip: "97201")
        ),
        (
            negativeAgeId,
            user("Benjamin Button", age: .int(-3), email: "ben@example.com", city: "New Orleans", zip: "70112")
        ),
        (missingNameId, user(nil, age: .int(50), email: "anon@example.com", city: "Paris", zip: "75001")),
        (alanId, user("Alan Turing", age: .int(41), email: "alan@example.com", city: "Manchester", zip: "M13 9PL")),
    ])

    /// `/devices`: devices keyed by user id, then by device id (a nested keyed collection).
    static let devices: DemoValue = .object([
        (
            adaId,
            .object([
                ("-NqL0aa1Bb2Cc3Dd4Ee5", .object([("model", .string("Pixel 8")), ("os", .string("android"))])),
                ("-NqL0aa1Bb2Cc3Dd4Ee6", .object([("model", .string("ThinkPad X1")), ("os", .string("linux"))])),
            ])
        ),
        (
            graceId,
            .object([
                ("-NqL0bb2Cc3Dd4Ee5Ff6", .object([("model", .string("iPhone 15")), ("os", .string("ios"))]))
            ])
        ),
        (
            alanId,
            .object([
                ("-NqL0cc3Dd4Ee5Ff6Gg7", .object([("model", .string("Raspberry Pi 5")), ("os", .string("linux"))])),
                ("-NqL0cc3Dd4Ee5Ff6Gg8", .object([("model", .string("Kindle")), ("os", .null)])),
            ])
        ),
    ])

    /// `/scores`: integer keys 1, 3 and 4, which Firebase sends as an array with `null` holes.
    static let scores: DemoValue = .array([
        .null,
        .object([("player", .string("ada")), ("score", .int(10))]),
        .null,
        .object([("player", .string("grace")), ("score", .int(7))]),
        .object([("player", .string("alan")), ("score", .int(3))]),
    ])

    /// `/widgets`: a keyed collection for the "write your own rule" exercise; one widget has
    /// its price as a string and one has no name.
    static let widgets: DemoValue = .object([
        (
            "-NqM1aB2cD3eF4gH5iJ1",
            .object([
                ("name", .string("Sprocket")), ("color", .string("red")), ("price", .number("4.50")),
                ("stock", .int(120)),
            ])
        ),
        (
            "-NqM1aB2cD3eF4gH5iJ2",
            .object([
                ("name", .string("Gizmo")), ("color", .string("blue")), ("price", .number("12.00")), ("stock", .int(0)),
            ])
        ),
        (
            "-NqM1aB2cD3eF4gH5iJ3",
            .object([
                ("name", .string("Doohickey")), ("color", .string("green")), ("price", .string("7.25")),
                ("stock", .int(33)),
            ])
        ),
        (
            "-NqM1aB2cD3eF4gH5iJ4",
            .object([("color", .string("black")), ("price", .number("1.99")), ("stock", .int(5))])
        ),
    ])

    /// A user id no record has: a post by them has no author to fetch (`null`).
    static let deletedUserId = "-NqK3zZ9yX8wV7uT6sR5"

    /// `/posts`: posts keyed by push id, each naming its author by user id, for follow-up
    /// fetches: Ada wrote two (her record is fetched once), one author no longer exists.
    static let posts: DemoValue = .object([
        (
            "-NqP0aA1bB2cC3dD4eE1",
            .object([
                ("title", .string("Notes on the Analytical Engine")), ("authorId", .string(adaId)), ("likes", .int(12)),
            ])
        ),
        (
            "-NqP0aA1bB2cC3dD4eE2",
            .object([("title", .string("Compilers for everyone")), ("authorId", .string(graceId)), ("likes", .int(30))])
        ),
        (
            "-NqP0aA1bB2cC3dD4eE3",
            .object([("title", .string("On computable numbers")), ("authorId", .string(alanId)), ("likes", .int(7))])
        ),
        (
            "-NqP0aA1bB2cC3dD4eE4",
            .object([("title", .string("The engine, continued")), ("authorId", .string(adaId)), ("likes", .int(4))])
        ),
        (
            "-NqP0aA1bB2cC3dD4eE5",
            .object([
                ("title", .string("A post whose author left")), ("authorId", .string(deletedUserId)),
                ("likes", .int(0)),
            ])
        ),
    ])

    /// The whole database as it starts (DemoStore then keeps it), so any Firebase path
    /// (`/users/<id>.json`, `/devices/<uid>.json`) resolves.
    static let root: DemoValue = .object([
        ("users", users),
        ("devices", devices),
        ("scores", scores),
        ("widgets", widgets),
        ("posts", posts),
    ])
}
