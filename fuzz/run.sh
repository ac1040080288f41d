#!/usr/bin/env bash
# Fuzzes the whole HTTP API with schemathesis against the OpenAPI document Bulwark serves.
#
# Starts Bulwark (TARGET=all, embedded defaults, fresh data directory), logs in as admin, makes the
# records valid requests name (fuzz/seed.py; fuzz/valid_data.py puts them into the requests generated
# as valid) and runs every operation of the served document with a fixed seed and a bounded number
# of examples.
# Fails when any response has status 5xx, when a response does not conform to the document (status
# code, content type, schema), when data valid by the document is refused (positive_data_acceptance;
# fuzz/schemathesis.toml and the filter_failure hook of fuzz/hooks.py say where and why it is not
# applied), when an operation mostly refuses its valid data (the validation_mismatch warning), or
# when the process is not alive and answering /healthz at the end.
#
#   bash fuzz/run.sh                       # after npm install; builds first
#   FUZZ_MAX_EXAMPLES=50 FUZZ_SEED=7 bash fuzz/run.sh
#   bash fuzz/run.sh --include-path-regex '^/api/v1/issues'    # extra arguments go to `st run`
#
# Reports (JSON, JUnit, a tally of the responses and schemathesis's console output) land in
# FUZZ_REPORT_DIR (default .fuzz-report/, ignored by git). The console output is printed only when
# the run fails: its pytest-style closing line ("2 warnings in 292s") reads to CI as a test runner
# that ran no test, and the summary line below says what CI needs. No example database is kept, so a run depends on its seed alone.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned from PyPI; openapi-spec-validator checks the served document before any request is fuzzed.
REQUIREMENTS="schemathesis==4.32.5 openapi-spec-validator==0.9.0"
SEED="${FUZZ_SEED:-20261122}"
MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-25}"
REPORT_DIR="$(mkdir -p "${FUZZ_REPORT_DIR:-.fuzz-report}" && cd "${FUZZ_REPORT_DIR:-.fuzz-report}" && pwd)"
# Installed once per set of pins, outside the clone.
venv=$(bash scripts/python-venv.sh schemathesis "$REQUIREMENTS")

if [ "${FUZZ_SKIP_BUILD:-}" != 1 ]; then npm run build; fi

data_dir=$(mktemp -d /tmp/bulwark-fuzz-XXXXXX)
server_pid=
jira_pid=
stop_server() {
  for pid in $server_pid $jira_pid; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$data_dir"
}
trap stop_server EXIT
trap 'exit 130' INT TERM

port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
admin_password="fuzz-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

# Rate limits high enough that the fuzzer tests the API rather than the limiter (429 stays documented).
# As the test systems do, it trusts the test vendor key (so a valid license can be given) and lets
# outbound connections reach this machine (so a tracker's or platform's address can name a server
# that answers: this Bulwark).
license_public_key=$(npx tsx scripts/license.ts --test-public-key)
BULWARK_DATA_DIR="$data_dir" PORT="$port" BULWARK_ADMIN_PASSWORD="$admin_password" \
  RATE_LIMIT_PER_IP_PER_MINUTE=1000000 RATE_LIMIT_PER_TOKEN_PER_MINUTE=1000000 LOG_LEVEL="${LOG_LEVEL:-error}" \
  LICENSE_PUBLIC_KEY="$license_public_key" OUTBOUND_ALLOW_CIDRS=127.0.0.1/32 \
  node packages/runtime/dist/main.js >"$REPORT_DIR/server.log" 2>&1 &
server_pid=$!

healthy() { curl -sf --max-time 5 "$base/healthz" >/dev/null; }
# Six embedded databases start one after another: allow for a loaded machine.
for _ in $(seq 1 300); do
  healthy && break
  kill -0 "$server_pid" 2>/dev/null || { echo "fuzz: Bulwark exited during start; see $REPORT_DIR/server.log" >&2; exit 1; }
  sleep 1
done
healthy || { echo "fuzz: Bulwark did not answer /healthz within 300 s" >&2; exit 1; }

login=$(curl -sf -X POST "$base/api/v1/auth/login" -H 'Content-Type: application/json' \
  -d "{\"username\":\"admin\",\"password\":\"$admin_password\"}")
