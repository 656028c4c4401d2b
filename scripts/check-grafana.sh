#!/usr/bin/env bash
# Checks the Grafana dashboard and its provisioning (deploy/grafana, deploy/prometheus,
# deploy/docker-compose.yml) against a live server. Builds nothing: it takes the debug binaries
# (or the directory given), then
#   1. starts the demo upstream and `reshape serve` with routes that succeed, drop elements,
#      cache, and fail upstream (retried, until its circuit opens), and sends each a few requests;
#   2. every metric a dashboard query names must be in the live /_reshape/metrics exposition,
#      and every label it groups or filters by must be on that metric's samples;
#   3. the provisioned datasource uid is the one the panels name, the provider's path is where
#      compose mounts the dashboards, and Prometheus scrapes the admin port's metrics path.
# Usage: scripts/check-grafana.sh [BIN_DIR]      (default .build/debug)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${1:-.build/debug}
for tool in reshape reshape-demo-upstream; do
  [ -x "$bin/$tool" ] || { echo "check-grafana: $bin/$tool is missing (run swift build first)" >&2; exit 1; }
done
tools=.build-tools/venv
[ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
"$tools/bin/python" -c 'import yaml' 2>/dev/null || "$tools/bin/pip" install --quiet --disable-pip-version-check pyyaml
py="$tools/bin/python"

work=$(mktemp -d)
. scripts/lib/demo-servers.sh
trap 'stop_demo_servers; rm -rf "$work"' EXIT

start_demo_upstream "$bin" "$work"

mkdir "$work/rules"
cp examples/rules/*.yaml "$work/rules/"
cat >"$work/rules/zz-grafana-check.yaml" <<'YAML'
upstreams:
  closed:
    url: "http://127.0.0.1:9"
    connect-timeout: 1s
    retry: { attempts: 2, on: [connect-failure], budget: 100% }
    circuit: { failures: 2, open-for: 60s }
  limited:
    url: "${DEMO_UPSTREAM_URL}"
    max-in-flight: 4
    queue: { size: 4, timeout: 1s }
routes:
  - { name: grafana-down, request: GET /grafana-check/down, upstream: closed, path: /x.json, transform: [] }
  - { name: grafana-queued, request: GET /grafana-check/queued, upstream: limited, path: /users.json, transform: [] }
  - { name: grafana-cached, request: GET /grafana-check/cached, upstream: demo, path: /users.json, cache: { ttl: 60s, upstream-cache-control: ignore }, transform: [] }
  - { name: grafana-limited, request: GET /grafana-check/limited, upstream: demo, path: /users.json, limit: [grafana-one], transform: [] }
limits:
  grafana-one: { rate: 1/m, key: client-address }
YAML
start_reshape "$bin" "$work" --rules "$work/rules" --workers 1
# /grafana-check/down three times: retried, then the circuit opens and rejects the third;
# /grafana-check/limited twice: the second is rate-limited; /grafana-check/queued through max-in-flight.
for path in /users /users /grafana-check/queued /grafana-check/cached /grafana-check/cached /grafana-check/down \
  /grafana-check/down /grafana-check/down /grafana-check/limited /grafana-check/limited /no-such-route; do
  curl -s -o /dev/null "http://$address$path" || true
done
curl -sf "http://$address/_reshape/metrics" >"$work/metrics.txt"

"$py" - "$work/metrics.txt" <<'PY'
import json, re, sys, yaml

exposition = open(sys.argv[1]).read()
families = set(re.findall(r"^# TYPE (\S+) ", exposition, re.M))
labels = {}
for name, body in re.findall(r"^(reshape_\w+?)(?:\{([^}]*)\})? ", exposition, re.M):
    base = re.sub(r"_(bucket|sum|count)$", "", name) if name not in families else name
    labels.setdefault(base, set()).update(re.findall(r"(\w+)=", body or ""))

problems = []
dashboard = json.load(open("deploy/grafana/dashboards/reshape.json"))
uids = set()
queried = set()
for panel in dashboard["panels"]:
    if panel.get("type") == "row":
        continue  # a row only groups the panels below it
    uids.add(panel["datasource"]["uid"])
    for target in panel["targets"]:
        expr = target["expr"]
        names = re.findall(r"\breshape_\w+", expr)
        if not names:
            problems.append(f"panel '{panel['title']}': a query names no reshape metric: {expr}")
        grouping = set()
        for group in re.findall(r"\bby \(([^)]*)\)", expr):
            grouping |= {g.strip() for g in group.split(",")} - {"le"}
        for name in names:
            base = re.sub(r"_(bucket|sum|count)$", "", name)
            queried.add(base)
            if base not in families:
                problems.append(f"panel '{panel['title']}': {name} is not in /_reshape/metrics")
                continue
            filters = set(re.findall(rf"{name}\{{([^}}]*)\}}", expr))
            used = grouping | {m for f in filters for m in re.findall(r"(\w+)\s*=~?", f)}
            if base in labels and labels[base]:
                missing = used - labels[base]
                if missing:
                    problems.append(f"panel '{panel['title']}': {base} has no label(s) {sorted(missing)} (it has {sorted(labels[base])})")
unused = sorted(families - queried)
datasource = yaml.safe_load(open("deploy/grafana/provisioning/datasources/prometheus.yaml"))["datasources"][0]
if uids != {datasource["uid"]}:
    problems.append(f"panels name datasource uid(s) {sorted(uids)}, provisioning has '{datasource['uid']}'")
compose = yaml.safe_load(open("deploy/docker-compose.yml"))["services"]
provider = yaml.safe_load(open("deploy/grafana/provisioning/dashboards/reshape.yaml"))["providers"][0]
mounts = compose["grafana"]["volumes"]
if f"./grafana/dashboards:{provider['options']['path']}:ro" not in mounts:
    problems.append(f"compose does not mount the dashboards at the provider's path {provider['options']['path']}")
if "./grafana/provisioning:/etc/grafana/provisioning:ro" not in mounts:
    problems.append("compose does not mount deploy/grafana/provisioning")
if datasource["url"] != "http://prometheus:9090" or "prometheus" not in compose:
    problems.append("the datasource does not point at compose's prometheus service")
scrape = yaml.safe_load(open("deploy/prometheus/prometheus.yml"))["scrape_configs"][0]
admin_port = compose["reshape"]["environment"]["RESHAPE_ADMIN_LISTEN"].rsplit(":", 1)[1]
if scrape["metrics_path"] != "/_reshape/metrics" or scrape["static_configs"][0]["targets"] != [f"reshape:{admin_port}"]:
    problems.append(f"prometheus does not scrape reshape:{admin_port}/_reshape/metrics")
for name in ("reshape_upstream_retries_total", "reshape_upstream_circuit_rejections_total", "reshape_upstream_circuit_state"):
    if not labels.get(name):
        problems.append(f"{name} has no sample: the failing upstream was neither retried nor cut off")
for problem in problems:
    print("FAIL", problem)
print(f"check-grafana: {sum(p.get('type') != 'row' for p in dashboard['panels'])} panels, {len(queried)} metrics queried, all in the live exposition"
      if not problems else f"check-grafana: {len(problems)} problem(s)")
if unused:
    print("check-grafana: metrics no panel shows:", ", ".join(unused))
sys.exit(1 if problems else 0)
PY
