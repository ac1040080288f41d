#!/usr/bin/env bash
# Installs the command-line scanners the scanning service runs (tool types with an `execution` in
# packages/contracts/src/tool-types.ts) into <repo>/.infra/scanners, from the package registries only:
#   Semgrep, Bandit, Checkov  PyPI, one Python venv          .infra/scanners/venv (linked from .infra/scanners/bin)
#   Gitleaks                  Go module proxy, go install     .infra/scanners/go/bin (linked from .infra/scanners/bin)
#   ESLint (+ security plugin, SARIF formatter)  npm, a dependency of services/scanning  node_modules/.bin
# and the scanner sandbox the local runner needs (SCAN_SANDBOX=bwrap, the default): bubblewrap and
# util-linux's prlimit and setpriv, from the system's packages (apt-get, as root); skipped when
# SCAN_SANDBOX=none is set.
#
#   deploy/local/scanners.sh install    install what is missing (idempotent)
#   deploy/local/scanners.sh env        print `export SCANNER_PATH=...` for the scanning service
#   deploy/local/scanners.sh versions   one line per scanner
#
# Versions are pinned so that the fixtures' expected findings (services/scanning/test/fixtures)
# stay true; change a pin and those findings must be re-recorded from a real run.
set -euo pipefail

SEMGREP_VERSION=1.180.0
BANDIT_VERSION=1.9.4
CHECKOV_VERSION=3.3.30
# The Go module proxy serves Gitleaks under its original module path only.
GITLEAKS_MODULE=github.com/zricethezav/gitleaks/v8
GITLEAKS_VERSION=v8.30.1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE="$ROOT/.infra/scanners"
VENV="$BASE/venv"
GOBIN_DIR="$BASE/go/bin"
BIN="$BASE/bin"
NODE_BIN="$ROOT/node_modules/.bin"

say() { printf 'scanners: %s\n' "$*"; }
die() { say "error: $*" >&2; exit 1; }

