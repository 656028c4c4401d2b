import ReshapeJSON

/// The value at a streamed Firebase location, kept up to date by its events, as Firebase itself
/// keeps it: a `null` deletes, and an object left with no members is deleted too (Firebase
/// stores no empty objects), up to the root, which becomes `null`.
///
/// Firebase has no arrays, only keys, but a GET returns a location whose keys are 0, 1, … as an
/// array, so the document can hold arrays, and they are kept as arrays as long as they can be:
/// - a token that is an index of the array ("0", "7"; no sign, no leading zero) sets or deletes
///   that element in place, and the index one past the end appends;
/// - a deleted element becomes `null` (a GET shows a missing key so), trailing `null`s are
///   dropped, and an array left with no elements is deleted like an empty object;
/// - any other token that sets a value turns the array into the object Firebase holds, keyed
///   "0", "1", … (its `null`s left out), and then sets the member; deleting such a token changes
///   nothing, since no such key exists.
/// A scalar (or nothing) on the way to a value being set is replaced by an object, as Firebase
/// replaces it; deleting below a scalar changes nothing.
///
/// Where this differs from a GET: Firebase renders integer-keyed children as an array whenever
/// more than half of the keys 0…max are present, and it may list keys in its own order; this
/// document keeps the form and order the events gave it (new members last). A reconnect's fresh
/// `put "/"` then brings Firebase's form back. Routes normalize through `keyed-to-array` with an
/// `order`, which makes the answer independent of both.
public struct FirebaseDocument: Sendable {
    /// The current value: what a plain GET of the location would return now, but for the form of
    /// integer-keyed children and the order of keys (see the type's comment).
    public private(set) var value: JSON {
        didSet { rootIndex = nil }
    }
    /// The root object's member names, kept with `value` by the changes that add or remove one
    /// member, made again after others; nil when the root is not an object.
    private var rootIndex: RootMemberIndex?

    /// Starts from `value` (usually a GET of the location), in the form Firebase stores it:
    /// `null` members and empty objects removed.
    public init(_ value: JSON = .null) {
        self.value = Self.stored(value) ?? .null
        rootIndex = RootMemberIndex(self.value)
    }

    /// The value of the root object's member `name`; nil when there is none (or the root is
    /// not an object). Found through the names' hashes, not by comparing every name.
    public func rootMember(named name: String) -> JSON? {
        guard case .object(let object) = value else { return nil }
        guard let rootIndex else { return object[name] }
        let position = rootIndex.position(of: name, in: object)
        assert(position == object.index(forKey: name), "the root index is out of step with the root")
        return position.map { object.members[$0].value }
    }

    /// What an applied event changed, so that a caller can redo only that part of its work.
    public enum Change: Sendable, Equatable {
        /// Nothing changed: the event set exactly what was there (same spelling: member order,
        /// number text and string bytes), deleted what was not there, or was not a change.
        case none
        /// Only these members of the root object changed (added, replaced or removed), in the
        /// order they were first touched, each once. For an array root, its index tokens.
        case rootMembers([String])
        /// The root itself was replaced (a put at "/" that changed it, or the root's kind
        /// changed: null, scalar, array or object).
        case whole
    }

    /// Why an event cannot be applied.
    public enum Failure: Error, Equatable, Sendable {
        /// The event would nest the document deeper than `maxDepth` levels, so that it could not
        /// be read back by Reshape's JSON parser; the document is left unchanged.
        case pathNotApplicable(path: [String])
    }

    /// The deepest nesting a document may reach: what `JSON.parse` accepts by default. (Firebase
    /// itself allows 32 levels.)
    public static let maxDepth = JSONParseOptions().maxDepth

