#!/usr/bin/env bash
# Generates a Python and a TypeScript client from the OpenAPI document Bulwark serves and runs the API
# guide's set-up order through each (README "Generated clients"). openapi-python-client is pinned and
# installed from PyPI into ~/.cache/bulwark/openapi-python-client on first use; openapi-typescript,
# openapi-fetch and Redocly's CLI are pinned devDependencies.
#
#   bash api-clients/run.sh          # after npm install; builds first
#   API_CLIENTS_SKIP_BUILD=1 bash api-clients/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."

REQUIREMENTS="openapi-python-client==0.29.1"
venv=$(bash scripts/python-venv.sh openapi-python-client "$REQUIREMENTS")
if [ "${API_CLIENTS_SKIP_BUILD:-}" != 1 ]; then npm run build; fi
# Redocly's CLI: no usage data sent, no update notice in the output.
API_CLIENTS_VENV="$venv" REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx tsx api-clients/run.ts
