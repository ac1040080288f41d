#!/usr/bin/env bash
# Builds everything and runs every test suite once: the chart validation, the image build and test,
# the API fuzzing and the mocha suites. Real PostgreSQL, Redis and Kafka come from
# BULWARK_TEST_* variables when set (CI), else from deploy/local/infra.sh, which this script starts
# and stops again; a real Gitea likewise from BULWARK_TEST_GITEA_*, else deploy/local/gitea.sh.
# Where they cannot run, the suites that need them are left out and listed as "[left out]"; under
# CI=true that is a failure instead.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run build

started_infra=0
if [ -z "${BULWARK_TEST_PG_URL:-}${BULWARK_TEST_REDIS_URL:-}${BULWARK_TEST_KAFKA_BROKERS:-}" ]; then
  if bash deploy/local/infra.sh start; then
    started_infra=1
    eval "$(bash deploy/local/infra.sh env)"
  elif [ "${CI:-}" = "true" ]; then
    echo "test: the real servers did not start; CI runs every suite, so this is a failure" >&2
    exit 1
  else
    echo "test: PostgreSQL, Redis and Kafka could not be started on this machine:"
    echo "test: the suites that need them are left out; each prints a [left out] line below."
  fi
fi

# Real scanners for the end-to-end scan suites (installed once into .infra/scanners).
if [ -z "${SCANNER_PATH:-}" ]; then
  if bash deploy/local/scanners.sh install; then
    eval "$(bash deploy/local/scanners.sh env)"
  elif [ "${CI:-}" = "true" ]; then
    echo "test: the scanners did not install; CI runs every suite, so this is a failure" >&2
    exit 1
  else
    echo "test: the scanners could not be installed here: the real-scanner suites are left out ([left out] below)."
  fi
fi

started_gitea=0
stop_infra() {
  if [ "$started_infra" = 1 ] && [ "${BULWARK_KEEP_INFRA:-}" != 1 ]; then bash deploy/local/infra.sh stop >.infra/stop.log 2>&1 || true; fi
  if [ "$started_gitea" = 1 ] && [ "${BULWARK_KEEP_INFRA:-}" != 1 ]; then bash deploy/local/gitea.sh stop >>.infra/stop.log 2>&1 || true; fi
}
trap stop_infra EXIT

# The checks beyond mocha: each runs, a failure is remembered, and the run fails at the end.
failed=()
# The tests, fuzz helpers and benchmarks type-check (tsx runs them without checking types).
npx tsc -p tsconfig.tests.json || failed+=("type-check of tests and benchmarks")
# The Helm chart lints, renders and validates offline (README "Deploy").
bash deploy/helm/validate.sh || failed+=("chart validation")
# The image builds from this tree and its entrypoint answers /healthz; it needs root (debootstrap,
# buildah's vfs storage), so elsewhere it is left out, except in CI.
if [ "$(id -u)" = 0 ]; then
  { bash deploy/image/build.sh && bash deploy/image/test.sh; } || failed+=("image")
elif [ "${CI:-}" = "true" ]; then
  failed+=("image (needs root)")
else
  echo "test: [left out] image build and test: they need root (debootstrap, buildah)"
fi
# Fuzzing of every operation against the OpenAPI document Bulwark serves (README "Fuzzing").
FUZZ_SKIP_BUILD=1 bash fuzz/run.sh || failed+=("fuzzing")
# Raw-HTTP fuzzing: malformed bytes over sockets to the gateway and a service's own port (README "Fuzzing").
npx tsx fuzz/raw-http.ts || failed+=("raw-HTTP fuzzing")
# A Python and a TypeScript client generated from the served document run the guide's set-up order;
# Redocly lints the document (README "Generated clients").
API_CLIENTS_SKIP_BUILD=1 bash api-clients/run.sh || failed+=("generated clients")

# A real Gitea for the pull request decoration suite, started last because building it takes
# minutes the first time on a machine (deploy/local/gitea.sh; CI starts that build in the background
# at its beginning, and `start` waits for it here).
if [ -z "${BULWARK_TEST_GITEA_URL:-}" ]; then
  mkdir -p .infra
  if bash deploy/local/gitea.sh start; then
    started_gitea=1
    eval "$(bash deploy/local/gitea.sh env)"
  elif [ "${CI:-}" = "true" ]; then
    failed+=("Gitea (deploy/local/gitea.sh start)")
  else
    echo "test: Gitea could not be built or started here: the Gitea decoration suite is left out ([left out] below)."
  fi
fi

# Mocha last, so its summary closes the output.
mocha_status=0
LOG_LEVEL="${LOG_LEVEL:-warn}" npx mocha --config .mocharc.js || mocha_status=$?
if [ "${#failed[@]}" -gt 0 ]; then
  echo "test: failed besides mocha: ${failed[*]}" >&2
  exit 1
fi
exit "$mocha_status"
