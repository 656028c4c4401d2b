import ReshapeAuth

// The input is a JWKS document, a NUL byte, then an `Authorization` header value: what an
// identity provider publishes and what a client sends. Both go through `KeySet.parse` and
// `TokenVerifier` (issuer and audience of the committed seeds, checked at their fixed time).
// Properties:
// - nothing traps on any input, and a refusal's reason never holds the token;
// - a token that passes has a non-empty subject and has not expired;
// - a token that passes no longer does once a byte of its signed part is changed: the
//   signature covers all of it.

private let verifier = TokenVerifier(issuer: "https://securetoken.google.com/my-app", audience: "my-app")
/// The time the seeds' tokens were minted for (`Tests/ReshapeAuthTests/mint_tokens.py`).
private let now = 1_800_000_000.0

/// One libFuzzer input (`LLVMFuzzerTestOneInput` of its fuzz target); always 0.
public func fuzzAuth(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    guard let split = input.firstIndex(of: 0) else {
        _ = KeySet.parse(input)
        return 0
    }
    guard case .success(let keys) = KeySet.parse(Array(input[..<split])),
        let header = String(validating: input[(split + 1)...], as: UTF8.self)
    else { return 0 }
    guard case .success(let token) = TokenVerifier.bearerToken(header) else { return 0 }
    switch verifier.verify(token, keys: keys, now: now) {
    case .failure(let failure):
        require(token.count < 8 || !failure.reason.contains(token), "a refusal's reason holds the token")
    case .success(let verified):
        require(!verified.subject.isEmpty, "a token passed without a subject")
        require(now < verified.expiresAt + verifier.leewaySeconds, "an expired token passed")
        var bytes = Array(token.utf8)
        guard let signatureDot = bytes.lastIndex(of: UInt8(ascii: ".")) else { return 0 }
        for position in [0, signatureDot / 2, signatureDot - 1] where bytes[position] != UInt8(ascii: ".") {
            let original = bytes[position]
            bytes[position] = original == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let changed = String(decoding: bytes, as: UTF8.self)
            if case .success = verifier.verify(Substring(changed), keys: keys, now: now) {
                require(false, "a token still passed with byte \(position) of its signed part changed")
            }
            bytes[position] = original
        }
    }
    return 0
}
