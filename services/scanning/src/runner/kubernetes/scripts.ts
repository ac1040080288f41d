/** The shell scripts of a scan pod's two containers, and what the checkout's failure codes mean. */
import { gitHost } from '@bulwark/platform';
import type { ScanCheckout } from '../scan-runner';

export const GIT_HOME = '/bulwark/git-home';

/**
 * Clones inside the pod, credentials from the environment only (filled from the scan's Secret): the
 * askpass is a credential helper reading variables, the SSH key lands in a memory volume the scanner
 * never mounts. git's own output may echo URLs, so only a failure code reaches the termination message.
 */
export const CHECKOUT_SCRIPT = `set -u
umask 077
export HOME=${GIT_HOME} GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null GIT_TERMINAL_PROMPT=0 LC_ALL=C
fail() { printf '%s' "$1" > /dev/termination-log; exit 1; }
if [ "$BULWARK_GIT_TRANSPORT" = ssh ]; then
  set -- -c credential.helper= -c protocol.allow=never -c protocol.ssh.allow=always
  if [ -n "\${BULWARK_GIT_SSH_KEY:-}" ]; then printf '%s\\n' "$BULWARK_GIT_SSH_KEY" > "$HOME/id"; fi
  export GIT_SSH_COMMAND="ssh -F /dev/null -i $HOME/id -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=$HOME/known_hosts -o ConnectTimeout=$BULWARK_GIT_TIMEOUT"
else
  set -- -c credential.helper= -c protocol.allow=never -c protocol.http.allow=always -c protocol.https.allow=always -c http.lowSpeedLimit=1 -c "http.lowSpeedTime=$BULWARK_GIT_TIMEOUT"
  if [ -n "\${BULWARK_GIT_USERNAME+x}" ]; then
    set -- "$@" -c 'credential.helper=!f() { echo "username=$BULWARK_GIT_USERNAME"; echo "password=$BULWARK_GIT_PASSWORD"; }; f'
  fi
fi
set -- "$@" clone --quiet --single-branch --no-tags
if [ -z "\${BULWARK_GIT_COMMIT:-}" ]; then set -- "$@" --depth 1; fi
if [ -n "\${BULWARK_GIT_REF:-}" ]; then set -- "$@" --branch "$BULWARK_GIT_REF"; fi
if ! timeout "$BULWARK_GIT_TIMEOUT" git "$@" -- "$BULWARK_GIT_URL" "$BULWARK_SOURCE_DIR" 2> "$HOME/err"; then
  if grep -Eqi "Remote branch .* not found|couldn't find remote ref" "$HOME/err"; then fail ref; fi
  if grep -Eqi 'Authentication failed|could not read Username|returned error: 40[13]|Permission denied' "$HOME/err"; then fail auth; fi
  fail clone
fi
if [ -n "\${BULWARK_GIT_COMMIT:-}" ]; then
  git -C "$BULWARK_SOURCE_DIR" checkout --quiet --detach "$BULWARK_GIT_COMMIT" 2> /dev/null || fail commit
fi
`;

/**
 * Runs the tool's argv as given ("$@", never parsed by the shell), then prints its exit code and the
 * base64 of its report between the Job's markers: the runner reads the report from the pod log, so
 * nothing but the API server connects the pod and this service. Always exits 0 once the frame is out:
 * whether the exit code is a success is the tool type's decision (okExitCodes), not the Job's.
 */
export const SCANNER_SCRIPT = `mkdir -p "$HOME" "$TMPDIR"
"$@"
code=$?
if [ -f "$BULWARK_RESULT" ]; then
  printf '\\n%s report %s\\n' "$BULWARK_MARK" "$code"
  base64 "$BULWARK_RESULT"
else
  printf '\\n%s noreport %s\\n' "$BULWARK_MARK" "$code"
fi
printf '%s end\\n' "$BULWARK_MARK"
`;

export const CHECKOUT_FAILURES: Record<string, (c: ScanCheckout) => string> = {
  ref: (c) => `branch or tag "${c.ref}" does not exist in the repository`,
  auth: (c) => `the repository at ${gitHost(c.url)} refused the credentials`,
  commit: (c) => `commit ${c.commit} is not on ${c.ref ? `"${c.ref}"` : 'the default branch'}`,
  clone: (c) => `could not clone the repository at ${gitHost(c.url)}`,
};
