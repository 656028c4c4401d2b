import ReshapeCompression
import ReshapeDigest

/// The `ETag` of a conditional route's answer: today's tag of the bytes sent (so `If-None-Match`
/// and 304s work per content coding as before), with two more parts inside the same quotes that
/// only `If-Match` reads: the resource it was made for and Firebase's ETag of that resource.
///
///     "<16 hex: the bytes>.<32 hex: the resource>.<hex of Firebase's ETag>"[-<coding>]
///
/// The resource part is a SHA-256 (truncated to 128 bits) of the upstream request's URL without
/// its query, its upstream's name and the route group's conditional fingerprint
/// (`Route.conditionalFingerprint`): it says "this route group, these rules, this upstream
/// location" without saying any of them, so nothing in the rules (a secret in the upstream's
/// headers, its host) can be read from it. Firebase's ETag is carried in hex so that no byte it
/// may hold (`+`, `/`, `=`, a quote) can end the tag or look like a coding suffix.
package struct ConditionalTag: Equatable, Sendable {
    /// The hash of the identity bytes, as `EntityTag.of` made it, without quotes.
    package var representation: String
    /// `ConditionalTag.resource(...)`.
    package var resource: String
    /// Firebase's ETag, as Firebase sent it.
    package var firebase: String

    package init(representation: String, resource: String, firebase: String) {
        self.representation = representation
        self.resource = resource
        self.firebase = firebase
    }

    /// The longest Firebase ETag carried (Firebase's are 28 characters of base64).
    package static let maxFirebaseBytes = 256

    /// The resource part for a fetch of `url` (its query is dropped: credentials may be in it,
    /// and the resource is the location) from upstream `upstream`, under `fingerprint`.
    package static func resource(upstream: String, url: String, fingerprint: String) -> String {
        let location = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let text = "reshape-conditional-v1\n" + upstream + "\n" + location + "\n" + fingerprint
        return String(SHA256Digest.hex(Array(text.utf8)).prefix(32))
    }

    /// Whether `value` is an ETag Firebase could have sent that a tag may carry: printable
    /// ASCII without quotes, at most `maxFirebaseBytes`. Anything else is not passed on.
    package static func isCarried(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= maxFirebaseBytes
            && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }
    }

    /// The tag as the `ETag` header carries it (identity coding).
    package var header: String {
        "\"" + representation + "." + resource + "." + Self.hex(Array(firebase.utf8)) + "\""
    }

    /// `identityTag` (`"<16 hex>"`, as `EntityTag.of` makes it) with the resource and Firebase's
    /// ETag added; `identityTag` itself when it is not in that form or Firebase's is not carried.
    package static func composed(_ identityTag: String, resource: String, firebase: String) -> String {
        guard identityTag.count == 18, identityTag.hasPrefix("\""), identityTag.hasSuffix("\""), isCarried(firebase)
        else { return identityTag }
        return ConditionalTag(
            representation: String(identityTag.dropFirst().dropLast()), resource: resource, firebase: firebase
        ).header
    }

    /// One entity tag (quotes included, as a member of `If-Match`) read as ours; nil when it is
    /// weak, malformed or anyone else's. A content coding's suffix is allowed: each coding's
    /// tag names the same resource.
    package static func parse(_ tag: Substring) -> ConditionalTag? {
        guard tag.count >= 2, tag.first == "\"", tag.last == "\"" else { return nil }
        var inner = tag.dropFirst().dropLast()
        if let dash = inner.lastIndex(of: "-") {
            let suffix = inner[dash...]
            guard ContentCoding.serverPreference.contains(where: { $0.entityTagSuffix == suffix }) else { return nil }
            inner = inner[..<dash]
        }
        let parts = inner.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 16, parts[1].count == 32, parts.allSatisfy(isHex),
            let firebase = unhex(parts[2]), isCarried(firebase)
        else { return nil }
        return ConditionalTag(representation: String(parts[0]), resource: String(parts[1]), firebase: firebase)
    }

    private static func isHex(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func unhex(_ text: Substring) -> String? {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8 { digit <= 0x39 ? digit - 0x30 : digit - 0x61 + 10 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            bytes.append(value(utf8[index]) << 4 | value(utf8[index + 1]))
            index += 2
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
