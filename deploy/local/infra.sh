#!/usr/bin/env bash
# Local real infrastructure for Bulwark's tests and CI: PostgreSQL 15, Redis,
# a single-node KRaft Kafka broker, an OpenLDAP slapd directory and a Redmine
# task tracker, all on 127.0.0.1, data under <repo>/.infra.
#
#   infra.sh install   install what is missing (redis-server, slapd, redmine, Kafka jars, prometheus for the metrics test, chromium for the console test, poppler-utils for the report tests)
#   infra.sh start     install if needed, start all five, wait until they answer
#   infra.sh start slapd   the same for slapd alone (likewise stop slapd, status slapd; and redmine)
#   infra.sh stop      stop all five
#   infra.sh status    one line per server
#   infra.sh env       export lines for the tests
#   infra.sh reset     stop, then delete the data (keeps the Kafka jar cache)
#
# Environment (all optional): BULWARK_INFRA_DIR (default <repo>/.infra),
# BULWARK_INFRA_TIMEOUT (seconds to wait for each server, default 90),
# BULWARK_PG_BIN (default /usr/lib/postgresql/15/bin), KAFKA_HEAP_OPTS,
# BULWARK_SLAPD_PORT and BULWARK_SLAPD_TLS_PORT (ldap:// and ldaps://, default 53389 and 53636),
# BULWARK_REDMINE_PORT (default 53000).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd -P)"
INFRA="${BULWARK_INFRA_DIR:-$ROOT/.infra}"
TIMEOUT="${BULWARK_INFRA_TIMEOUT:-90}"

PG_PORT=55432
REDIS_PORT=56379
KAFKA_PORT=59092
KAFKA_CONTROLLER_PORT=59093
SLAPD_PORT="${BULWARK_SLAPD_PORT:-53389}"
SLAPD_TLS_PORT="${BULWARK_SLAPD_TLS_PORT:-53636}"
REDMINE_PORT="${BULWARK_REDMINE_PORT:-53000}"
HOST=127.0.0.1

PG_BIN="${BULWARK_PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_USER=bulwark
PG_PASSWORD=bulwark

KAFKA_SRC="$SCRIPT_DIR/kafka"
KAFKA_DIR="$INFRA/kafka"
KAFKA_LIBS="$KAFKA_DIR/libs"
KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"

REDIS_DIR="$INFRA/redis"

SLAPD_BIN=/usr/sbin/slapd
SLAPD_DIR="$INFRA/slapd"
SLAPD_SUFFIX="dc=bulwark,dc=test"
SLAPD_SERVICE_DN="cn=bulwark-service,ou=services,$SLAPD_SUFFIX"
SLAPD_SERVICE_PASSWORD=service-password-for-tests
# Every person of the test directory has this password.
SLAPD_USER_PASSWORD=directory-password-for-tests

REDMINE_HOME=/usr/share/redmine
REDMINE_DIR="$INFRA/redmine"
# Debian's Redmine runs one instance per directory under /var/lib/redmine; ours is named after this
# checkout's infra directory, so two checkouts on one machine keep apart.
REDMINE_INSTANCE="bulwark-$(printf '%s' "$INFRA" | cksum | cut -d' ' -f1)"
REDMINE_PROJECT=bulwark-test

say() { printf 'infra: %s\n' "$*"; }
die() { printf 'infra: error: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

# Prints the last lines of a log file to stderr (for failure messages).
log_tail() {
  local f="$1"
  if [ -s "$f" ]; then
    printf 'infra: --- last lines of %s ---\n' "$f" >&2
    tail -n "${2:-40}" "$f" >&2 || true
    printf 'infra: ---\n' >&2
  fi
}

tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null; }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# pid from the first line of a pid file if that process is alive and its
# command line has $2 (a stale file whose pid was reused does not count).
live_pid() {
  local file="$1" match="$2" pid
  [ -f "$file" ] || return 1
  pid="$(head -n1 "$file" | tr -dc '0-9')"
  pid_alive "$pid" || return 1
  local cmdline
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"$match"* ]] || return 1
  echo "$pid"
}

# Sends SIGTERM, waits up to $3 seconds, then SIGKILL.
kill_wait() {
  local pid="$1" name="$2" secs="${3:-30}" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < secs * 5; i++)); do
    pid_alive "$pid" || return 0
    sleep 0.2
  done
  say "$name did not stop in ${secs}s; killing pid $pid"
  kill -KILL "$pid" 2>/dev/null || true
}

# Serialises start/stop/reset between concurrent callers. The lock fd (9) is
# closed for every server we launch so that they do not keep holding it.
# One status line: up (and whose), running but not answering, or down. $3 finds our process's pid,
# $4 asks the server itself, so a server started elsewhere on the port still reads as up.
server_status() {
  local label="$1" port="$2" pid_of="$3" answers="$4" pid
  if pid="$("$pid_of")"; then
    if "$answers"; then say "$label up      $HOST:$port pid $pid"; else say "$label running pid $pid but $HOST:$port not answering"; fi
  elif "$answers"; then
    say "$label up      $HOST:$port (not started from this checkout)"
  else
    say "$label down"
  fi
}

take_lock() {
  mkdir -p "$INFRA"
  chmod 755 "$INFRA" 2>/dev/null || true
  exec 9>"$INFRA/.lock"
  flock -w 600 9 || die "could not lock $INFRA/.lock"
}

# ---------------------------------------------------------------- install ---