login_token=$("$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["access_token"])' <<<"$login")
own_user_id=$(curl -sf "$base/api/v1/auth/me" -H "Authorization: Bearer $login_token" |
  "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["user"]["id"])')
# The fuzzer calls with an API token, not the login token: a generated POST /auth/logout ends a login
# session (and every later request would answer 401, testing nothing), while an API token gets its 409.
expires_at=$(PYTHONPATH=fuzz "$venv/bin/python" -c 'import api; print(api.in_days(1))')
created=$(curl -sf -X POST "$base/api/v1/token" -H "Authorization: Bearer $login_token" -H 'Content-Type: application/json' \
  -d "{\"name\":\"fuzz\",\"expires_at\":\"$expires_at\"}")
token=$("$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["token"])' <<<"$created")
own_token_id=$("$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["id"])' <<<"$created")

# The records valid data names (fuzz/seed.py), and a license signed for this installation. The
# seeded tracker is a Jira: the tests' contract server, so that a ticket's key can name a ticket.
# One process (node with tsx's loader, not npx), so that stopping it stops the server.
export FUZZ_JIRA_EMAIL=fuzz@example.com FUZZ_JIRA_TOKEN="jira-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
node --import tsx fuzz/jira.ts >"$data_dir/jira.url" 2>"$REPORT_DIR/jira.log" &
jira_pid=$!
for _ in $(seq 1 60); do [ -s "$data_dir/jira.url" ] && break; sleep 0.5; done
[ -s "$data_dir/jira.url" ] || { echo "fuzz: the Jira contract server did not start; see $REPORT_DIR/jira.log" >&2; exit 1; }
"$venv/bin/python" fuzz/seed.py "$base" "$token" "$(cat "$data_dir/jira.url")" >"$REPORT_DIR/seed.json"
installation=$(curl -sf "$base/api/v1/license" -H "Authorization: Bearer $token" |
  "$venv/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["installation_id"])')
npx tsx scripts/license.ts --installation "$installation" --edition enterprise >"$REPORT_DIR/license.txt"

curl -sf "$base/api/v1/swagger/doc.json" >"$REPORT_DIR/openapi.json"
"$venv/bin/openapi-spec-validator" "$REPORT_DIR/openapi.json"

# schemathesis keeps the failures it found under .schemathesis/ of its working directory (for
# `st replay`): that is the report directory, emptied first so that a run depends on its seed alone.
rm -rf "$REPORT_DIR"/report.json "$REPORT_DIR"/junit.xml "$REPORT_DIR"/tally.json "$REPORT_DIR"/.schemathesis
hooks_dir="$PWD/fuzz"
# One worker: two threads generating at once can meet CPython 3.11's race in the ast module
# (gh-106905, "AST constructor recursion depth mismatch"), a crash of the fuzzer, not of Bulwark.
st_status=0
(cd "$REPORT_DIR" && PYTHONPATH="$hooks_dir" SCHEMATHESIS_HOOKS=hooks FUZZ_OWN_USER_ID="$own_user_id" FUZZ_OWN_TOKEN_ID="$own_token_id" FUZZ_TALLY_FILE="$REPORT_DIR/tally.json" \
  FUZZ_TOKEN="$token" FUZZ_SEED_FILE="$REPORT_DIR/seed.json" FUZZ_LICENSE_FILE="$REPORT_DIR/license.txt" FUZZ_ADMIN_PASSWORD="$admin_password" \
  "$venv/bin/st" --config-file "$hooks_dir/schemathesis.toml" run "$base/api/v1/swagger/doc.json" \
  --header "Authorization: Bearer $token" \
  --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers 1 --request-timeout 30 \
  --generation-database none \
  --report json,junit --report-json-path "$REPORT_DIR/report.json" --report-junit-path "$REPORT_DIR/junit.xml" \
  --no-color "$@") >"$REPORT_DIR/schemathesis.log" 2>&1 || st_status=$?

alive=yes
kill -0 "$server_pid" 2>/dev/null && healthy || alive=no

"$venv/bin/python" - "$REPORT_DIR" "$SEED" "$MAX_EXAMPLES" "$alive" <<'PY'
import json, os, sys
report_dir, seed, max_examples, alive = sys.argv[1:]
def load(name):
    path = os.path.join(report_dir, name)
    return json.load(open(path)) if os.path.exists(path) else {}
report, tally = load("report.json"), load("tally.json")
# schemathesis groups failures by kind; "count" is the number of distinct failures of that kind.
failures = {f"{f['code']} {f['title']}": f["count"] for f in report.get("failures", [])}
non_conforming = sum(n for kind, n in failures.items() if not kind.startswith("ST101 "))
print(f"fuzz: seed {seed}, max examples {max_examples}: {report.get('operations', {}).get('tested', 0)} operations, "
      f"{tally.get('requests', 0)} requests, {tally.get('by_status_class', {}).get('5xx', 0)} responses 5xx, "
      f"{non_conforming} non-conforming, {sum(e['count'] for e in report.get('errors', []))} errors, process alive: {alive}")
for kind, n in failures.items():
    print(f"fuzz: {kind}: {n}")
for error in report.get("errors", []):
    print(f"fuzz: error {error['title']}: {error['count']}")
for label, sample in sorted(tally.get("server_errors", {}).items()):
    curl = sample["curl"] if len(sample["curl"]) <= 400 else sample["curl"][:400] + " ... (whole request in tally.json)"
    print(f"fuzz: {sample['count']} x {sample['status']} from {label}: {curl}")
PY

status=0
if [ "$st_status" != 0 ]; then
  cat "$REPORT_DIR/schemathesis.log"
  echo "fuzz: schemathesis reported failures (exit $st_status); reports in $REPORT_DIR" >&2
  status=1
fi
[ "$alive" = yes ] || { echo "fuzz: Bulwark is not alive and answering /healthz after the run; see $REPORT_DIR/server.log" >&2; status=1; }
exit "$status"
