#!/usr/bin/env bash
# A real Gitea for the pull request decoration tests: Gitea's REST API follows GitHub's for issue
# comments and commit statuses, so Bulwark's GitHub platform code posts to it unchanged. Built from the
# Go module proxy (the one place its source is reachable from here), run on 127.0.0.1 with SQLite.
#
#   gitea.sh install   build Gitea once into the cache below (idempotent; about 7 min of CPU)
#   gitea.sh start     install if needed, start it on a free local port with a fresh data directory
#                      under <repo>/.infra/gitea, an admin user and an access token; wait until it answers
#   gitea.sh stop      stop it
#   gitea.sh status    one line
#   gitea.sh env       export lines for the tests (once a start has made the token)
#
# The build lives outside the checkout, so another checkout or a rerun on the same machine reuses it:
# BULWARK_GITEA_CACHE (default ~/.cache/bulwark-gitea) holds the source, the binary and, unless
# GOMODCACHE and GOCACHE are set, Go's module and build caches. `install` holds a lock while it builds,
# so a `start` run while a background install is still building waits for it (CI starts the build
# early and starts Gitea only before the tests).
#
# Gitea 1.26.0, not the newest: 1.27 needs gitea.dev/actions-proto-go, which the module proxy refuses.
set -euo pipefail

GITEA_VERSION=1.26.0
GITEA_MODULE=code.gitea.io/gitea
# What Gitea's own Makefile builds with for SQLite.
GITEA_TAGS="sqlite sqlite_unlock_notify"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# This checkout's running Gitea: its configuration, data, logs, port and token.
DIR="${BULWARK_INFRA_DIR:-$ROOT/.infra}/gitea"
# The build, outside the checkout: once a machine, one folder a version.
BUILD="${BULWARK_GITEA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bulwark-gitea}/$GITEA_VERSION"
CACHE="$(dirname "$BUILD")"
# The module's source, kept: the binary reads its templates and locale files (STATIC_ROOT_PATH).
SRC="$BUILD/src"
BIN="$BUILD/gitea"
TIMEOUT="${BULWARK_INFRA_TIMEOUT:-90}"
HOST=127.0.0.1
ADMIN_USER=bulwark
ADMIN_EMAIL=bulwark@gitea.test

say() { printf 'gitea: %s\n' "$*"; }
die() { printf 'gitea: error: %s\n' "$*" >&2; exit 1; }

log_tail() {
  if [ -s "$1" ]; then
    printf 'gitea: --- last lines of %s ---\n' "$1" >&2
    tail -n 40 "$1" >&2 || true
    printf 'gitea: ---\n' >&2
  fi
}

tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null; }

# The pid of our Gitea if it runs (a stale pid file whose pid was reused does not count).
gitea_pid() {
  local pid
  [ -f "$DIR/gitea.pid" ] || return 1
  pid="$(head -n1 "$DIR/gitea.pid" | tr -dc '0-9')"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" == *"$BIN web"* ]] || return 1
  echo "$pid"
}

gitea_port() { cat "$DIR/port" 2>/dev/null; }
gitea_token() { cat "$DIR/token" 2>/dev/null; }

# A real round trip: the admin's token reads the admin.
gitea_ok() {
  local port token
  port="$(gitea_port)" && token="$(gitea_token)" || return 1
  curl -fsS -m 5 -H "Authorization: token $token" "http://$HOST:$port/api/v1/user" 2>/dev/null |
    grep -q "\"login\":\"$ADMIN_USER\""
}

built() { [ -x "$BIN" ] && [ "$("$BIN" --version 2>/dev/null | awk '{ print $3 }')" = "$GITEA_VERSION" ]; }

cmd_install() {
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.lock"
  flock -w 1800 8 || die "could not lock $CACHE/.lock (another build running for 30 min?)"
  if built; then
    say "gitea $GITEA_VERSION present ($BIN)"
    return
  fi
  command -v go >/dev/null || die "go is needed to build Gitea (from the Go module proxy)"
  command -v gcc >/dev/null || die "gcc is needed to build Gitea's SQLite driver (cgo)"
  export GOMODCACHE="${GOMODCACHE:-$CACHE/gomod}" GOCACHE="${GOCACHE:-$CACHE/gocache}" GOFLAGS=-buildvcs=false
  # Each go step is bounded: a proxy that stops answering fails the build instead of holding the lock.
  local limit="${GITEA_BUILD_TIMEOUT:-1800}"
  local start=$SECONDS dir
  say "go mod download $GITEA_MODULE@v$GITEA_VERSION"
  dir="$(timeout "$limit" go mod download -json "$GITEA_MODULE@v$GITEA_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || die "go mod download gave no source folder for $GITEA_MODULE@v$GITEA_VERSION"
  # The module cache is read-only; the build writes beside the source (and Gitea serves its locale
  # files and templates from it, STATIC_ROOT_PATH).
  rm -rf "$SRC" "$BUILD/src.tmp"
  mkdir -p "$BUILD"
  cp -R "$dir" "$BUILD/src.tmp"
  chmod -R u+w "$BUILD/src.tmp"
  mv "$BUILD/src.tmp" "$SRC"
  say "go mod download (Gitea's dependencies)"
  (cd "$SRC" && timeout "$limit" go mod download) || die "go mod download failed or took over $limit s"
  say "go build -tags \"$GITEA_TAGS\" (a few minutes)"
  (cd "$SRC" && CGO_ENABLED=1 timeout "$limit" go build -tags "$GITEA_TAGS" -ldflags "-s -w -X main.Version=$GITEA_VERSION" -o "$BIN.tmp" .) ||
    die "go build failed or took over $limit s"
  mv "$BIN.tmp" "$BIN"
  built || die "the built $BIN does not say it is version $GITEA_VERSION"
  say "built gitea $GITEA_VERSION in $((SECONDS - start)) s"
}