APT_UPDATED=0
APT_LOG="$INFRA/apt.log"
apt_update() {
  say "apt-get update"
  apt-get update -q >>"$APT_LOG" 2>&1 || { log_tail "$APT_LOG"; die "apt-get update failed"; }
  APT_UPDATED=1
}
apt_get_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >>"$APT_LOG" 2>&1
}
apt_install() {
  is_root || die "missing $*: run 'infra.sh install' as root (or install them yourself)"
  command -v apt-get >/dev/null || die "missing $*: no apt-get on this machine"
  mkdir -p "$INFRA"
  : >"$APT_LOG"
  local pkg
  for pkg in "$@"; do
    if [ "$APT_UPDATED" = 0 ] && ! [[ "$(apt-cache policy "$pkg" 2>/dev/null)" =~ Candidate:\ [0-9] ]]; then
      apt_update
    fi
  done
  # Never let a package's maintainer script start a system-wide service.
  local policy=/usr/sbin/policy-rc.d made_policy=0 ok=1
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
  fi
  say "apt-get install $*"
  apt_get_install "$@" || ok=0
  if [ "$ok" = 0 ] && [ "$APT_UPDATED" = 0 ]; then
    apt_update # the package lists may be stale
    ok=1
    apt_get_install "$@" || ok=0
  fi
  if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi
  [ "$ok" = 1 ] || { log_tail "$APT_LOG"; die "apt-get install $* failed"; }
  rm -f "$APT_LOG"
}

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -n1
}

kafka_libs_stamp() { cksum <"$KAFKA_SRC/pom.xml" | cut -d' ' -f1; }

kafka_libs_ok() {
  [ -f "$KAFKA_LIBS/.complete" ] && [ "$(cat "$KAFKA_LIBS/.complete")" = "$(kafka_libs_stamp)" ]
}

install_all() {
  local missing=()
  [ -x "$PG_BIN/postgres" ] && [ -x "$PG_BIN/initdb" ] || missing+=(postgresql-15)
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
  slapd_present || missing+=(slapd ldap-utils openssl)
  # Not a server of the tests' environment: the metrics test starts its own Prometheus when present.
  command -v prometheus >/dev/null || missing+=(prometheus)
  # Not servers either: the console's browser tests drive Chromium, the report tests read PDFs with
  # pdftotext.
  command -v chromium >/dev/null || missing+=(chromium)
  command -v pdftotext >/dev/null || missing+=(poppler-utils)
  local jm=""
  if command -v java >/dev/null; then jm="$(java_major || true)"; fi
  [ -n "$jm" ] && [ "$jm" -ge 17 ] || missing+=(openjdk-17-jre-headless)
  if ! kafka_libs_ok; then command -v mvn >/dev/null || missing+=(maven); fi
  if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
  redmine_install

  if ! kafka_libs_ok; then
    say "fetching Kafka jars with Maven into ${KAFKA_LIBS#"$ROOT"/}"
    local tmp="$KAFKA_DIR/libs.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$KAFKA_DIR"
    if ! mvn -q -B -f "$KAFKA_SRC/pom.xml" dependency:copy-dependencies \
        -DoutputDirectory="$tmp" -DincludeScope=runtime >"$KAFKA_DIR/mvn.log" 2>&1; then
      log_tail "$KAFKA_DIR/mvn.log"
      rm -rf "$tmp"
      die "kafka: mvn dependency:copy-dependencies failed (see above)"
    fi
    ls "$tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "kafka: no kafka_2.13 jar after mvn"
    kafka_libs_stamp >"$tmp/.complete"
    rm -rf "$KAFKA_LIBS"
    mv "$tmp" "$KAFKA_LIBS"
    rm -f "$KAFKA_DIR/mvn.log"
  fi
}

# ------------------------------------------------------------- PostgreSQL ---

# As root, PostgreSQL runs as the `postgres` OS user; otherwise as ourselves.
PG_OS_USER=""
if is_root; then PG_OS_USER=postgres; fi

as_pg() {
  if [ -z "$PG_OS_USER" ]; then
    "$@"
  elif command -v runuser >/dev/null; then
    runuser -u "$PG_OS_USER" -- "$@"
  else
    su -s /bin/sh "$PG_OS_USER" -c "$(printf '%q ' "$@")"
  fi
}

# Where PostgreSQL's data lives: <infra>/pg, unless the postgres OS user cannot
# reach the repo (e.g. a parent directory is mode 700), then a directory in /tmp.
PG_FALLBACK="/tmp/bulwark-infra-$(printf '%s' "$INFRA" | cksum | cut -d' ' -f1)/pg"
pg_base() {
  local inrepo="$INFRA/pg"
  if [ -f "$inrepo/data/PG_VERSION" ] || [ -z "$PG_OS_USER" ]; then echo "$inrepo"; return; fi
  if [ -f "$PG_FALLBACK/data/PG_VERSION" ]; then echo "$PG_FALLBACK"; return; fi
  mkdir -p "$INFRA"
  if as_pg test -x "$INFRA" 2>/dev/null && as_pg test -r "$INFRA" 2>/dev/null; then
    echo "$inrepo"
  else
    echo "$PG_FALLBACK"
  fi
}

