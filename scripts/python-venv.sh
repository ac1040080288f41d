#!/usr/bin/env bash
# Prints the folder of a Python virtual environment holding the given pinned requirements, installing
# them from PyPI on first use: one venv per name under ~/.cache/bulwark (outside the clone), kept
# while its pins stay the same (the stamp .requirements records what it holds).
#
#   venv=$(bash scripts/python-venv.sh schemathesis "schemathesis==4.32.5 openapi-spec-validator==0.9.0")
set -euo pipefail
name="$1"
requirements="$2"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/bulwark/$name"
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  echo "installing $requirements into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  # shellcheck disable=SC2086 # one argument per requirement
  "$venv/bin/pip" install --quiet --disable-pip-version-check $requirements >&2
  echo "$requirements" >"$venv/.requirements"
fi
echo "$venv"
