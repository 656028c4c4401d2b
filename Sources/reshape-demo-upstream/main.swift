// reshape-demo-upstream: a small blocking HTTP/1.1 server with Firebase-shaped data, writes,
// event streams and fault modes, used by the quick start, docker-compose and the integration tests.
#if canImport(Glibc)
    import Glibc
#endif

let usage = """
    usage: reshape-demo-upstream [--listen HOST:PORT] [--redirect-listen HOST:PORT] [--keep-alive SECONDS]
                                 [--jwks FILE] [--jwks-max-age SECONDS]

    Serves Firebase-shaped demo data over HTTP/1.1 (default 127.0.0.1:8081; port 0 picks a
    free port). Prints "listening on HOST:PORT" once ready; with --redirect-listen, a second
    listener serving the same data, which /redirect/ sends requests to as Firebase sends
    streams to another machine, and "redirect listener on HOST:PORT" before that line. The data lives in memory: it starts
    the same on every run and writes change it until the process ends.

      GET /users.json  /users/{id}.json  /devices.json  /devices/{uid}.json  /posts.json
          /scores.json  /widgets.json
          (any Firebase path; ?print=pretty, ?shallow=true; a missing path is 200 null; every
          read says Cache-Control: no-cache, as Firebase's do)
      POST /users.json (any path)  stores a new child, 201 {"name": "<push id>"}
      PUT sets the value (null deletes), PATCH sets the named children (null deletes one),
          both answer the data; DELETE removes, answers null. Empty objects disappear.
      GET with Accept: text/event-stream  a Firebase event stream of that path: "put" of the
          whole value, then "put"/"patch" for each write that changes it, "keep-alive" every
          --keep-alive seconds (default 30; fractions allowed)
      /_demo/streams  {"open": n, "opened": m, "streams": [{"id", "path"}]}
      POST /_demo/streams/cancel  /revoke  send "cancel" / "auth_revoked" and end the streams
      POST /_demo/streams/refuse?count=N&status=S  the next N stream requests answer S (503)
      POST /_demo/streams/drop  reset every stream connection mid-stream
          (?path=/users: only the streams of that path; ?reason=TEXT: the event's data)
      /redirect/N/<any path>  307 to /redirect/N-1/<any path> (N from 1 to 20; the last hop to
          <any path>) on the redirect listener, or on this one without it; method, body and
          query go along
      /delay/MS/<any path>  that path's answer after MS milliseconds
      /fault/hang  /fault/slow?ms=N  /fault/reset  /fault/stall  /fault/close
      /fault/status/NNN (429 and 503 with Retry-After: 7)  /fault/html
      /fault/redirect/STATUS/HOST:PORT/<any path>  STATUS (301, 302, 303, 307, 308) with
          Location http://HOST:PORT/<any path> (- for HOST:PORT: the relative /<any path>)
      /fault/invalid-json (error at line 3, column 5)  /fault/big?bytes=N  /fault/gzip
      /echo[/...]  the request as received
      /_log[?clear=1]  the last requests: method, target, headers, body, timings, whether
          the client left before the answer (of /_demo/, only the key set's fetches)

    A demo identity provider, mimicking Firebase Auth's ID tokens for the demo only (anyone
    may mint a token for any user; never use it for anything real). An RSA-2048 key pair is
    made at start and lives in memory only:
      GET /_demo/jwks.json  the public keys (JWKS, RFC 7517), as Google publishes Firebase's,
          with Cache-Control: public, max-age=300 (--jwks-max-age SECONDS)
      POST /_demo/token?sub=ID[&ttl=SECONDS][&claim.NAME=VALUE...]  {"token": "<JWT>"}: an
          RS256 ID token with iss https://securetoken.google.com/reshape-demo, aud
          reshape-demo, sub and user_id ID, auth_time, iat now, exp now + ttl (default 3600;
          negative: already expired), and each claim.NAME (true, false and whole numbers as
          those JSON types, else a string; a standard claim's name replaces it)
      POST /_demo/keys/rotate[?drop-old=true]  a new signing key with a new kid; the key set
          lists it first and the previous key after it (as Google keeps publishing the old
          key during a rotation), or only the new one with drop-old=true
      --jwks FILE  serve FILE's bytes as /_demo/jwks.json instead, read again on every
          request (tests write keys of their own there); /_demo/token and
          /_demo/keys/rotate then answer 409

    """