pg_ready() { timeout 5 "$PG_BIN/pg_isready" -q -h "$HOST" -p "$PG_PORT" -t 2 >/dev/null 2>&1; }
pg_query_ok() {
  local out
  out="$(PGPASSWORD="$PG_PASSWORD" PGCONNECT_TIMEOUT=3 timeout 10 "$PG_BIN/psql" -X -Atq -h "$HOST" \
    -p "$PG_PORT" -U "$PG_USER" -d postgres -c 'select 1' 2>/dev/null)" && [ "$out" = 1 ]
}
pg_pid() { live_pid "$1/data/postmaster.pid" "$PG_BIN/postgres"; }
pg_running_here() { pg_pid "$1" >/dev/null; }

pg_write_conf() {
  local base="$1"
  cat >"$base/data/bulwark.conf" <<EOF
# Written by deploy/local/infra.sh on every start; do not edit.
listen_addresses = '$HOST'
port = $PG_PORT
unix_socket_directories = ''
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
password_encryption = scram-sha-256
timezone = 'UTC'
log_timezone = 'UTC'
logging_collector = off
log_min_messages = warning
log_checkpoints = off
EOF
  chown "${PG_OS_USER:-$(id -un)}:" "$base/data/bulwark.conf" 2>/dev/null || true
  grep -q "^include = 'bulwark.conf'" "$base/data/postgresql.conf" ||
    printf "\ninclude = 'bulwark.conf'\n" >>"$base/data/postgresql.conf"
}

pg_init() {
  local base="$1"
  say "postgres: initdb in ${base#"$ROOT"/}/data"
  rm -rf "$base/data"
  mkdir -p "$base"
  chmod 755 "$INFRA" "$(dirname "$base")" 2>/dev/null || true
  if [ -n "$PG_OS_USER" ]; then chown "$PG_OS_USER:" "$base"; fi
  chmod 700 "$base"
  local pw="$base/.pwfile"
  printf '%s\n' "$PG_PASSWORD" >"$pw"
  if [ -n "$PG_OS_USER" ]; then chown "$PG_OS_USER:" "$pw"; fi
  chmod 600 "$pw"
  if ! (cd "$base" && as_pg "$PG_BIN/initdb" -D "$base/data" -U "$PG_USER" --pwfile="$pw" \
      -E UTF8 --locale=C --auth-host=scram-sha-256 --auth-local=scram-sha-256 \
      >"$base/initdb.log" 2>&1); then
    rm -f "$pw"
    log_tail "$base/initdb.log"
    die "postgres: initdb failed"
  fi
  rm -f "$pw"
}

pg_start() {
  if pg_ready && pg_query_ok; then
    say "postgres: already up on $HOST:$PG_PORT"
    return
  fi
  local base
  base="$(pg_base)"
  [ -f "$base/data/PG_VERSION" ] || pg_init "$base"
  pg_write_conf "$base"
  local log="$base/postgres.log"
  if ! pg_running_here "$base"; then
    # Left by a server that was killed; PostgreSQL would refuse to start if
    # its pid now belongs to another process.
    rm -f "$base/data/postmaster.pid"
    if tcp_open "$PG_PORT"; then
      die "postgres: port $HOST:$PG_PORT is taken by another process that does not accept bulwark/bulwark"
    fi
    (cd "$base" && as_pg "$PG_BIN/pg_ctl" -D "$base/data" -l "$log" -s -w -t "$TIMEOUT" start 9>&-) ||
      { log_tail "$log"; die "postgres: failed to start on $HOST:$PG_PORT"; }
  fi
  local deadline=$((SECONDS + TIMEOUT))
  until pg_ready && pg_query_ok; do
    if ((SECONDS >= deadline)); then
      log_tail "$log"
      die "postgres: not ready on $HOST:$PG_PORT after ${TIMEOUT}s"
    fi
    pg_running_here "$base" || { log_tail "$log"; die "postgres: server exited during startup"; }
    sleep 0.3
  done
  say "postgres: up on $HOST:$PG_PORT (data ${base#"$ROOT"/}/data)"
}

pg_stop() {
  local base
  for base in "$INFRA/pg" "$PG_FALLBACK"; do
    [ -f "$base/data/PG_VERSION" ] || continue
    if pg_running_here "$base"; then
      (cd / && as_pg "$PG_BIN/pg_ctl" -D "$base/data" -s -w -t 60 -m fast stop) ||
        die "postgres: pg_ctl stop failed"
      say "postgres: stopped"
      return
    fi
  done
  say "postgres: not running"
}

pg_status() {
  local base
  base="$(pg_base)"
  local pid
  if pid="$(pg_pid "$base")"; then
    if pg_ready; then
      say "postgres: up      $HOST:$PG_PORT pid $pid data ${base#"$ROOT"/}/data"
    else
      say "postgres: running $HOST:$PG_PORT pid $pid but not accepting connections"
    fi
  elif pg_ready; then
    say "postgres: up      $HOST:$PG_PORT (not started from this checkout)"
  else
    say "postgres: down"
  fi
}

# ------------------------------------------------------------------ Redis ---