    /// Applies a `put` or `patch`; other events change nothing (`.none`).
    public mutating func apply(_ event: FirebaseEvent) throws(Failure) -> Change {
        switch event {
        case .put(let path, let data):
            let new = Self.stored(data)
            guard path.count + (new.map(Self.depth) ?? 0) <= Self.maxDepth else {
                throw .pathNotApplicable(path: path)
            }
            if path.isEmpty {
                let root = new ?? .null
                if Self.same(value, root) { return .none }
                value = root
                rootIndex = RootMemberIndex(value)
                return .whole
            }
            return change(at: path, creating: new != nil) { node, _ in Self.replace(&node, with: new) }
        case .patch(let path, let children):
            // A key is a path below `path` ("-Nx1/name"): a multi-location update (REST PATCH
            // with slashes in its keys, the SDKs' update()) arrives as one patch so.
            let stored = children.members.map {
                (tokens: FirebaseEvent.pathTokens($0.key), value: Self.stored($0.value))
            }
            for child in stored
            where path.count + child.tokens.count + (child.value.map(Self.depth) ?? 0) > Self.maxDepth {
                throw .pathNotApplicable(path: path + child.tokens)
            }
            let creating = stored.contains { $0.value != nil }
            return change(at: path, creating: creating) { node, touch in
                var changed = false
                var rest = stored[...]
                // A large patch of direct children (a whole collection at once) is merged in one
                // pass over the object, not found by a scan per child.
                let direct = stored.filter { $0.tokens.count == 1 }
                if direct.count > Self.mergeThreshold,
                    let merged = Self.mergeChildren(
                        &node, direct.map { (name: $0.tokens[0], value: $0.value) }
                    ) { if path.isEmpty { touch($0) } }
                {
                    changed = merged
                    rest = stored.filter { $0.tokens.count > 1 }[...]
                }
                for child in rest {
                    guard let first = child.tokens.first else { continue }
                    let childChanged = Self.modify(&node, at: child.tokens[...], creating: child.value != nil) {
                        Self.replace(&$0, with: child.value)
                    }
                    if childChanged, path.isEmpty { touch(first) }
                    changed = changed || childChanged
                }
                return changed
            }
        case .keepAlive, .cancel, .authRevoked:
            return .none
        }
    }

    /// Runs `body` on the value at `path` (see `modify`) and says what that changed. `body` may
    /// name the root members it touched when `path` is empty; otherwise the first token is.
    private mutating func change(
        at path: [String], creating: Bool, _ body: (inout JSON?, (String) -> Void) -> Bool
    ) -> Change {
        let kindBefore = Kind(value)
        // Where the first token is among the root's members, known from the index: nil when
        // unknown, `.some(nil)` when it is not there.
        var position: Int?? = nil
        var index = rootIndex
        if let token = path.first, let known = index, case .object(let object) = value {
            position = .some(known.position(of: token, in: object))
            assert(position! == object.index(forKey: token), "the root index is out of step with the root")
        }
        var root: JSON? = value
        if case .null = value { root = nil }
        value = .null  // so that `root` is the only reference and changes in place
        var touched: [String] = []
        var seen: Set<[UInt8]> = []
        let touch = { (name: String) in
            if seen.insert(Array(name.utf8)).inserted { touched.append(name) }
        }
        let changed = Self.modify(&root, at: path[...], creating: creating, position: position) {
            body(&$0, touch)
        }
        value = root ?? .null
        rootIndex = Self.updated(&index, position: position, token: path.first, after: value)
        guard changed else { return .none }
        if Kind(value) != kindBefore { return .whole }
        if let first = path.first { return .rootMembers([first]) }
        return touched.isEmpty ? .none : .rootMembers(touched)
    }

    /// The root index after a change at `token` whose position it knew: one member fewer is
    /// the one at `position` removed, one more is `token` appended, as many is the same names;
    /// made again from `value` otherwise.
    private static func updated(
        _ index: inout RootMemberIndex?, position: Int??, token: String?, after value: JSON
    ) -> RootMemberIndex? {
        guard var known = index, let position, let token, case .object(let object) = value else {
            return RootMemberIndex(value)
        }
        index = nil  // so that `known` is the only reference and changes in place
        switch object.count - known.count {
        case 0: return known
        case -1 where position != nil:
            known.remove(at: position!)
            return known
        case 1 where position == nil && JSON.sameBytes(object.members[object.count - 1].key, token):
            known.append(token)
            return known
        default: return RootMemberIndex(value)
        }
    }

    /// Sets `node` to `new` (nil deletes); true when that changed it.
    private static func replace(_ node: inout JSON?, with new: JSON?) -> Bool {
        switch (node, new) {
        case (nil, nil): return false
        case (let old?, let new?) where same(old, new): return false
        default:
            node = new
            return true
        }
    }

