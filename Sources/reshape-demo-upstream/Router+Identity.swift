// The identity provider's endpoints under /_demo: the key set Reshape fetches, tokens for the
// demo's users, and key rotation. They stand for Google's JWKS URL and Firebase Auth's sign-in.

extension Router {
    /// Longest `ttl` a demo token may ask for (a week); a negative one mints an expired token.
    static let tokenLifetimes = -86_400...604_800

    /// `/_demo/jwks.json`, `/_demo/token`, `/_demo/keys/rotate`; nil for any other `/_demo` path.
    func identityControl(_ segments: [String], _ request: DemoRequest) -> DemoReply? {
        switch segments {
        case ["jwks.json"]: return .respond(keySet(request))
        case ["token"]: return .respond(token(request))
        case ["keys", "rotate"]: return .respond(rotateKeys(request))
        default: return nil
        }
    }

    /// The public keys as RFC 7517 publishes them, cacheable as Google's are.
    private func keySet(_ request: DemoRequest) -> DemoResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .firebaseError(405, "GET /_demo/jwks.json reads the public keys.")
        }
        switch DemoIdentity.shared.keySet() {
        case .success(let bytes):
            return DemoResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", DemoIdentity.shared.cacheControl)],
                body: bytes)
        case .failure(let failure):
            return Router.identityError(failure)
        }
    }

    /// `POST /_demo/token?sub=ID[&ttl=SECONDS][&claim.NAME=VALUE...]`: `{"token": "<JWT>"}`.
    private func token(_ request: DemoRequest) -> DemoResponse {
        guard request.method == "POST" else {
            return .firebaseError(405, "POST /_demo/token?sub=ID mints a demo ID token.")
        }
        guard let subject = request.queryValue("sub"), !subject.isEmpty, subject.utf8.count <= 128 else {
            return .firebaseError(400, "Give the user id as ?sub=ID (1 to 128 bytes, as Firebase's uids).")
        }
        var lifetime = DemoIdentity.defaultLifetimeSeconds
        if let text = request.queryValue("ttl") {
            guard let seconds = Int(text), Router.tokenLifetimes.contains(seconds) else {
                return .firebaseError(400, "?ttl wants whole seconds from -86400 to 604800, got \"\(text)\".")
            }
            lifetime = seconds
        }
        var extraClaims: [(String, DemoValue)] = []
        for (name, value) in request.query where name.hasPrefix("claim.") {
            let claim = String(name.dropFirst("claim.".count))
            guard !claim.isEmpty else { return .firebaseError(400, "Name the claim: ?claim.NAME=VALUE.") }
            extraClaims.append((claim, Router.claimValue(value)))
        }
        switch DemoIdentity.shared.mint(subject: subject, lifetimeSeconds: lifetime, extraClaims: extraClaims) {
        case .success(let token): return .json(.object([("token", .string(token))]))
        case .failure(let failure): return Router.identityError(failure)
        }
    }

    /// `POST /_demo/keys/rotate[?drop-old=true]`: `{"kid": "<new key id>", "published": [<key ids>]}`.
    private func rotateKeys(_ request: DemoRequest) -> DemoResponse {
        guard request.method == "POST" else {
            return .firebaseError(405, "POST /_demo/keys/rotate makes a new signing key.")
        }
        let dropOld = request.queryValue("drop-old") == "true"
        switch DemoIdentity.shared.rotate(keepPrevious: !dropOld) {
        case .success(let key):
            let published = DemoIdentity.shared.publishedKeyIDs.map { DemoValue.string($0) }
            return .json(.object([("kid", .string(key.id)), ("published", .array(published))]))
        case .failure(let failure):
            return Router.identityError(failure)
        }
    }

    /// `true`, `false` and whole numbers become those JSON types; any other text stays a string.
    static func claimValue(_ text: String) -> DemoValue {
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            if let number = Int(text) { return .int(number) }
            return .string(text)
        }
    }

    private static func identityError(_ failure: DemoIdentity.Failure) -> DemoResponse {
        switch failure {
        case .externalKeySet(let file):
            return .firebaseError(
                409, "The key set is served from \(file) (--jwks): tokens are minted only for the generated keys.")
        case .unreadable(let file):
            return .firebaseError(503, "Cannot read the key set file \(file).")
        case .openSSL:
            return .firebaseError(500, "OpenSSL could not make or use the demo's key pair.")
        }
    }
}