redis_ping() { [ "$(timeout 5 redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }
redis_pid() { live_pid "$REDIS_DIR/redis.pid" redis-server; }

redis_start() {
  if redis_ping; then
    say "redis: already up on $HOST:$REDIS_PORT"
    return
  fi
  mkdir -p "$REDIS_DIR"
  local log="$REDIS_DIR/redis.log"
  if ! redis_pid >/dev/null; then
    if tcp_open "$REDIS_PORT"; then
      die "redis: port $HOST:$REDIS_PORT is taken by another process that does not answer PING"
    fi
    rm -f "$REDIS_DIR/redis.pid"
    : >"$log"
    (cd "$REDIS_DIR" && redis-server --bind "$HOST" --port "$REDIS_PORT" --protected-mode yes \
        --daemonize yes --pidfile "$REDIS_DIR/redis.pid" --logfile "$log" --dir "$REDIS_DIR" \
        --save '' --appendonly no --databases 64 9>&-) ||
      { log_tail "$log"; die "redis: failed to start on $HOST:$REDIS_PORT"; }
  fi
  local deadline=$((SECONDS + TIMEOUT))
  until redis_ping; do
    if ((SECONDS >= deadline)); then
      log_tail "$log"
      die "redis: not ready on $HOST:$REDIS_PORT after ${TIMEOUT}s"
    fi
    sleep 0.2
  done
  say "redis: up on $HOST:$REDIS_PORT"
}

redis_stop() {
  local pid
  if pid="$(redis_pid)"; then
    kill_wait "$pid" redis 20
    rm -f "$REDIS_DIR/redis.pid"
    say "redis: stopped"
  else
    say "redis: not running"
  fi
}

redis_status() { server_status "redis:   " "$REDIS_PORT" redis_pid redis_ping; }

# ------------------------------------------------------------------ Kafka ---

kafka_pid() { live_pid "$KAFKA_DIR/kafka.pid" kafka.Kafka; }

# A real metadata round trip: BrokerApiVersionsCommand asks the bootstrap
# server for the cluster's brokers (Metadata) and each broker for its API
# versions; node 1 is listed only once it is registered and unfenced.
kafka_api_ok() {
  local out
  out="$(timeout 30 java -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
      -Dlog4j2.configurationFile="$KAFKA_SRC/tools-log4j2.properties" \
      -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.BrokerApiVersionsCommand \
      --bootstrap-server "$HOST:$KAFKA_PORT" 2>&1)" || return 1
  [[ "$out" == *"$HOST:$KAFKA_PORT (id: 1 "* ]]
}

kafka_render_conf() {
  mkdir -p "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  sed -e "s|@BROKER_PORT@|$KAFKA_PORT|g" -e "s|@CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
      -e "s|@DATA_DIR@|$KAFKA_DIR/data|g" \
      "$KAFKA_SRC/server.properties" >"$KAFKA_DIR/server.properties"
}

kafka_format() {
  [ -f "$KAFKA_DIR/data/meta.properties" ] && return
  local id
  [ -s "$KAFKA_DIR/cluster.id" ] ||
    head -c 16 /dev/urandom | base64 | tr '+/' '-_' | cut -c1-22 >"$KAFKA_DIR/cluster.id"
  # A base64url id may start with "-", which the storage tool takes for an option (Kafka's own ids never do).
  id="$(sed 's/^-/A/' "$KAFKA_DIR/cluster.id")"
  say "kafka: formatting storage (cluster id $id)"
  if ! java -Xmx256m -XX:TieredStopAtLevel=1 \
      -Dlog4j2.configurationFile="$KAFKA_SRC/tools-log4j2.properties" \
      -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool format --ignore-formatted \
      -t "$id" -c "$KAFKA_DIR/server.properties" >"$KAFKA_DIR/logs/format.log" 2>&1; then
    log_tail "$KAFKA_DIR/logs/format.log"
    die "kafka: storage format failed"
  fi
}

# Launches the broker in the background (own session, output to files).
kafka_launch() {
  : >"$KAFKA_DIR/logs/kafka.out"
  # Start each run with a fresh server.log (the previous one is kept once), so
  # that a failure shows this run's lines.
  if [ -f "$KAFKA_DIR/logs/server.log" ]; then
    mv -f "$KAFKA_DIR/logs/server.log" "$KAFKA_DIR/logs/server.log.prev"
  fi
  rm -f "$KAFKA_DIR/kafka.pid"
  # The whole background group gets its own stdio, so that a caller reading our
  # output through a pipe is not kept waiting by the broker.
  # shellcheck disable=SC2086,SC2016 # split $KAFKA_HEAP_OPTS; $$ is the inner shell's pid
  (cd "$KAFKA_DIR" && exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$KAFKA_DIR/kafka.pid" \
      java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
      -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent \
      -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true \
      -Dkafka.logs.dir="$KAFKA_DIR/logs" \
      -Dlog4j2.configurationFile="$KAFKA_SRC/log4j2.properties" \
      -cp "$KAFKA_LIBS/*" kafka.Kafka "$KAFKA_DIR/server.properties") \
    </dev/null >>"$KAFKA_DIR/logs/kafka.out" 2>&1 9>&- &
  local i
  for ((i = 0; i < 50; i++)); do
    [ -s "$KAFKA_DIR/kafka.pid" ] && return
    sleep 0.1
  done
  die "kafka: the broker process did not start"
}

# Starts the broker if needed, without waiting (see kafka_wait).
kafka_start_bg() {
  KAFKA_STATE=""
  if kafka_pid >/dev/null; then
    KAFKA_STATE=ours
    return
  fi
  if tcp_open "$KAFKA_PORT" || tcp_open "$KAFKA_CONTROLLER_PORT"; then
    if kafka_api_ok; then
      KAFKA_STATE=foreign
      return
    fi
    die "kafka: port $HOST:$KAFKA_PORT or $KAFKA_CONTROLLER_PORT is taken by another process"
  fi
  kafka_render_conf
  kafka_format
  kafka_launch
  KAFKA_STATE=launched
}

kafka_wait() {
  local log="$KAFKA_DIR/logs/server.log" out="$KAFKA_DIR/logs/kafka.out"
  case "$KAFKA_STATE" in
    foreign) say "kafka: already up on $HOST:$KAFKA_PORT (not started from this checkout)"; return ;;
    ours) if tcp_open "$KAFKA_PORT" && kafka_api_ok; then
            say "kafka: already up on $HOST:$KAFKA_PORT"; return
          fi ;;
  esac
  local deadline=$((SECONDS + TIMEOUT)) pid
  while :; do
    if ! pid="$(kafka_pid)"; then
      log_tail "$out" 20
      log_tail "$log"
      die "kafka: broker exited during startup"
    fi
    # Cheap check first; the metadata round trip starts a JVM.
    if tcp_open "$KAFKA_PORT" && kafka_api_ok; then break; fi
    if ((SECONDS >= deadline)); then
      log_tail "$out" 20
      log_tail "$log"
      die "kafka: broker not ready on $HOST:$KAFKA_PORT after ${TIMEOUT}s (pid $pid)"
    fi
    sleep 0.5
  done
  say "kafka: up on $HOST:$KAFKA_PORT (controller $HOST:$KAFKA_CONTROLLER_PORT)"
}

