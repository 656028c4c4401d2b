/// The names a drafted rule file uses when the user gives none: a route named after the
/// request path (or the sample file), a type named after the route in the singular.
enum DraftNames {
    /// Lower-case words of `text` joined by `-`: `/users/{id}.json` → `users-json`'s words.
    static func routeName(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.isEmpty ? "items" : words.joined(separator: "-")
    }

    /// `user-scores` → `UserScore`: the last word made singular.
    static func typeName(forRoute route: String) -> String {
        var words = route.split(separator: "-").map(String.init)
        if let last = words.popLast() { words.append(singular(last)) }
        let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return name.first?.isLetter == true ? name : "Item" + name
    }

    static func singular(_ word: String) -> String {
        if word.hasSuffix("ies") && word.count > 3 { return String(word.dropLast(3)) + "y" }
        if word.hasSuffix("sses") || word.hasSuffix("xes") || word.hasSuffix("ches") || word.hasSuffix("shes") {
            return String(word.dropLast(2))
        }
        if word.hasSuffix("s") && !word.hasSuffix("ss") && word.count > 1 { return String(word.dropLast()) }
        return word
    }

    static func plural(_ word: String) -> String {
        if word.hasSuffix("y"), let before = word.dropLast().last, !"aeiou".contains(before) {
            return String(word.dropLast()) + "ies"
        }
        if word.hasSuffix("s") || word.hasSuffix("x") || word.hasSuffix("ch") || word.hasSuffix("sh") {
            return word + "es"
        }
        return word + "s"
    }

    /// `DeviceGroup` → `deviceGroup`.
    static func lowerCamel(_ typeName: String) -> String {
        typeName.prefix(1).lowercased() + typeName.dropFirst()
    }

    /// `demo-api` → `DEMO_API_URL`: the variable the placeholder upstream URL reads.
    static func urlVariable(_ upstream: String) -> String {
        String(upstream.uppercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }) + "_URL"
    }

    /// The first of `candidates` that is not a field of any record.
    static func unused(_ candidates: [String], among fields: Set<String>) -> String {
        candidates.first { !fields.contains($0) } ?? candidates[0]
    }
}
