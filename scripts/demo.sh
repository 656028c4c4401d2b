#!/usr/bin/env bash
# The quick start: installs missing system packages, builds, starts the built-in demo upstream
# (Firebase-shaped data, no internet needed) and `reshape serve` on examples/rules, then prints
# curl commands to try. Runs until Ctrl-C, then stops both.
#
#   scripts/demo.sh            run the demo
#   scripts/demo.sh --smoke    start, run every printed curl command, check the answers, stop
#
# Environment: RESHAPE_PORT (8080), DEMO_UPSTREAM_PORT (8081),
#              DEMO_BUILD_CONFIG (debug; a clean debug build is several times faster than
#              release and the demo's traffic does not need the optimizer),
#              SCRATCH_PATH (.build).
set -euo pipefail
cd "$(dirname "$0")/.."

smoke=false
case "${1:-}" in
  --smoke) smoke=true ;;
  "") ;;
  -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: scripts/demo.sh [--smoke]" >&2; exit 2 ;;
esac

reshape_port=${RESHAPE_PORT:-8080}
upstream_port=${DEMO_UPSTREAM_PORT:-8081}
config=${DEMO_BUILD_CONFIG:-debug}
scratch=${SCRATCH_PATH:-.build}
export DEMO_UPSTREAM_URL="http://127.0.0.1:$upstream_port"

scripts/setup.sh
echo "demo: building ($config)..." >&2
swift build -c "$config" --scratch-path "$scratch" --product reshape
swift build -c "$config" --scratch-path "$scratch" --product reshape-demo-upstream
bin=$(swift build -c "$config" --scratch-path "$scratch" --show-bin-path)

upstream_pid="" reshape_pid=""
work=$(mktemp -d)
stop() {
  trap - EXIT INT TERM
  for pid in $reshape_pid $upstream_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $reshape_pid $upstream_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT
trap 'echo; echo "demo: stopping" >&2; exit 0' INT TERM

"$bin/reshape-demo-upstream" --listen "127.0.0.1:$upstream_port" >"$work/upstream.out" 2>&1 &
upstream_pid=$!
for _ in $(seq 100); do
  grep -q '^listening on ' "$work/upstream.out" && break
  kill -0 "$upstream_pid" 2>/dev/null || { echo "demo: the demo upstream did not start:" >&2; cat "$work/upstream.out" >&2; exit 1; }
  sleep 0.1
done
echo "demo: demo upstream $(cat "$work/upstream.out")" >&2

# In --smoke mode the access log goes to a file (shown on failure); otherwise to the terminal,
# so each curl's log line appears as you try it.
if $smoke; then
  "$bin/reshape" serve --rules examples/rules --listen "127.0.0.1:$reshape_port" >"$work/reshape.log" 2>&1 &
else
  "$bin/reshape" serve --rules examples/rules --listen "127.0.0.1:$reshape_port" &
fi
reshape_pid=$!
base="http://127.0.0.1:$reshape_port"
ready=false
for _ in $(seq 150); do
  kill -0 "$reshape_pid" 2>/dev/null || { echo "demo: reshape serve exited:" >&2; cat "$work/reshape.log" >&2 2>/dev/null || true; exit 1; }
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/_reshape/ready" || true)" = 200 ]; then ready=true; break; fi
  sleep 0.2
done
$ready || { echo "demo: reshape did not become ready on $base within 30 s" >&2; exit 1; }

# An ID token for Ada, as Firebase Auth gives a signed-in app one; here the demo upstream mints
# it (for the demo only). GET /me verifies it and answers her own record.
me_user=-NqK3a9Xb2mLp0Rt7Yv1
token=$(curl -s -X POST "$DEMO_UPSTREAM_URL/_demo/token?sub=$me_user" | sed -n 's/.*"token": *"\([^"]*\)".*/\1/p')
[ -n "$token" ] || { echo "demo: the demo upstream minted no token" >&2; exit 1; }

# Each line: expected status, then the curl arguments (split at spaces, so none inside one:
# --oauth2-bearer sends "Authorization: Bearer <token>").
tries=(
  "200 $base/users"
  "200 $base/users/-NqK3a9Xb2mLp0Rt7Yv1"
  "200 $base/devices"
  "200 $base/scores"
  "200 $base/widgets"
  "502 $base/users/-NqK3bA1c4DeF5gH6iJ7"
  "404 $base/no-such-route"
  "200 $base/profile/-NqK3a9Xb2mLp0Rt7Yv1"
  "200 $base/posts"
  "201 -X POST -H Content-Type:application/json -d {\"name\":\"Ada\",\"email\":\"ada@example.com\"} $base/users"
  "422 -X POST -H Content-Type:application/json -d {\"name\":\"\"} $base/users"
  "200 --oauth2-bearer $token $base/me"
  "401 $base/me"
  "401 --oauth2-bearer not-a-token $base/me"
)

