#!/usr/bin/env bash
# Validates the deploy/ manifests offline:
#  1. every Kubernetes manifest against the API schemas of one Kubernetes version, strictly
#     (kubernetes-validate from PyPI ships the schemas: pip install kubernetes-validate);
#  2. our own policy: every container runs non-root with a read-only root filesystem, no
#     privilege escalation, ALL capabilities dropped, seccomp RuntimeDefault, resource
#     requests and limits; Reshape has liveness and readiness probes on /_reshape/*, on the
#     port that serves them (RESHAPE_ADMIN_LISTEN's when it is set: /_reshape/* is 404 elsewhere);
#  3. the rules ConfigMap matches examples/rules, kustomization.yaml lists every manifest,
#     and docker-compose.yml mounts the rules read-only.
set -euo pipefail
cd "$(dirname "$0")/.."
k8s_version=${K8S_VERSION:-1.34.0}
command -v kubernetes-validate >/dev/null || { echo "check-k8s: kubernetes-validate not found (pip install kubernetes-validate)" >&2; exit 1; }

manifests=()
for f in deploy/k8s/*.yaml; do [ "$(basename "$f")" = kustomization.yaml ] || manifests+=("$f"); done
kubernetes-validate --strict --quiet -k "$k8s_version" "${manifests[@]}"
echo "ok   schemas (Kubernetes $k8s_version, strict): ${#manifests[@]} files"

expected=$(mktemp); trap 'rm -f "$expected"' EXIT
deploy/k8s/make-rules-configmap.sh examples/rules >"$expected"
if ! diff -u deploy/k8s/configmap-rules.yaml "$expected"; then
  echo "FAIL deploy/k8s/configmap-rules.yaml is out of date: deploy/k8s/make-rules-configmap.sh > deploy/k8s/configmap-rules.yaml"
  exit 1
fi
echo "ok   configmap-rules.yaml matches examples/rules"

python3 - "${manifests[@]}" <<'PY'
import os, sys, yaml
problems = []
docs = [(path, d) for path in sys.argv[1:] for d in yaml.safe_load_all(open(path)) if d]

for path, d in docs:
    if d["kind"] != "Deployment":
        continue
    pod = d["spec"]["template"]["spec"]
    psc = pod.get("securityContext", {})
    where = f'{path}: Deployment {d["metadata"]["name"]}'
    if not psc.get("runAsNonRoot"): problems.append(f"{where}: pod securityContext.runAsNonRoot is not true")
    if psc.get("seccompProfile", {}).get("type") != "RuntimeDefault": problems.append(f"{where}: seccompProfile is not RuntimeDefault")
    for c in pod["containers"]:
        sc, cw = c.get("securityContext", {}), f'{where} container {c["name"]}'
        if sc.get("readOnlyRootFilesystem") is not True: problems.append(f"{cw}: readOnlyRootFilesystem is not true")
        if sc.get("allowPrivilegeEscalation") is not False: problems.append(f"{cw}: allowPrivilegeEscalation is not false")
        if sc.get("capabilities", {}).get("drop") != ["ALL"]: problems.append(f"{cw}: capabilities.drop is not [ALL]")
        res = c.get("resources", {})
        for kind in ("requests", "limits"):
            for r in ("cpu", "memory"):
                if r not in res.get(kind, {}): problems.append(f"{cw}: no resources.{kind}.{r}")
        if d["metadata"]["name"] == "reshape":
            if c.get("livenessProbe", {}).get("httpGet", {}).get("path") != "/_reshape/live": problems.append(f"{cw}: liveness probe is not /_reshape/live")
            if c.get("readinessProbe", {}).get("httpGet", {}).get("path") != "/_reshape/ready": problems.append(f"{cw}: readiness probe is not /_reshape/ready")
            env = {e["name"]: e.get("value", "") for e in c.get("env", [])}
            ports = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
            admin = env.get("RESHAPE_ADMIN_LISTEN", env.get("RESHAPE_LISTEN", "")).rpartition(":")[2]
            for probe in ("livenessProbe", "readinessProbe"):
                port = c.get(probe, {}).get("httpGet", {}).get("port")
                if str(ports.get(port, port)) != admin: problems.append(f"{cw}: {probe} does not ask the admin endpoints' port {admin}")
            mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
            if not mounts.get("/etc/reshape/rules", {}).get("readOnly"): problems.append(f"{cw}: rules are not mounted read-only at /etc/reshape/rules")

kinds = {d["kind"] for _, d in docs}
for needed in ("Deployment", "Service", "ConfigMap", "HorizontalPodAutoscaler", "PodDisruptionBudget"):
    if needed not in kinds: problems.append(f"no {needed} in deploy/k8s")

listed = set(yaml.safe_load(open("deploy/k8s/kustomization.yaml"))["resources"])
present = {os.path.basename(p) for p in sys.argv[1:]}
if listed != present: problems.append(f"kustomization.yaml resources {sorted(listed)} differ from the files {sorted(present)}")

compose = yaml.safe_load(open("deploy/docker-compose.yml"))["services"]
if "../examples/rules:/etc/reshape/rules:ro" not in compose.get("reshape", {}).get("volumes", []):
    problems.append("docker-compose.yml: reshape does not mount ../examples/rules read-only at /etc/reshape/rules")
if "demo-upstream" not in compose.get("reshape", {}).get("environment", {}).get("DEMO_UPSTREAM_URL", ""):
    problems.append("docker-compose.yml: DEMO_UPSTREAM_URL does not point at the demo-upstream service")

for p in problems: print("FAIL", p)
if problems: sys.exit(1)
print("ok   policy: non-root, read-only root, no escalation, no capabilities, seccomp, resources, probes")
print("ok   kustomization.yaml and docker-compose.yml")
PY
echo "check-k8s: all passed"