kafka_stop() {
  local pid
  if pid="$(kafka_pid)"; then
    kill_wait "$pid" kafka 60
    rm -f "$KAFKA_DIR/kafka.pid"
    say "kafka: stopped"
  else
    say "kafka: not running"
  fi
}

kafka_listening() { tcp_open "$KAFKA_PORT"; }
kafka_status() { server_status "kafka:   " "$KAFKA_PORT" kafka_pid kafka_listening; }

# ------------------------------------------------------------------ slapd ---

# An OpenLDAP directory for the directory-login tests, rebuilt from a generated
# LDIF at every start: people (one disabled), groups, a nested group, a service
# account that may search, and a TLS certificate made at start (ldaps:// and
# StartTLS) signed by a CA whose file the tests are given.

slapd_present() { [ -x "$SLAPD_BIN" ] && command -v ldapsearch >/dev/null && command -v slappasswd >/dev/null && command -v openssl >/dev/null; }
slapd_install() { slapd_present || apt_install slapd ldap-utils openssl; }

slapd_pid() { live_pid "$SLAPD_DIR/slapd.pid" slapd; }

# A real round trip: the service account binds and finds a person.
slapd_ok() {
  timeout 5 ldapsearch -x -LLL -H "ldap://$HOST:$SLAPD_PORT" -D "$SLAPD_SERVICE_DN" -w "$SLAPD_SERVICE_PASSWORD" \
    -b "ou=people,$SLAPD_SUFFIX" '(uid=alice)' dn 2>/dev/null | grep -q '^dn: uid=alice,'
}

slapd_certs() {
  local d="$SLAPD_DIR/tls"
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=Bulwark test CA" \
    -keyout "$d/ca.key" -out "$d/ca.pem" >/dev/null 2>&1 || die "slapd: could not make the test CA"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout "$d/server.key" -out "$d/server.csr" >/dev/null 2>&1 ||
    die "slapd: could not make the server key"
  printf 'subjectAltName=IP:%s,DNS:localhost\nextendedKeyUsage=serverAuth\n' "$HOST" >"$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 30 \
    -extfile "$d/server.ext" -out "$d/server.pem" >/dev/null 2>&1 || die "slapd: could not sign the server certificate"
  rm -f "$d/ca.key" "$d/ca.srl" "$d/server.csr" "$d/server.ext"
}

slapd_conf() {
  cat >"$SLAPD_DIR/slapd.conf" <<EOF
# Written by deploy/local/infra.sh on every start; do not edit.
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload ppolicy
pidfile $SLAPD_DIR/slapd.pid
TLSCACertificateFile $SLAPD_DIR/tls/ca.pem
TLSCertificateFile $SLAPD_DIR/tls/server.pem
TLSCertificateKeyFile $SLAPD_DIR/tls/server.key
database mdb
suffix "$SLAPD_SUFFIX"
rootdn "cn=admin,$SLAPD_SUFFIX"
directory $SLAPD_DIR/data
maxsize 104857600
index objectClass,uid,cn,mail,member eq
# Defines pwdAccountLockedTime, which marks the disabled person.
overlay ppolicy
access to attrs=userPassword
  by anonymous auth
  by * none
access to *
  by dn.exact="$SLAPD_SERVICE_DN" read
  by self read
  by * none
EOF
}

