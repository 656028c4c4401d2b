/// The users fixture of the rule files the tests write: a Firebase-style users collection
/// keyed by push id (the demo upstream's `/users.json`), the `User` type its records must
/// meet, and the route that answers the valid ones as a list in key order (the README's rule
/// without its `coerce` step). Rule text, put in a rule file at the start of a line:
///
///     types:
///     \(UsersRules.userType())
///     routes:
///     \(UsersRules.route(upstream: "demo", options: ["live: true"]))
public enum UsersRules {
    /// The `User` type, as an entry of `types:`; `extraProperties` are more lines of its
    /// `properties` (`"tags: { type: array }"`).
    public static func userType(extraProperties: [String] = []) -> String {
        let properties =
            [
                "objectId: { type: string }",
                "name: { type: string, minLength: 1 }",
                "age: { type: integer, minimum: 0 }",
            ] + extraProperties
        return """
              User:
                type: object
                required: [objectId, name]
                properties:
            \(properties.map { "      " + $0 }.joined(separator: "\n"))
            """
    }

    /// The users route, as an entry of `routes:`: the collection as a list of valid users in
    /// key order (`invalid: fail` refuses the whole answer instead), wrapped in an object
    /// under `wrap` (none when nil). `options` are more keys of the route
    /// (`"live: { keep-alive: 300ms }"`).
    public static func route(
        name: String = "users", request: String = "GET /users", upstream: String, options: [String] = [],
        invalid: String = "drop", wrap: String? = "objects"
    ) -> String {
        let lines =
            [
                "- name: \(name)",
                "  request: \(request)",
                "  upstream: \(upstream)",
                "  path: /users.json",
            ] + options.map { "  " + $0 } + [
                "  transform:",
                "    - keyed-to-array: { key: objectId, order: key }",
                "    - validate: { type: User, invalid: \(invalid) }",
            ] + (wrap.map { ["    - wrap: \($0)"] } ?? [])
        return lines.map { "  " + $0 }.joined(separator: "\n")
    }
}
