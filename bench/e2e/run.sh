#!/usr/bin/env bash
# End-to-end benchmark (bench/e2e/bench.ts) in both modes. Run from anywhere after `npm install && npm run build`,
# with the servers of deploy/local/infra.sh running:  bash bench/e2e/run.sh
# BENCH_MODES=scaled, all or scaled,all; BENCH_RUNS (default 3); BENCH_FINDINGS (default 100000); BENCH_CPU_PROF=<dir> for profiles;
# BENCH_CASES=new for the new scan's upload alone (its memory: BENCH_FINDINGS=159000 BENCH_MEMORY=<dir>); BENCH_ENV='NAME=value ...' for every process.
set -euo pipefail
cd "$(dirname "$0")/../.."
eval "$(bash deploy/local/infra.sh env)"
exec npx tsx bench/e2e/bench.ts