slapd_ldif() {
  local user_hash service_hash person uid name ou
  user_hash="$(slappasswd -s "$SLAPD_USER_PASSWORD")"
  service_hash="$(slappasswd -s "$SLAPD_SERVICE_PASSWORD")"
  {
    printf 'dn: %s\nobjectClass: dcObject\nobjectClass: organization\ndc: bulwark\no: Bulwark tests\n\n' "$SLAPD_SUFFIX"
    for ou in people groups services; do printf 'dn: ou=%s,%s\nobjectClass: organizationalUnit\nou: %s\n\n' "$ou" "$SLAPD_SUFFIX" "$ou"; done
    printf 'dn: %s\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: bulwark-service\nuserPassword: %s\n\n' \
      "$SLAPD_SERVICE_DN" "$service_hash"
    # uid:display name. carol is disabled (pwdAccountLockedTime); dave is in developers only through team-leads.
    for person in "alice:Alice Admin" "bob:Bob Builder" "carol:Carol Locked" "dave:Dave Lead" "erin:Erin Nogroup"; do
      uid="${person%%:*}"
      name="${person#*:}"
      printf 'dn: uid=%s,ou=people,%s\nobjectClass: inetOrgPerson\nuid: %s\ncn: %s\nsn: %s\ndisplayName: %s\nmail: %s@bulwark.test\nuserPassword: %s\n' \
        "$uid" "$SLAPD_SUFFIX" "$uid" "$name" "${name#* }" "$name" "$uid" "$user_hash"
      if [ "$uid" = carol ]; then printf 'pwdAccountLockedTime: 000001010000Z\n'; fi
      printf '\n'
    done
    printf 'dn: cn=security-admins,ou=groups,%s\nobjectClass: groupOfNames\ncn: security-admins\nmember: uid=alice,ou=people,%s\n\n' \
      "$SLAPD_SUFFIX" "$SLAPD_SUFFIX"
    printf 'dn: cn=team-leads,ou=groups,%s\nobjectClass: groupOfNames\ncn: team-leads\nmember: uid=dave,ou=people,%s\n\n' \
      "$SLAPD_SUFFIX" "$SLAPD_SUFFIX"
    printf 'dn: cn=developers,ou=groups,%s\nobjectClass: groupOfNames\ncn: developers\nmember: uid=bob,ou=people,%s\nmember: uid=carol,ou=people,%s\nmember: cn=team-leads,ou=groups,%s\n\n' \
      "$SLAPD_SUFFIX" "$SLAPD_SUFFIX" "$SLAPD_SUFFIX" "$SLAPD_SUFFIX"
  } >"$SLAPD_DIR/directory.ldif"
}

slapd_start() {
  if slapd_ok; then
    say "slapd: already up on $HOST:$SLAPD_PORT"
    return
  fi
  slapd_install
  local log="$SLAPD_DIR/slapd.log" pid
  if pid="$(slapd_pid)"; then kill_wait "$pid" slapd 20; fi
  if tcp_open "$SLAPD_PORT" || tcp_open "$SLAPD_TLS_PORT"; then
    die "slapd: port $HOST:$SLAPD_PORT or $SLAPD_TLS_PORT is taken by another process"
  fi
  rm -rf "$SLAPD_DIR"
  mkdir -p "$SLAPD_DIR/data"
  slapd_certs
  slapd_conf
  slapd_ldif
  if ! slapadd -q -f "$SLAPD_DIR/slapd.conf" -l "$SLAPD_DIR/directory.ldif" >"$log" 2>&1; then
    log_tail "$log"
    die "slapd: loading the test directory failed"
  fi
  # slapd forks into the background itself and writes its pid file.
  (cd "$SLAPD_DIR" && "$SLAPD_BIN" -f "$SLAPD_DIR/slapd.conf" -h "ldap://$HOST:$SLAPD_PORT/ ldaps://$HOST:$SLAPD_TLS_PORT/" \
      </dev/null >>"$log" 2>&1 9>&-) || { log_tail "$log"; die "slapd: failed to start"; }
  local deadline=$((SECONDS + TIMEOUT))
  until slapd_ok; do
    if ((SECONDS >= deadline)); then
      log_tail "$log"
      die "slapd: not ready on $HOST:$SLAPD_PORT after ${TIMEOUT}s"
    fi
    sleep 0.2
  done
  say "slapd: up on $HOST:$SLAPD_PORT (ldaps $HOST:$SLAPD_TLS_PORT)"
}

slapd_stop() {
  local pid
  if pid="$(slapd_pid)"; then
    kill_wait "$pid" slapd 20
    say "slapd: stopped"
  else
    say "slapd: not running"
  fi
}

slapd_status() { server_status "slapd:   " "$SLAPD_PORT" slapd_pid slapd_ok; }

# ---------------------------------------------------------------- Redmine ---

# Debian's Redmine (Rails, SQLite) as the task tracker that Bulwark's tracker integration is tested
# against for real, through its REST API: REST enabled, a project `bulwark-test` with Redmine's
# default trackers (Bug, Feature, Support) and statuses (New ... Closed, Rejected), and an API key of
# its admin made anew at every start (`infra.sh env` exports it).

# thin: the web server Redmine's Gemfile takes when it is installed (Rails finds no other in Debian's
# bundle); curl: the readiness check.
redmine_present() {
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}\n' redmine redmine-sqlite thin curl 2>/dev/null | tr -d ' ' | sort -u)" = ii ] &&
    command -v ruby >/dev/null
}

