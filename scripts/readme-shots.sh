#!/usr/bin/env bash
# The README's screenshots of the console's newer pages: the browser suite that drives those pages takes
# them (console/test/browser.ts, readmeShot), then each is cut to 64 colours (no dithering) so the README stays light.
# Needs the infrastructure's environment (eval "$(bash deploy/local/infra.sh env)") and a built console.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .e2e-artifacts/readme
CI=true npx mocha --config .mocharc.js console/test/intel.e2e.test.ts
for shot in .e2e-artifacts/readme/*.png; do
  convert "$shot" +dither -colors 64 "docs/images/$(basename "$shot")"
done
ls -l docs/images