# A port free now, below Linux's ephemeral range (as the tests' own servers pick theirs).
free_port() {
  local port i
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + RANDOM % 12768))
    tcp_open "$port" || { echo "$port"; return; }
  done
  die "no free port found"
}

write_config() {
  local port="$1" secret internal jwt
  secret="$("$BIN" generate secret SECRET_KEY)"
  internal="$("$BIN" generate secret INTERNAL_TOKEN)"
  jwt="$("$BIN" generate secret JWT_SECRET)"
  cat >"$DIR/app.ini" <<EOF
; Written by deploy/local/gitea.sh at each start; do not edit.
APP_NAME = Bulwark test Gitea
RUN_MODE = prod
RUN_USER = $(id -un)
WORK_PATH = $DIR
; CI runs as root; Gitea refuses that unless told.
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true

[server]
PROTOCOL = http
HTTP_ADDR = $HOST
HTTP_PORT = $port
ROOT_URL = http://$HOST:$port/
DISABLE_SSH = true
START_SSH_SERVER = false
LFS_START_SERVER = false
OFFLINE_MODE = true
APP_DATA_PATH = $DIR/data
; The module's source has the locale files and templates a binary built without bindata reads.
STATIC_ROOT_PATH = $SRC

[database]
DB_TYPE = sqlite3
PATH = $DIR/data/gitea.db

[repository]
ROOT = $DIR/data/repositories

[security]
INSTALL_LOCK = true
SECRET_KEY = $secret
INTERNAL_TOKEN = $internal

[oauth2]
JWT_SECRET = $jwt

[service]
DISABLE_REGISTRATION = true

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[actions]
ENABLED = false

[indexer]
ISSUE_INDEXER_TYPE = db

[log]
MODE = file
LEVEL = warn
ROOT_PATH = $DIR/log
EOF
}

cmd_start() {
  if gitea_ok; then
    say "already up on $HOST:$(gitea_port)"
    return
  fi
  cmd_install
  command -v git >/dev/null || die "git is needed by Gitea"
  local pid port log="$DIR/server.log" password
  # A Gitea of this checkout that runs but does not answer: stopped (and waited for) before its folder goes.
  if gitea_pid >/dev/null; then cmd_stop; fi
  # A fresh data directory each start, as the Redmine of infra.sh: no state left from another run;
  # only this user reads it (the token, the secrets of app.ini).
  rm -rf "$DIR"
  umask 077
  mkdir -p "$DIR/data" "$DIR/log"
  port="$(free_port)"
  write_config "$port"
  local gitea=("$BIN" --config "$DIR/app.ini" --work-path "$DIR")
  "${gitea[@]}" migrate >"$DIR/setup.log" 2>&1 || { log_tail "$DIR/setup.log"; die "gitea migrate failed"; }
  password="$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  "${gitea[@]}" admin user create --username "$ADMIN_USER" --email "$ADMIN_EMAIL" --password "$password" \
    --admin --must-change-password=false >>"$DIR/setup.log" 2>&1 || { log_tail "$DIR/setup.log"; die "creating the admin failed"; }
  # The CLI's own log lines (a warning when run as root) come on stdout too: the token is the line of 40 hex digits.
  "${gitea[@]}" admin user generate-access-token --username "$ADMIN_USER" --token-name bulwark-tests \
    --scopes all --raw >"$DIR/token.out" 2>>"$DIR/setup.log" || { log_tail "$DIR/setup.log"; die "creating the token failed"; }
  { grep -E '^[0-9a-f]{40}$' "$DIR/token.out" || true; } | tail -n1 >"$DIR/token"
  rm -f "$DIR/token.out"
  [ -s "$DIR/token" ] || die "gitea admin user generate-access-token printed no token"
  printf '%s\n' "$port" >"$DIR/port"
  : >"$log"
  # shellcheck disable=SC2016 # $$ is the inner shell's pid
  (cd "$DIR" && exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$DIR/gitea.pid" "$BIN" web --config "$DIR/app.ini" --work-path "$DIR") \
    </dev/null >>"$log" 2>&1 8>&- &
  wait_ready "$port" "$log"
  say "up on $HOST:$port (admin $ADMIN_USER)"
}

# Waits until the token reads the admin; fails when Gitea exits first or after TIMEOUT seconds.
wait_ready() {
  local deadline=$((SECONDS + TIMEOUT))
  while ! gitea_ok; do
    [ ! -s "$DIR/gitea.pid" ] || gitea_pid >/dev/null || { log_tail "$2"; die "gitea exited during startup"; }
    ((SECONDS < deadline)) || { log_tail "$2"; die "not ready on $HOST:$1 after ${TIMEOUT}s"; }
    sleep 0.5
  done
}

cmd_stop() {
  local pid i
  if pid="$(gitea_pid)"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    rm -f "$DIR/gitea.pid"
    say "stopped"
  else
    say "not running"
  fi
}

cmd_status() {
  local pid
  if pid="$(gitea_pid)"; then
    if gitea_ok; then say "up      $HOST:$(gitea_port) pid $pid"; else say "running pid $pid but not answering"; fi
  else
    say "down"
  fi
}

cmd_env() {
  # Only once a start has made the token: without it the tests say Gitea is missing.
  if [ -s "$DIR/token" ] && [ -s "$DIR/port" ]; then
    printf 'export BULWARK_TEST_GITEA_URL=http://%s:%s\nexport BULWARK_TEST_GITEA_TOKEN=%s\n' "$HOST" "$(gitea_port)" "$(gitea_token)"
  fi
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) say "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