# Bookworm's Ruby gem packages install their code under vendor_ruby and only a specification under
# rubygems-integration; its Bundler takes a gem whose directory there is missing for a deleted one
# and tries to download it, so redmine's postinst (`bundle install --local`) fails. An empty
# directory per such gem lets it resolve them (the code still loads from vendor_ruby).
redmine_gem_dirs() {
  local d s n
  for d in /usr/share/rubygems-integration/* /usr/lib/*/rubygems-integration/*; do
    [ -d "$d/specifications" ] || continue
    for s in "$d"/specifications/*.gemspec; do
      n="$(basename "$s" .gemspec)"
      [ -d "$d/gems/$n" ] || mkdir -p "$d/gems/$n"
    done
  done
}

redmine_install() {
  redmine_present && return
  is_root || die "missing redmine: run 'infra.sh install' as root (or install redmine and redmine-sqlite yourself)"
  mkdir -p "$INFRA"
  : >"$APT_LOG"
  [[ "$(apt-cache policy redmine 2>/dev/null)" =~ Candidate:\ [0-9] ]] || apt_update
  say "apt-get install redmine redmine-sqlite thin curl"
  # Never let a package's maintainer script start a system-wide service (thin has one).
  local policy=/usr/sbin/policy-rc.d made_policy=0 ok=1
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
  fi
  # The first configure of redmine fails (see redmine_gem_dirs); it is finished below.
  apt_get_install redmine redmine-sqlite thin curl || true
  redmine_gem_dirs
  DEBIAN_FRONTEND=noninteractive dpkg --configure -a >>"$APT_LOG" 2>&1 || ok=0
  if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi
  [ "$ok" = 1 ] || { log_tail "$APT_LOG"; die "redmine: dpkg --configure failed"; }
  redmine_present || { log_tail "$APT_LOG"; die "redmine: not installed after apt-get"; }
  rm -f "$APT_LOG"
}

redmine_pid() { live_pid "$REDMINE_DIR/server.pid" "$REDMINE_HOME"; }
redmine_key() { cat "$REDMINE_DIR/api-key" 2>/dev/null; }

# A real round trip: the admin's API key reads the test project.
redmine_ok() {
  local key
  key="$(redmine_key)" || return 1
  [ -n "$key" ] || return 1
  curl -fsS -m 5 -H "X-Redmine-API-Key: $key" "http://$HOST:$REDMINE_PORT/projects/$REDMINE_PROJECT.json" 2>/dev/null |
    grep -q "\"identifier\":\"$REDMINE_PROJECT\""
}

redmine_rails() {
  (cd "$REDMINE_HOME" && REDMINE_INSTANCE="$REDMINE_INSTANCE" RAILS_ENV=production REDMINE_LANG=en "$@" 9>&-)
}

# The instance folder Debian's Redmine reads (config, log, tmp, files) lives under the infra directory.
redmine_instance() {
  local inst="$REDMINE_DIR/instance"
  mkdir -p "$inst/config" "$inst/log" "$inst/tmp/cache" "$inst/files" "$inst/public/plugin_assets" "$inst/db"
  printf 'production:\n  adapter: sqlite3\n  database: %s\n  timeout: 5000\n' "$inst/db/redmine.sqlite3" >"$inst/config/database.yml"
  [ -s "$inst/config/secret_key.txt" ] || head -c 48 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$inst/config/secret_key.txt"
  mkdir -p /var/lib/redmine
  ln -sfn "$inst" "/var/lib/redmine/$REDMINE_INSTANCE"
}

# Migrating and seeding takes about a minute: done once per Redmine version into a template
# database that every start copies.
redmine_template() {
  local version tpl="$REDMINE_DIR/template.sqlite3" log="$REDMINE_DIR/setup.log"
  version="$(dpkg-query -W -f='${Version}' redmine)"
  if [ -f "$tpl" ] && [ "$(cat "$REDMINE_DIR/template.version" 2>/dev/null)" = "$version" ]; then return; fi
  say "redmine: building the test database (once per Redmine version)"
  rm -f "$REDMINE_DIR/instance/db/redmine.sqlite3"
  : >"$log"
  redmine_rails bundle exec rake db:migrate >>"$log" 2>&1 || { log_tail "$log"; die "redmine: db:migrate failed"; }
  redmine_rails bundle exec rake redmine:load_default_data >>"$log" 2>&1 || { log_tail "$log"; die "redmine: loading the default data failed"; }
  cat >"$REDMINE_DIR/seed.rb" <<RUBY
# Written by deploy/local/infra.sh; do not edit.
Setting.rest_api_enabled = '1'
User.find_by_login('admin').update_columns(must_change_passwd: false)
project = Project.new(name: 'Bulwark tests', identifier: '$REDMINE_PROJECT', is_public: true)
project.enabled_module_names = ['issue_tracking']
project.trackers = Tracker.all
project.save!
RUBY
  redmine_rails bundle exec rails runner "$REDMINE_DIR/seed.rb" >>"$log" 2>&1 || { log_tail "$log"; die "redmine: seeding failed"; }
  cp "$REDMINE_DIR/instance/db/redmine.sqlite3" "$tpl"
  printf '%s' "$version" >"$REDMINE_DIR/template.version"
}

redmine_start() {
  if redmine_ok; then
    say "redmine: already up on $HOST:$REDMINE_PORT"
    return
  fi
  redmine_install
  local pid log="$REDMINE_DIR/server.log" key
  if pid="$(redmine_pid)"; then kill_wait "$pid" redmine 20; fi
  if tcp_open "$REDMINE_PORT"; then die "redmine: port $HOST:$REDMINE_PORT is taken by another process"; fi
  mkdir -p "$REDMINE_DIR"
  redmine_instance
  redmine_template
  cp "$REDMINE_DIR/template.sqlite3" "$REDMINE_DIR/instance/db/redmine.sqlite3"
  # A fresh admin API key each start, written straight into the copied database (no Rails boot).
  key="$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  ruby -rsqlite3 -e 'db = SQLite3::Database.new(ARGV[0]); now = Time.now.utc.strftime("%Y-%m-%d %H:%M:%S")
    db.execute("delete from tokens where action = ?", ["api"])
    db.execute("insert into tokens (user_id, action, value, created_on, updated_on) select id, ?, ?, ?, ? from users where login = ?", ["api", ARGV[1], now, now, "admin"])' \
    "$REDMINE_DIR/instance/db/redmine.sqlite3" "$key" || die "redmine: could not store the API key"
  printf '%s\n' "$key" >"$REDMINE_DIR/api-key"
  chmod 600 "$REDMINE_DIR/api-key"
  : >"$log"
  rm -f "$REDMINE_DIR/server.pid" "$REDMINE_DIR/rails.pid"
  # shellcheck disable=SC2016 # $$ is the inner shell's pid
  (cd "$REDMINE_HOME" && REDMINE_INSTANCE="$REDMINE_INSTANCE" RAILS_ENV=production exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$REDMINE_DIR/server.pid" \
      ruby "$REDMINE_HOME/bin/rails" server -e production -b "$HOST" -p "$REDMINE_PORT" -P "$REDMINE_DIR/rails.pid") \
    </dev/null >>"$log" 2>&1 9>&- &
  local deadline=$((SECONDS + TIMEOUT))
  until redmine_ok; do
    if ((SECONDS >= deadline)); then
      log_tail "$log"
      die "redmine: not ready on $HOST:$REDMINE_PORT after ${TIMEOUT}s"
    fi
    if [ -s "$REDMINE_DIR/server.pid" ] && ! redmine_pid >/dev/null; then log_tail "$log"; die "redmine: server exited during startup"; fi
    sleep 0.5
  done
  say "redmine: up on $HOST:$REDMINE_PORT (project $REDMINE_PROJECT)"
}

redmine_stop() {
  local pid
  if pid="$(redmine_pid)"; then
    kill_wait "$pid" redmine 20
    rm -f "$REDMINE_DIR/server.pid" "$REDMINE_DIR/rails.pid"
    say "redmine: stopped"
  else
    say "redmine: not running"
  fi
}

redmine_status() { server_status "redmine: " "$REDMINE_PORT" redmine_pid redmine_ok; }

# ------------------------------------------------------------------- main ---

cmd_env() {
  cat <<EOF
export BULWARK_TEST_PG_URL=postgres://$PG_USER:$PG_PASSWORD@$HOST:$PG_PORT/postgres
export BULWARK_TEST_REDIS_URL=redis://$HOST:$REDIS_PORT
export BULWARK_TEST_KAFKA_BROKERS=$HOST:$KAFKA_PORT
export BULWARK_TEST_LDAP_URL=ldap://$HOST:$SLAPD_PORT
export BULWARK_TEST_LDAPS_URL=ldaps://$HOST:$SLAPD_TLS_PORT
export BULWARK_TEST_LDAP_CA_FILE=$SLAPD_DIR/tls/ca.pem
export BULWARK_TEST_LDAP_BASE=$SLAPD_SUFFIX
export BULWARK_TEST_LDAP_BIND_DN=$SLAPD_SERVICE_DN
export BULWARK_TEST_LDAP_BIND_PASSWORD=$SLAPD_SERVICE_PASSWORD
export BULWARK_TEST_LDAP_USER_PASSWORD=$SLAPD_USER_PASSWORD
EOF
  # Only once a start has made the API key: without it the tests say the tracker is missing.
  if [ -s "$REDMINE_DIR/api-key" ]; then
    printf 'export BULWARK_TEST_REDMINE_URL=http://%s:%s\nexport BULWARK_TEST_REDMINE_API_KEY=%s\nexport BULWARK_TEST_REDMINE_PROJECT=%s\n' \
      "$HOST" "$REDMINE_PORT" "$(redmine_key)" "$REDMINE_PROJECT"
  fi
}

cmd_start() {
  take_lock
  install_all
  # Kafka's JVM is the slowest: launch it first, start the others meanwhile.
  kafka_start_bg
  pg_start
  redis_start
  slapd_start
  redmine_start
  kafka_wait
}

cmd_stop() {
  take_lock
  kafka_stop
  redis_stop
  slapd_stop
  redmine_stop
  pg_stop
}

cmd_reset() {
  cmd_stop
  local p
  for p in "$INFRA"/* "$INFRA"/.[!.]*; do
    [ -e "$p" ] || continue
    case "$p" in
      "$INFRA/.lock" | "$KAFKA_DIR") ;;
      *) rm -rf "$p" ;;
    esac
  done
  if [ -d "$KAFKA_DIR" ]; then
    for p in "$KAFKA_DIR"/* "$KAFKA_DIR"/.[!.]*; do
      [ -e "$p" ] || continue
      [ "$p" = "$KAFKA_LIBS" ] || rm -rf "$p"
    done
  fi
  rm -rf "$(dirname "$PG_FALLBACK")"
  say "reset: deleted data under ${INFRA#"$ROOT"/} (kept the Kafka jars)"
}

usage() {
  echo "usage: $0 {install|start [slapd|redmine]|stop [slapd|redmine]|status [slapd|redmine]|env|reset}" >&2
  exit 2
}

# `start slapd`, `start redmine` and the like act on that server alone (the others may be shared with other checkouts).
case "${1:-}:${2:-}" in
  start:slapd) take_lock; slapd_start ;;
  stop:slapd) take_lock; slapd_stop ;;
  status:slapd) slapd_status ;;
  start:redmine) take_lock; redmine_start ;;
  stop:redmine) take_lock; redmine_stop ;;
  status:redmine) redmine_status ;;
  *:?*) usage ;;
  install:) take_lock; install_all; say "install: done" ;;
  start:) cmd_start ;;
  stop:) cmd_stop ;;
  status:) pg_status; redis_status; slapd_status; redmine_status; kafka_status ;;
  env:) cmd_env ;;
  reset:) cmd_reset ;;
  *) usage ;;
esac