func fail(_ message: String, status: Int32 = 2) -> Never {
    let text = "reshape-demo-upstream: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

var listenText = "127.0.0.1:8081"
var redirectListenText: String?
var keepAliveMilliseconds = 30_000
var keySetFile: String?
var keySetMaxAge = 300
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--listen":
        guard let value = arguments.popFirst() else { fail("--listen needs HOST:PORT\n\n" + usage) }
        listenText = value
    case "--redirect-listen":
        guard let value = arguments.popFirst() else { fail("--redirect-listen needs HOST:PORT\n\n" + usage) }
        redirectListenText = value
    case "--keep-alive":
        guard let value = arguments.popFirst(), let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
            fail("--keep-alive needs SECONDS, more than 0\n\n" + usage)
        }
        keepAliveMilliseconds = max(1, Int(seconds * 1000))
    case "--jwks":
        guard let value = arguments.popFirst(), !value.isEmpty else { fail("--jwks needs FILE\n\n" + usage) }
        keySetFile = value
    case "--jwks-max-age":
        guard let value = arguments.popFirst(), let seconds = Int(value), (0...31_536_000).contains(seconds) else {
            fail("--jwks-max-age needs whole SECONDS, 0 or more\n\n" + usage)
        }
        keySetMaxAge = seconds
    case "-h", "--help":
        print(usage, terminator: "")
        exit(0)
    default:
        fail("unknown argument \(argument)\n\n" + usage)
    }
}
guard let address = ListenAddress(listenText) else { fail("--listen wants HOST:PORT, got \(listenText)") }
// Before "listening": the first token request must not wait for a key pair.
if case .failure = DemoIdentity.shared.configure(keySetFile: keySetFile, maxAgeSeconds: keySetMaxAge) {
    fail("OpenSSL could not make an RSA key pair", status: 1)
}

// Ctrl-C and `kill` are the normal way to stop the demo: exit 0 at once. The signals are
// blocked in every thread (connection threads inherit the mask) and taken by one thread with
// sigwait, so no handler ever interrupts a thread in the middle of a system call.
signal(SIGPIPE, SIG_IGN)
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
sigaddset(&stopSignals, SIGTERM)
sigaddset(&stopSignals, SIGINT)
pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
spawnDetachedThread { [stopSignals] in
    var waitSet = stopSignals
    var received: Int32 = 0
    sigwait(&waitSet, &received)
    _exit(0)
}

let listener: Listener
var redirectListener: Listener?
do {
    listener = try Listener.open(address)
    if let redirectListenText {
        guard let redirectAddress = ListenAddress(redirectListenText) else {
            fail("--redirect-listen wants HOST:PORT, got \(redirectListenText)")
        }
        redirectListener = try Listener.open(redirectAddress)
    }
} catch {
    fail("\(error)", status: 1)
}
let redirectHost = redirectListener.map { "\($0.bound.host):\($0.bound.port)" }
if let redirectHost {
    let line = "redirect listener on \(redirectHost)\n"
    _ = line.withCString { write(1, $0, strlen($0)) }
}
// Written straight to fd 1 so it is never held in a buffer: scripts wait for this line.
let ready = "listening on \(listener.bound.host):\(listener.bound.port)\n"
_ = ready.withCString { write(1, $0, strlen($0)) }

let log = RequestLog()
let router = Router(log: log, keepAliveMilliseconds: keepAliveMilliseconds, redirectHost: redirectHost)
if let redirectListener {
    spawnDetachedThread { redirectListener.serve(router: router, log: log) }
}
listener.serve(router: router, log: log)
