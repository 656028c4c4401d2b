/// The rule-file example of issue 9, exactly as written there (the public contract), with
/// the `firebase` upstream and `NewUser` type it refers to.
let issueExampleRules = """
    upstreams:
      firebase:
        url: https://example.firebaseio.com
    types:
      NewUser:
        type: object
        required: [name]
        properties:
          name: { type: string, minLength: 1 }
          admin: { type: boolean }
    routes:
      - name: create-user
        request: POST /users                     # GET, POST, PUT, PATCH, DELETE (HEAD keeps matching GET routes)
        upstream: firebase
        path: /users.json
        forward-headers: [Authorization, X-Request-Id]   # client headers passed on, case-insensitive; default none
        headers: { X-Client: "reshape" }         # per-route upstream headers; values may use ${VAR} and the route's {captures}
        body:                                    # only for POST/PUT/PATCH; without it a client body is refused (415)
          type: NewUser                          # optional: validate the client's JSON body first
          transform: [ { drop: [admin] } ]       # optional: operations run on the client body before sending
          encoding: json                         # json (default) or form (flat object -> x-www-form-urlencoded)
        transform: [ { rename: { name: objectId } } ]   # the response, as today

      - name: profile
        request: GET /profile/{id}
        fetch:                                   # instead of upstream/path: several requests in parallel
          user:    { upstream: firebase, path: "/users/{id}.json" }
          devices: { upstream: firebase, path: "/devices/{id}.json", optional: true }
        transform:                               # input: {"user": <body>, "devices": <body>}, in fetch order
          - at: { path: /devices, do: [ { keyed-to-array: { key: deviceId } } ] }
          - merge: { base: /user, add: { devices: /devices } }   # the object at base, plus members from pointers

      - name: posts
        request: GET /posts
        upstream: firebase
        path: /posts.json
        transform:
          - keyed-to-array: { key: postId }
          - expand:                              # a follow-up fetch per element, bounded, de-duplicated
              key: authorId                      # member of each element whose value is the capture {value}
              fetch: { upstream: firebase, path: "/users/{value}.json" }
              as: author                         # member added to each element
              concurrency: 8                     # at most this many follow-up fetches in flight per request
              transform: [ { require: present } ] # optional, run on each fetched body
              missing: "null"                    # "null" (default; YAML null too): author null; drop: drop the element; fail: 502
              max-fetches: 100                   # cap on follow-up fetches per request (default 100; over it: 502)

    """
