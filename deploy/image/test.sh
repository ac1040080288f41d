#!/usr/bin/env bash
# Starts the image built by build.sh through its own entrypoint (buildah run, chroot isolation, the
# host's network) and checks: GET /healthz and /readyz answer 200, the process runs as the image's
# non-root user, the final stage holds no build tools or dev dependencies, the CLI runs as `bulwark`, and SIGTERM to PID 1 (tini)
# ends it cleanly (exit 0) within the shutdown time.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
CACHE="${BULWARK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bulwark/image}"
IMAGE="${BULWARK_IMAGE:-localhost/bulwark:dev}"
TIMEOUT="${BULWARK_IMAGE_TEST_TIMEOUT:-240}"

say() { printf 'image-test: %s\n' "$*"; }
die() { printf 'image-test: FAIL: %s\n' "$*" >&2; [ -s "${log:-}" ] && tail -n 40 "$log" >&2; exit 1; }
bh() { buildah --root "$CACHE/storage" --runroot "$CACHE/run" --storage-driver vfs "$@"; }

bh inspect --type image "$IMAGE" >/dev/null 2>&1 || die "no image $IMAGE: run deploy/image/build.sh first"
ctr="$(bh from --pull-never "$IMAGE")"
log="$(mktemp)"
runner=""
cleanup() {
  if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then kill -KILL -- "-$runner" 2>/dev/null || true; fi
  bh rm "$ctr" >/dev/null 2>&1 || true
  rm -f "$log"
}
trap cleanup EXIT

# The final stage: no npm, compilers, TypeScript, build or test tools.
mnt="$(bh mount "$ctr")"
for p in usr/local/bin/npm usr/local/lib/node_modules/npm usr/bin/gcc usr/bin/make \
         app/node_modules/typescript app/node_modules/turbo app/node_modules/@bufbuild/buf app/node_modules/mocha app/node_modules/tsx \
         app/packages/testkit app/packages/runtime/src; do
  [ ! -e "$mnt/$p" ] || die "the image holds /$p"
done
[ -x "$mnt/usr/local/bin/node" ] && [ -f "$mnt/app/packages/runtime/dist/main.js" ] && [ -d "$mnt/app/services/scanning/rules" ] \
  && [ -f "$mnt/app/console/dist/index.html" ] && [ -L "$mnt/app/node_modules/@bulwark/console" ] \
  || die "the image lacks node, the runtime, the scanner rules or the console"
bh unmount "$ctr" >/dev/null

# The CLI the CI examples (docs/ci) run from this image.
cli="$(bh run --isolation chroot "$ctr" -- bulwark formats 2>&1)" || die "bulwark (the CLI) does not run in the image: $cli"
grep -q '^sarif ' <<<"$cli" || die "bulwark formats does not list sarif: $cli"
say "ok: the CLI runs as bulwark"

user="$(bh inspect --type image --format '{{.OCIv1.Config.User}}' "$IMAGE")"
mapfile -t entrypoint < <(bh inspect --type image --format '{{range .OCIv1.Config.Entrypoint}}{{println .}}{{end}}' "$IMAGE" | sed '/^$/d')
[ "${#entrypoint[@]}" -gt 0 ] || die "the image has no entrypoint"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

# The image's own environment (TARGET=all, GATEWAY_HOST=0.0.0.0, ...) and user; only the port differs,
# so the test does not collide with anything else on this host.
say "starting ${entrypoint[*]} (user $user, PORT=$port)"
setsid buildah --root "$CACHE/storage" --runroot "$CACHE/run" --storage-driver vfs \
  run --isolation chroot --env "PORT=$port" --env LOG_LEVEL=info "$ctr" -- "${entrypoint[@]}" >"$log" 2>&1 &
runner=$!

start=$(date +%s)
until curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; do
  kill -0 "$runner" 2>/dev/null || die "the container exited before answering /healthz"
  [ $(( $(date +%s) - start )) -lt "$TIMEOUT" ] || die "no /healthz after $TIMEOUT s"
  sleep 1
done
say "ok: GET /healthz 200 after $(( $(date +%s) - start )) s"
until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/readyz")" = 200 ]; do
  [ $(( $(date +%s) - start )) -lt "$TIMEOUT" ] || die "/readyz not 200 after $TIMEOUT s"
  sleep 1
done
say "ok: GET /readyz 200"

# PID 1 of the container is tini; the server is its child node process.
tini="$(ps -eo pid=,pgid=,args= | awk -v g="$runner" '$2 == g && $3 == "/usr/bin/tini" { print $1; exit }')"
[ -n "$tini" ] || die "no tini process in the container"
node_uid="$(ps -o uid= --ppid "$tini" | tr -d ' ' | head -n1)"
[ "$node_uid" = "${user%%:*}" ] && [ "$node_uid" != 0 ] || die "the server runs as uid '$node_uid', not the image's user $user"
say "ok: runs as uid $node_uid"

kill -TERM "$tini"
for _ in $(seq 1 30); do kill -0 "$runner" 2>/dev/null || break; sleep 1; done
if kill -0 "$runner" 2>/dev/null; then die "still running 30 s after SIGTERM"; fi
rc=0; wait "$runner" || rc=$?
runner=""
[ "$rc" = 0 ] || die "exit code $rc after SIGTERM"
say "ok: SIGTERM ends it cleanly"
say "PASS"