if $smoke; then
  failures=0
  for try in "${tries[@]}"; do
    expected=${try%% *}
    read -ra args <<<"${try#* }"
    shown=("${args[@]//$token/\$token}")   # the token is long: name it
    got=$(curl -s -o "$work/body" -w '%{http_code} %{content_type}' "${args[@]}" || true)
    if [ "${got%% *}" = "$expected" ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/body" 2>/dev/null; then
      echo "ok   $expected ${shown[*]}"
    else
      echo "FAIL ${shown[*]}: expected $expected with a JSON body, got '$got': $(head -c 300 "$work/body")"
      failures=$((failures + 1))
    fi
  done
  # The live route: its stream starts with the normalized answer (curl stops it after 2 s).
  stream=$(curl -s -N --max-time 2 -H 'Accept: text/event-stream' "$base/users" || true)
  if grep -q '^event: snapshot' <<<"$stream" && grep -q '^data: {"objects":' <<<"$stream"; then
    echo "ok   live $base/users"
  else
    echo "FAIL live $base/users: expected an event: snapshot, got: $(head -c 300 <<<"$stream")"
    failures=$((failures + 1))
  fi
  # The verified user's own record, and only hers.
  curl -s --oauth2-bearer "$token" "$base/me" >"$work/body" || true
  if python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r["email"] == "ada@example.com" and r["objectId"] == sys.argv[2]' "$work/body" "$me_user" 2>/dev/null; then
    echo "ok   me $base/me is $me_user's record"
  else
    echo "FAIL me $base/me: expected $me_user's record, got: $(head -c 300 "$work/body")"
    failures=$((failures + 1))
  fi
  [ "$failures" -eq 0 ] || { echo "reshape's log:"; cat "$work/reshape.log"; exit 1; }
  echo "demo --smoke: all answers as expected"
  exit 0
fi

cat <<TEXT

Reshape is running on $base in front of the demo upstream on $DEMO_UPSTREAM_URL
(rules: examples/rules). Try:

  curl -s $base/users | python3 -m json.tool           # keyed users -> sorted array, corrupt records dropped
  curl -s $base/users/-NqK3a9Xb2mLp0Rt7Yv1              # one user, with its id
  curl -s $base/devices                                # nested keyed collections -> arrays
  curl -s $base/scores                                 # Firebase's array with null holes -> records
  curl -si $base/widgets                               # the /widgets exercise: see Reshape-Dropped: 1
  curl -si $base/users/-NqK3bA1c4DeF5gH6iJ7             # a corrupt user: 502 problem+json, with the reason
  curl -si $base/no-such-route                         # 404 problem+json
  curl -s $base/profile/-NqK3a9Xb2mLp0Rt7Yv1            # fan-out: user and devices fetched at once, merged
  curl -s $base/posts | python3 -m json.tool           # each post with its author: one fetch per distinct author
  curl -si -X POST -H 'Content-Type: application/json' \
       -d '{"name": "Ada", "email": "ada@example.com", "admin": true}' $base/users
                                                       # a write: checked, admin dropped, 201 with the new id
  curl -si -X POST -H 'Content-Type: application/json' -d '{"name": ""}' $base/users
                                                       # an invalid body: 422 with every violation, upstream not called

  Verified users: Ada's ID token, minted by the demo upstream as Firebase Auth gives a signed-in
  app one (valid 1 h; for the demo only). Paste this line first:
  token=$token
  curl -s -H "Authorization: Bearer \$token" $base/me   # her own record, read from /users/<the token's sub>.json
  curl -si $base/me                                    # no token: 401 with WWW-Authenticate: Bearer
  A token for another user:  curl -s -X POST "$DEMO_UPSTREAM_URL/_demo/token?sub=-NqK3a9Xb2mLp0Rt7Yv2"
  The keys Reshape verifies with:  curl -s $DEMO_UPSTREAM_URL/_demo/jwks.json

  Live, normalized:                   curl -N -H 'Accept: text/event-stream' $base/users
    and in another terminal a write:  curl -s -X POST -d '{"name": "Eve", "email": "eve@example.com"}' $DEMO_UPSTREAM_URL/users.json
                                      (the stream shows a snapshot, then a JSON Patch adding Eve)
  The raw upstream, for comparison:   curl -s $DEMO_UPSTREAM_URL/users.json?print=pretty
  Its Firebase event stream:          curl -N -H 'Accept: text/event-stream' $DEMO_UPSTREAM_URL/users.json
  Health and metrics:                 curl -s $base/_reshape/ready; curl -s $base/_reshape/metrics

Press Ctrl-C to stop.
TEXT
wait -n "$reshape_pid" "$upstream_pid" || true
echo "demo: a process exited; stopping" >&2
exit 1
