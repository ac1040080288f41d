#!/usr/bin/env bash
# Checks the Helm chart offline: `helm lint` and `helm template` for the default values (all-in-one) and
# for values-scaled.yaml, then validates every rendered manifest against the Kubernetes JSON schemas of
# a current release (kubernetes-validate ships them; nothing is fetched while validating). Also checks
# that the scan Jobs' Role keeps the rules of deploy/kubernetes/scanner-rbac.yaml, that the scaled mode
# refuses to render without its servers, and that compose.yaml sets no variable the chart does not.
#
# Helm is built once from the Go module proxy and kubernetes-validate installed once from PyPI, both
# under ${XDG_CACHE_HOME:-~/.cache}/bulwark (BULWARK_TOOLS_CACHE).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd -P)"
CHART="$SCRIPT_DIR/bulwark"
CACHE="${BULWARK_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bulwark}"
HELM_VERSION=v3.19.0
KV_VERSION=1.37.0
K8S_VERSION=1.37.0

say() { printf 'helm-validate: %s\n' "$*"; }
die() { printf 'helm-validate: FAIL: %s\n' "$*" >&2; exit 1; }

helm="$CACHE/helm-$HELM_VERSION/helm"
if [ ! -x "$helm" ]; then
  command -v go >/dev/null || die "go is needed once to build helm $HELM_VERSION"
  say "building helm $HELM_VERSION (once)"
  (cd "$(mktemp -d)" && GOBIN="$CACHE/helm-$HELM_VERSION" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION") || die "go install helm failed"
fi
venv="$CACHE/kubernetes-validate-$KV_VERSION"
if [ ! -x "$venv/bin/kubernetes-validate" ]; then
  say "installing kubernetes-validate $KV_VERSION (once)"
  rm -rf "$venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q "kubernetes-validate==$KV_VERSION" || die "pip install kubernetes-validate failed"
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for variant in default scaled; do
  args=()
  [ "$variant" = scaled ] && args=(-f "$CHART/values-scaled.yaml")
  "$helm" lint --strict --kube-version "$K8S_VERSION" "$CHART" "${args[@]}" >"$out/lint-$variant.txt" 2>&1 || { cat "$out/lint-$variant.txt" >&2; die "helm lint ($variant values)"; }
  "$helm" template bulwark "$CHART" --namespace bulwark --kube-version "$K8S_VERSION" "${args[@]}" >"$out/$variant.yaml" 2>"$out/template-$variant.err" \
    || { cat "$out/template-$variant.err" >&2; die "helm template ($variant values)"; }
  # Custom resources (the Prometheus Operator's PodMonitor) have no schema there: a warning, not a failure.
  "$venv/bin/python" "$venv/bin/kubernetes-validate" --kubernetes-version "$K8S_VERSION" --strict --quiet "$out/$variant.yaml" >"$out/kv-$variant.txt" 2>&1 \
    || { cat "$out/kv-$variant.txt" >&2; die "schema validation ($variant values, Kubernetes $K8S_VERSION)"; }
  say "ok: $variant values lint, render ($(grep -c '^kind:' "$out/$variant.yaml") objects) and validate against Kubernetes $K8S_VERSION"
done

if "$helm" template bulwark "$CHART" --kube-version "$K8S_VERSION" --set allInOne.enabled=false >/dev/null 2>"$out/refused.err"; then
  die "the scaled mode rendered without PostgreSQL, Kafka and Redis"
fi
grep -q "needs postgresql.url" "$out/refused.err" || { cat "$out/refused.err" >&2; die "the scaled mode failed for another reason"; }

"$venv/bin/python" - "$out" "$ROOT" <<'EOF' || die "consistency checks"
import sys, yaml
out, root = sys.argv[1], sys.argv[2]

def docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]

scaled = docs(f"{out}/scaled.yaml")
default = docs(f"{out}/default.yaml")

# The scan Jobs' Role: the same rules as the plain manifest for clusters without Helm.
plain = next(d for d in docs(f"{root}/deploy/kubernetes/scanner-rbac.yaml") if d["kind"] == "Role")
chart = next(d for d in scaled if d["kind"] == "Role")
assert chart["rules"] == plain["rules"], "the chart's scanner Role differs from deploy/kubernetes/scanner-rbac.yaml"
assert chart["metadata"]["namespace"] == "bulwark-scans", "the Role is not in the scan namespace"

deployments = {d["metadata"]["name"]: d for d in scaled if d["kind"] == "Deployment"}
expected = {f"bulwark-{c}" for c in ["gateway", "identity", "catalog", "scanning", "issues", "reporting", "notifications"]}
assert set(deployments) == expected, f"scaled Deployments: {sorted(deployments)}"
for name, d in deployments.items():
    pod = d["spec"]["template"]["spec"]
    c = pod["containers"][0]
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz" and c["livenessProbe"]["httpGet"]["path"] == "/healthz", name
    sleep = int(c["lifecycle"]["preStop"]["exec"]["command"][1])
    assert pod["terminationGracePeriodSeconds"] > sleep + 20, f"{name}: grace period shorter than preStop + SHUTDOWN_TIMEOUT_MS"
    assert pod["securityContext"]["runAsNonRoot"] is True, name
    # Only the scanning pods talk to the Kubernetes API.
    assert pod["automountServiceAccountToken"] is (name == "bulwark-scanning"), f"{name}: service account token"
kinds = [d["kind"] for d in scaled]
for kind in ["HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Ingress", "ServiceAccount", "RoleBinding"]:
    assert kind in kinds, f"scaled values render no {kind}"
all_in_one = [d for d in default if d["kind"] == "Deployment"]
assert len(all_in_one) == 1 and all_in_one[0]["spec"]["replicas"] == 1, "all-in-one is not one Deployment of one replica"
assert {"name": "TARGET", "value": "all"} in all_in_one[0]["spec"]["template"]["spec"]["containers"][0]["env"]

# compose.yaml: every variable it sets is one the chart sets too, so both stay one configuration.
chart_vars = set()
for d in scaled + default:
    if d["kind"] in ("ConfigMap", "Secret"):
        chart_vars |= set((d.get("data") or {}).keys())
    if d["kind"] == "Deployment":
        chart_vars |= {e["name"] for e in d["spec"]["template"]["spec"]["containers"][0].get("env", [])}
chart_vars |= {f"{s}_DATABASE_URL" for s in ["IDENTITY", "CATALOG", "SCANNING", "ISSUES", "REPORTING", "NOTIFICATIONS"]} | {"REDIS_URL"}
compose = docs(f"{root}/compose.yaml")[0]
for name, svc in compose["services"].items():
    if "bulwark" not in svc["image"]:
        continue
    env = svc.get("environment") or {}
    keys = set(env) if isinstance(env, dict) else {e.split("=", 1)[0] for e in env}
    extra = keys - chart_vars
    assert not extra, f"compose.yaml service {name} sets {sorted(extra)}, which the chart does not"
print("helm-validate: ok: scanner Role, Deployments, probes, grace periods, all-in-one and compose.yaml agree")
EOF
say "PASS"
