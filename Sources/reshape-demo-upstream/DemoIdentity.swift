// The demo's identity provider: it mimics Firebase Auth's ID tokens (RS256 JWTs whose public
// keys a JWKS publishes, rotated now and then) so the demo and the tests can show verified
// users without Google. For the demo only: anyone may mint a token for any user.
#if canImport(Glibc)
    import Glibc
#endif

final class DemoIdentity: @unchecked Sendable {
    /// As Firebase names a project's issuer and audience (project id `reshape-demo`).
    static let issuer = "https://securetoken.google.com/reshape-demo"
    static let audience = "reshape-demo"
    static let defaultLifetimeSeconds = 3600

    /// One for the process: main.swift configures it before serving, the router reads it.
    static let shared = DemoIdentity()

    private let lock = Lock()
    /// The signing key first, then the one it replaced (still published, as Google does).
    private var keys: [SigningKey] = []
    /// `--jwks FILE`: that file's bytes are the key set, and no token is minted here.
    private var keySetFile: String?
    private var maxAgeSeconds = 300

    enum Failure: Error {
        /// The key set comes from `--jwks FILE`: the demo holds no private key for it.
        case externalKeySet(String)
        case unreadable(String)
        case openSSL
    }

    /// Makes the first key pair, unless a file stands for the key set.
    func configure(keySetFile: String?, maxAgeSeconds: Int) -> Result<Void, Failure> {
        lock.withLock {
            self.keySetFile = keySetFile
            self.maxAgeSeconds = maxAgeSeconds
        }
        guard keySetFile == nil else { return .success(()) }
        return rotate(keepPrevious: false).map { _ in () }
    }

    var publishedKeyIDs: [String] { lock.withLock { keys.map(\.id) } }

    var cacheControl: String { lock.withLock { "public, max-age=\(maxAgeSeconds)" } }

    /// The JWKS document: the generated public keys, or the file's bytes read now (tests rewrite
    /// it to rotate keys).
    func keySet() -> Result<[UInt8], Failure> {
        let (file, published) = lock.withLock { (keySetFile, keys) }
        if let file {
            guard let bytes = readFile(file) else { return .failure(.unreadable(file)) }
            return .success(bytes)
        }
        return .success(Array(DemoValue.object([("keys", .array(published.map(\.publicJWK)))]).text().utf8))
    }

    /// A new signing key; the previous one stays published after it unless `keepPrevious` is
    /// false. Keys older than the previous one are dropped.
    func rotate(keepPrevious: Bool) -> Result<SigningKey, Failure> {
        if let file = lock.withLock({ keySetFile }) { return .failure(.externalKeySet(file)) }
        guard let key = SigningKey() else { return .failure(.openSSL) }
        lock.withLock { keys = [key] + (keepPrevious ? keys.prefix(1) : []) }
        return .success(key)
    }

    /// A signed ID token for `subject`, valid from now for `lifetimeSeconds`, with Firebase's
    /// claims; `extraClaims` are added after them and replace one of the same name.
    func mint(subject: String, lifetimeSeconds: Int, extraClaims: [(String, DemoValue)]) -> Result<String, Failure> {
        let (file, signingKey) = lock.withLock { (keySetFile, keys.first) }
        if let file { return .failure(.externalKeySet(file)) }
        guard let signingKey else { return .failure(.openSSL) }
        let now = Int(time(nil))
        var claims: [(String, DemoValue)] = [
            ("iss", .string(Self.issuer)), ("aud", .string(Self.audience)), ("auth_time", .int(now)),
            ("user_id", .string(subject)), ("sub", .string(subject)), ("iat", .int(now)),
            ("exp", .int(now + lifetimeSeconds)),
        ]
        for (name, value) in extraClaims {
            if let index = claims.firstIndex(where: { $0.0 == name }) {
                claims[index].1 = value
            } else {
                claims.append((name, value))
            }
        }
        let header = DemoValue.object([
            ("alg", .string("RS256")), ("kid", .string(signingKey.id)), ("typ", .string("JWT")),
        ])
        let signingInput = Base64URL.encode(header.text()) + "." + Base64URL.encode(DemoValue.object(claims).text())
        guard let signature = signingKey.sign(Array(signingInput.utf8)) else { return .failure(.openSSL) }
        return .success(signingInput + "." + Base64URL.encode(signature))
    }

    private func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { return bytes }
            bytes += buffer.prefix(n)
            guard bytes.count <= 1024 * 1024 else { return nil }  // a key set is a few KB
        }
    }
}
