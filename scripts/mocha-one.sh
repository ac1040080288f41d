#!/usr/bin/env bash
# Runs the given test files only (the root .mocharc.js runs every suite).
exec npx mocha --no-config --require tsx/cjs --extension ts --timeout 120000 --exit "$@"