    /// Walks `path` down from `node` and runs `body` on what is there (nil: nothing), then, on the
    /// way back, removes what was left empty. When `creating`, missing or scalar values on the way
    /// become objects and arrays may turn into objects (see the type's comment); otherwise the
    /// walk stops where the path ends, changing nothing. True when anything changed.
    static func modify(
        _ node: inout JSON?, at path: ArraySlice<String>, creating: Bool, position: Int?? = nil,
        _ body: (inout JSON?) -> Bool
    ) -> Bool {
        guard let token = path.first else { return body(&node) }
        let rest = path.dropFirst()
        // Taking each container out of its parent leaves it one reference, so it changes in place:
        // an event costs the path's length, not the document's size.
        if var object = takeObject(&node) {
            let index = position ?? object.index(forKey: token)
            guard index != nil || creating else {
                node = .object(object)
                return false
            }
            var child = index.map { object.members[$0].value }
            if let index { object.members[index].value = .null }
            let changed = modify(&child, at: rest, creating: creating, body)
            switch (index, child) {
            case (let index?, let child?): object.members[index].value = child
            case (let index?, nil): object.members.remove(at: index)
            case (nil, let child?): object.members.append(JSONMember(key: token, value: child))
            case (nil, nil): break
            }
            node = object.isEmpty ? nil : .object(object)
            return changed
        }
        if var elements = takeArray(&node) {
            guard let index = arrayIndex(token, count: elements.count) else {
                guard creating else {
                    node = .array(elements)
                    return false
                }
                node = .object(objectKeyed(elements))
                _ = modify(&node, at: path, creating: true, body)
                return true
            }
            var child: JSON? = index < elements.count ? elements[index] : nil
            if case .null? = child { child = nil }
            guard child != nil || creating else {
                node = .array(elements)
                return false
            }
            if index < elements.count { elements[index] = .null }
            let changed = modify(&child, at: rest, creating: creating, body)
            if index < elements.count {
                elements[index] = child ?? .null
            } else if let child {
                elements.append(child)
            }
            while case .null? = elements.last { elements.removeLast() }
            node = elements.isEmpty ? nil : .array(elements)
            return changed
        }
        guard creating else { return false }
        node = .object(JSONObject())
        _ = modify(&node, at: path, creating: true, body)
        return true
    }

    /// The object `node` holds, moved out (leaving nil), or nil when it holds none. Done in a
    /// function of its own so that no copy outlives the move: a `switch` over `node` keeps one
    /// until its end, and every change to the object would then copy it whole.
    private static func takeObject(_ node: inout JSON?) -> JSONObject? {
        guard case .object(let object)? = node else { return nil }
        node = nil
        return object
    }

    /// The array `node` holds, moved out (leaving nil), or nil when it holds none.
    private static func takeArray(_ node: inout JSON?) -> [JSON]? {
        guard case .array(let elements)? = node else { return nil }
        node = nil
        return elements
    }

    /// Above this many direct children, a patch is merged in one pass (`mergeChildren`).
    static let mergeThreshold = 8

    /// Sets (or, for nil, deletes) the named members of the object `node` holds in one pass over
    /// it: replaced members keep their place, new ones are appended in the patch's order.
    /// Returns whether anything changed, or nil, leaving `node` alone, when `node` is not an
    /// object or nothing (an array or a scalar takes the per-child path, which converts it).
    static func mergeChildren(
        _ node: inout JSON?, _ children: [(name: String, value: JSON?)], touch: (String) -> Void
    ) -> Bool? {
        var object: JSONObject
        if let taken = takeObject(&node) {
            object = taken
        } else if node == nil {
            object = JSONObject()
        } else {
            return nil
        }
        var pending: [[UInt8]: Int] = [:]
        pending.reserveCapacity(children.count)
        // With a name twice, the last one wins, as it would applied in order.
        for (i, child) in children.enumerated() { pending[Array(child.name.utf8)] = i }
        var changed = false
        var members: [JSONMember] = []
        members.reserveCapacity(object.count + children.count)
        for member in object.members {
            guard let i = pending.removeValue(forKey: Array(member.key.utf8)) else {
                members.append(member)
                continue
            }
            if let new = children[i].value, same(member.value, new) {
                members.append(member)
                continue
            }
            if let new = children[i].value { members.append(JSONMember(key: member.key, value: new)) }
            changed = true
            touch(member.key)
        }
        for (i, child) in children.enumerated() {
            guard pending[Array(child.name.utf8)] == i, let new = child.value else { continue }
            members.append(JSONMember(key: child.name, value: new))
            changed = true
            touch(child.name)
        }
        object.members = members
        node = object.isEmpty ? nil : .object(object)
        return changed
    }

    /// The index `token` names in an array of `count` elements (`count` itself appends), or nil
    /// when it is not a canonical decimal index in `0...count`.
    static func arrayIndex(_ token: String, count: Int) -> Int? {
        let digits = token.utf8
        guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        var index = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            index = index * 10 + Int(digit - UInt8(ascii: "0"))
            if index > count { return nil }
        }
        return index
    }

    /// The object Firebase holds for an array: keys "0", "1", …, `null` elements left out.
    static func objectKeyed(_ elements: [JSON]) -> JSONObject {
        var object = JSONObject()
        object.members.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            if case .null = element { continue }
            object.members.append(JSONMember(key: String(index), value: element))
        }
        return object
    }
}