# Installed version of a package in the venv, empty when it is not installed.
venv_version() { "$VENV/bin/python" -c "import importlib.metadata as m, sys
try: print(m.version(sys.argv[1]))
except m.PackageNotFoundError: pass" "$1" 2>/dev/null || true; }

# Module version a Go binary was built from (go install does not stamp gitleaks' own version string).
go_bin_version() { go version -m "$1" 2>/dev/null | awk '$1 == "mod" { print $3; exit }'; }

install_python() {
  command -v python3 >/dev/null || die "python3 is needed (3.9 or newer)"
  if [ ! -x "$VENV/bin/python" ]; then
    say "creating venv $VENV"
    python3 -m venv "$VENV"
  fi
  local want=() pkg ver have
  for pkg in "semgrep==$SEMGREP_VERSION" "bandit==$BANDIT_VERSION" "checkov==$CHECKOV_VERSION"; do
    ver="${pkg#*==}"
    have="$(venv_version "${pkg%%==*}")"
    if [ "$have" = "$ver" ]; then say "${pkg%%==*} $ver present"; else want+=("$pkg"); fi
  done
  if [ "${#want[@]}" -gt 0 ]; then
    # All three in one resolve: installing them one by one lets a later one move a shared dependency.
    say "pip install semgrep==$SEMGREP_VERSION bandit==$BANDIT_VERSION checkov==$CHECKOV_VERSION (Checkov pulls many dependencies: a few minutes)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
      "semgrep==$SEMGREP_VERSION" "bandit==$BANDIT_VERSION" "checkov==$CHECKOV_VERSION"
  fi
  mkdir -p "$BIN"
  local b
  for b in semgrep bandit checkov; do
    [ -x "$VENV/bin/$b" ] || die "$b is missing from $VENV/bin after pip install"
    # Relative links: the checkout may move.
    ln -sfn "../venv/bin/$b" "$BIN/$b"
  done
}

install_gitleaks() {
  local have=""
  [ -x "$GOBIN_DIR/gitleaks" ] && have="$(go_bin_version "$GOBIN_DIR/gitleaks")"
  if [ "$have" = "$GITLEAKS_VERSION" ]; then
    say "gitleaks $GITLEAKS_VERSION present"
  else
    command -v go >/dev/null || die "go is needed to build gitleaks (go install $GITLEAKS_MODULE@$GITLEAKS_VERSION)"
    say "go install $GITLEAKS_MODULE@$GITLEAKS_VERSION"
    mkdir -p "$GOBIN_DIR"
    GOBIN="$GOBIN_DIR" GOFLAGS=-buildvcs=false go install "$GITLEAKS_MODULE@$GITLEAKS_VERSION"
  fi
  mkdir -p "$BIN"
  ln -sfn ../go/bin/gitleaks "$BIN/gitleaks"
}

install_eslint() {
  # ESLint and its plugins are dependencies of services/scanning, installed by the repository's
  # `npm ci`; installing them here separately could leave package-lock.json and node_modules apart.
  local m
  for m in eslint eslint-plugin-security @microsoft/eslint-formatter-sarif; do
    [ -f "$ROOT/node_modules/$m/package.json" ] || die "$m is not in node_modules: run npm ci in $ROOT first"
  done
  say "eslint $(node -p "require('$ROOT/node_modules/eslint/package.json').version") present (from npm ci)"
}

install_sandbox() {
  if [ "${SCAN_SANDBOX:-bwrap}" = none ]; then
    say "SCAN_SANDBOX=none: no scanner sandbox installed (scanners will run unconfined)"
    return
  fi
  if ! command -v bwrap >/dev/null; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      say "apt-get install bubblewrap (the scanner sandbox)"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null \
        || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } \
        || die "apt-get could not install bubblewrap"
    else
      die "bubblewrap (bwrap) is needed for the scanner sandbox: install it with the system's package manager (Debian/Ubuntu: apt-get install bubblewrap, as root), or run scanners unconfined with SCAN_SANDBOX=none"
    fi
  fi
  command -v prlimit >/dev/null && command -v setpriv >/dev/null || die "prlimit and setpriv (util-linux) are needed for the scanner sandbox"
  # The same namespaces the scanning service asks for; a container without them fails here, not at the first scan.
  bwrap --unshare-net --unshare-pid --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev /bin/true 2>/dev/null \
    || die "bwrap is installed but cannot create namespaces here (a container needs them allowed), or set SCAN_SANDBOX=none"
  say "bubblewrap $(bwrap --version | awk '{ print $2 }') present"
}

cmd_install() {
  local start=$SECONDS
  install_sandbox
  install_python
  install_gitleaks
  install_eslint
  say "installed in $((SECONDS - start)) s"
}

cmd_env() {
  printf 'export SCANNER_PATH=%s\n' "$BIN:$NODE_BIN"
}

cmd_versions() {
  local v
  v="$(venv_version semgrep)"; say "semgrep ${v:-missing} (pinned $SEMGREP_VERSION)"
  v="$(venv_version bandit)"; say "bandit ${v:-missing} (pinned $BANDIT_VERSION)"
  v="$(venv_version checkov)"; say "checkov ${v:-missing} (pinned $CHECKOV_VERSION)"
  v=""; [ -x "$GOBIN_DIR/gitleaks" ] && v="$(go_bin_version "$GOBIN_DIR/gitleaks")"
  say "gitleaks ${v:-missing} (pinned $GITLEAKS_VERSION)"
  v=""; [ -f "$ROOT/node_modules/eslint/package.json" ] && v="$(node -p "require('$ROOT/node_modules/eslint/package.json').version")"
  say "eslint ${v:-missing} (services/scanning dependency)"
  v=""; command -v bwrap >/dev/null && v="$(bwrap --version | awk '{ print $2 }')"
  say "bubblewrap ${v:-missing} (scanner sandbox, system package)"
}

case "${1:-}" in
  install) cmd_install ;;
  env) cmd_env ;;
  versions) cmd_versions ;;
  *) say "usage: $0 install|env|versions" >&2; exit 2 ;;
esac
