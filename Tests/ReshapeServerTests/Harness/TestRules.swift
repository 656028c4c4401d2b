import ReshapeTestSupport

/// Rules the integration tests serve: the demo upstream's data and its fault modes.
enum TestRules {
    static func rules(upstreamPort: Int, version: String = "v1") -> String {
        """
        upstreams:
          demo:
            url: http://127.0.0.1:\(upstreamPort)
            timeout: 1500ms
            connect-timeout: 1s
            headers:
              Authorization: "Bearer ${TEST_SECRET_TOKEN}"
          small:
            url: http://127.0.0.1:\(upstreamPort)
            max-body: 64KiB
            query: { bytes: "200000" }
          nowhere:
            url: http://127.0.0.1:1
            connect-timeout: 1s
        types:
        \(UsersRules.userType())
        routes:
        \(UsersRules.route(upstream: "demo", options: ["forward-query: [orderBy]"]))
          - name: version
            request: GET /version
            upstream: demo
            path: /scores.json
            transform:
              - wrap: \(version)
          - { name: echo, request: "GET /echo/{id}", upstream: demo, path: "/echo/{id}", forward-query: [keep], transform: [] }
          - { name: hang, request: GET /hang, upstream: demo, path: /fault/hang, transform: [] }
          - { name: slow, request: GET /slow, upstream: demo, path: /fault/slow, forward-query: [ms], transform: [] }
          - { name: reset, request: GET /reset, upstream: demo, path: /fault/reset, transform: [] }
          - { name: status500, request: GET /status500, upstream: demo, path: /fault/status/500, transform: [] }
          - { name: html, request: GET /html, upstream: demo, path: /fault/html, transform: [] }
          - { name: invalid, request: GET /invalid, upstream: demo, path: /fault/invalid-json, transform: [] }
          - { name: gzip, request: GET /gzip, upstream: demo, path: /fault/gzip, transform: [] }
          - { name: big, request: GET /big, upstream: small, path: /fault/big, transform: [] }
          - { name: refused, request: GET /refused, upstream: nowhere, path: /x.json, transform: [] }
          - { name: one, request: "GET /one/{id}", upstream: demo, path: "/users/{id}.json", transform: [ { require: present } ] }
          - { name: missing, request: GET /missing, upstream: demo, path: /fault/status/404, transform: [] }
        """
    }
}
