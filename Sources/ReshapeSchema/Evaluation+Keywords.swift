import ReshapeJSON

extension Evaluation {
    /// Checks one keyword. Keywords that do not apply to the instance's type pass.
    mutating func apply(_ keyword: CompiledKeyword, _ instance: JSON, _ path: String,
                        _ annotations: inout Annotations, collect: Bool) -> Bool {
        switch keyword.keyword {
        case .type(let mask):
            if mask.contains(Self.typeBit(of: instance)) { return true }
            if case .number(let n) = instance, mask.contains(.integer), n.isInteger { return true }
            report(path, keyword, "expected \(mask.names.joined(separator: " or ")), got \(Self.typeName(of: instance))")
            return false

        case .const(let value):
            if StrictEquality.equal(instance, value) { return true }
            report(path, keyword, "\(Self.brief(instance)) is not \(Self.brief(value))")
            return false

        case .enumeration(let values):
            if values.contains(where: { StrictEquality.equal(instance, $0) }) { return true }
            report(path, keyword, "\(Self.brief(instance)) is not one of \(Self.brief(.array(values)))")
            return false

        case .minimum(let bound, let exclusive):
            guard case .number(let n) = instance else { return true }
            let order = bound.compare(n)
            if order > 0 || (order == 0 && !exclusive) { return true }
            report(path, keyword, "\(n.text) is less than \(exclusive ? "or equal to " : "")\(bound.number.text)")
            return false

        case .maximum(let bound, let exclusive):
            guard case .number(let n) = instance else { return true }
            let order = bound.compare(n)
            if order < 0 || (order == 0 && !exclusive) { return true }
            report(path, keyword, "\(n.text) is greater than \(exclusive ? "or equal to " : "")\(bound.number.text)")
            return false

        case .multipleOf(let divisor):
            guard case .number(let n) = instance else { return true }
            if n.isMultiple(of: divisor) { return true }
            report(path, keyword, "\(n.text) is not a multiple of \(divisor.text)")
            return false

        case .minLength(let limit):
            guard case .string(let s) = instance else { return true }
            if s.utf8.count >= limit * 4 { return true }  // a scalar is at most 4 UTF-8 bytes
            let length = s.unicodeScalars.count
            if length >= limit { return true }
            report(path, keyword, "length \(length) is less than \(limit)")
            return false

        case .maxLength(let limit):
            guard case .string(let s) = instance else { return true }
            if s.utf8.count <= limit { return true }
            let length = s.unicodeScalars.count
            if length <= limit { return true }
            report(path, keyword, "length \(length) is greater than \(limit)")
            return false

        case .pattern(let pattern):
            guard case .string(let s) = instance else { return true }
            if pattern.matches(s) { return true }
            report(path, keyword, "\(Self.brief(instance)) does not match /\(pattern.source)/")
            return false

        case .format(let name, let check):
            guard case .string(let s) = instance else { return true }
            if check(s) { return true }
            report(path, keyword, "\(Self.brief(instance)) is not a valid \(name)")
            return false

        case .prefixItems(let nodes):
            guard case .array(let elements) = instance else { return true }
            var valid = true
            for i in 0..<min(nodes.count, elements.count) {
                if !at(nodes[i], elements[i], child(path, i)) {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            if collect { annotations.itemPrefix = max(annotations.itemPrefix, min(nodes.count, elements.count)) }
            return valid

        case .items(let node, let start):
            guard case .array(let elements) = instance else { return true }
            var valid = true
            var i = start
            while i < elements.count {
                if !at(node, elements[i], child(path, i)) {
                    valid = false
                    if !reporting || full { return false }
                }
                i += 1
            }
            if collect { annotations.allItems = true }
            return valid

        case .contains(let node, let minimum, let maximum):
            guard case .array(let elements) = instance else { return true }
            var matched = 0
            for (i, element) in elements.enumerated() {
                if quietly({ $0.at(node, element, "") }) {
                    matched += 1
                    if collect { annotations.itemIndices.insert(i) }
                    else if maximum == nil && matched >= minimum { return true }
                }
            }
            if matched < minimum {
                report(path, keyword, minimum == 1 ? "no element matches"
                       : "\(matched) elements match, fewer than \(minimum)")
                return false
            }
            if let maximum, matched > maximum {
                report(path, keyword, "\(matched) elements match, more than \(maximum)")
                return false
            }
            return true

        case .minItems(let limit):
            guard case .array(let elements) = instance, elements.count < limit else { return true }
            report(path, keyword, "\(elements.count) items, fewer than \(limit)")
            return false

        case .maxItems(let limit):
            guard case .array(let elements) = instance, elements.count > limit else { return true }
            report(path, keyword, "\(elements.count) items, more than \(limit)")
            return false

        case .uniqueItems:
            guard case .array(let elements) = instance, elements.count > 1 else { return true }
            if let i = StrictEquality.firstDuplicate(in: elements) {
                report(path, keyword, "item \(i) (\(Self.brief(elements[i]))) repeats an earlier item")
                return false
            }
            return true

        case .properties(let list, let table):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for member in object.members {
                let found: SchemaNode?
                if let table {
                    found = table[member.key]
                } else {
                    found = list.first(where: { $0.0 == member.key })?.1
                }
                guard let node = found else { continue }
                if collect { annotations.properties.insert(member.key) }
                if !at(node, member.value, child(path, member.key)) {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            return valid

        case .patternProperties(let patterns):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for member in object.members {
                for (pattern, node) in patterns where pattern.matches(member.key) {
                    if collect { annotations.properties.insert(member.key) }
                    if !at(node, member.value, child(path, member.key)) {
                        valid = false
                        if !reporting || full { return false }
                    }
                }
            }
            return valid

        case .additionalProperties(let node, let named, let patterns):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for member in object.members {
                if named.contains(member.key) || patterns.contains(where: { $0.matches(member.key) }) { continue }
                if collect { annotations.properties.insert(member.key) }
                if !leftover(node, keyword, member.value, child(path, member.key), "property \(Self.brief(.string(member.key))) is not allowed") {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            return valid

        case .propertyNames(let node):
            guard case .object(let object) = instance else { return true }
            for member in object.members where !quietly({ $0.at(node, .string(member.key), "") }) {
                report(path, keyword, "property name \(Self.brief(.string(member.key))) is not allowed")
                return false
            }
            return true

        case .required(let names):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for name in names where object[name] == nil {
                report(path, keyword, "missing property \(Self.brief(.string(name)))")
                valid = false
                if !reporting || full { return false }
            }
            return valid

        case .dependentRequired(let dependencies):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for (trigger, names) in dependencies where object[trigger] != nil {
                for name in names where object[name] == nil {
                    report(path, keyword, "property \(Self.brief(.string(trigger))) requires \(Self.brief(.string(name)))")
                    valid = false
                    if !reporting || full { return false }
                }
            }
            return valid

        case .dependentSchemas(let dependencies):
            guard case .object(let object) = instance else { return true }
            var valid = true
            for (trigger, node) in dependencies where object[trigger] != nil {
                if !inPlace(node, instance, path, &annotations, collect: collect) {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            return valid

        case .minProperties(let limit):
            guard case .object(let object) = instance, object.count < limit else { return true }
            report(path, keyword, "\(object.count) properties, fewer than \(limit)")
            return false

        case .maxProperties(let limit):
            guard case .object(let object) = instance, object.count > limit else { return true }
            report(path, keyword, "\(object.count) properties, more than \(limit)")
            return false

        case .allOf(let nodes):
            var valid = true
            for node in nodes where !inPlace(node, instance, path, &annotations, collect: collect) {
                valid = false
                if !reporting || full { return false }
            }
            return valid

        case .anyOf(let nodes):
            var any = false
            for node in nodes where quietly({ $0.inPlace(node, instance, path, &annotations, collect: collect) }) {
                any = true
                if !collect { break }
            }
            if !any { report(path, keyword, "matches none of the \(nodes.count) alternatives") }
            return any

        case .oneOf(let nodes):
            var matches = 0
            var local = Annotations()
            for node in nodes where quietly({ $0.inPlace(node, instance, path, &local, collect: collect) }) {
                matches += 1
                if matches > 1 { break }
            }
            if matches == 1 {
                if collect { annotations.merge(local) }
                return true
            }
            report(path, keyword, matches == 0 ? "matches none of the \(nodes.count) alternatives"
                   : "matches more than one alternative")
            return false

        case .not(let node):
            var ignored = Annotations()
            if !quietly({ $0.evaluate(node, instance, path, &ignored, collect: false) }) { return true }
            report(path, keyword, "\(Self.brief(instance)) matches a schema it must not match")
            return false

        case .conditional(let condition, let then, let otherwise):
            if then == nil && otherwise == nil && !collect { return true }
            if quietly({ $0.inPlace(condition, instance, path, &annotations, collect: collect) }) {
                guard let then else { return true }
                if inPlace(then, instance, path, &annotations, collect: collect) { return true }
                report(path, keyword, "the \"if\" schema matched but \"then\" failed")
                return false
            }
            guard let otherwise else { return true }
            if inPlace(otherwise, instance, path, &annotations, collect: collect) { return true }
            report(path, keyword, "the \"if\" schema did not match and \"else\" failed")
            return false

        case .ref(let node):
            return inPlace(node, instance, path, &annotations, collect: collect)

        case .dynamicRef(let fallback, let anchor):
            var target = fallback
            if let anchor {
                for resource in scope {
                    if let node = anchors.anchors[resource][anchor] {
                        target = node
                        break
                    }
                }
            }
            return inPlace(target, instance, path, &annotations, collect: collect)

        case .unevaluatedItems(let node):
            guard case .array(let elements) = instance else { return true }
            var valid = true
            for (i, element) in elements.enumerated() where !annotations.evaluatedItem(i) {
                if !leftover(node, keyword, element, child(path, i), "item \(i) is not allowed") {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            if collect { annotations.allItems = true }
            return valid

        case .unevaluatedProperties(let node):
            guard case .object(let object) = instance else { return true }
            var valid = true
            var newlyEvaluated: [String] = []
            for member in object.members where !annotations.properties.contains(member.key) {
                newlyEvaluated.append(member.key)
                if !leftover(node, keyword, member.value, child(path, member.key), "property \(Self.brief(.string(member.key))) is not allowed") {
                    valid = false
                    if !reporting || full { return false }
                }
            }
            if collect { annotations.properties.formUnion(newlyEvaluated) }
            return valid
        }
    }

    /// Applies an additional/unevaluated subschema; a `false` one gets a message naming the keyword.
    private mutating func leftover(_ node: SchemaNode, _ keyword: CompiledKeyword, _ value: JSON,
                                   _ path: String, _ reason: @autoclosure () -> String) -> Bool {
        if node.constant == false {
            report(path, keyword, reason())
            return false
        }
        return at(node, value, path)
    }

    static func typeBit(of value: JSON) -> TypeMask {
        switch value {
        case .null: return .null
        case .bool: return .boolean
        case .number: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }

    static func typeName(of value: JSON) -> String {
        if case .number(let n) = value, n.isInteger { return "integer" }
        return typeBit(of: value).names.first ?? "?"
    }

    /// A value as compact JSON, shortened for messages.
    static func brief(_ value: JSON) -> String {
        let text = value.serializedString()
        guard text.count > 60 else { return text }
        return String(text.prefix(57)) + "..."
    }
}
