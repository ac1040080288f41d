"""Schemathesis hooks of the fuzz run (loaded by fuzz/run.sh through SCHEMATHESIS_HOOKS).

1. The fuzzer's own account stays usable. Every operation is fuzzed, but a write that names the
   fuzzer's own user (PUT /user/{id}, DELETE /users with its id) is pointed at a user that does not
   exist instead: otherwise one generated request could delete, demote or lock out the only admin
   and every later request would answer 401/403, testing nothing.
2. Every response is tallied into FUZZ_TALLY_FILE for the summary line: requests, responses per
   status class and, per operation, how many answered 5xx with one such request as curl.
"""

import atexit
import json
import os
import threading

import schemathesis

OWN_USER_ID = os.environ["FUZZ_OWN_USER_ID"]
TALLY_FILE = os.environ["FUZZ_TALLY_FILE"]
# A well-formed id that no user has (ids are UUIDs).
ABSENT_USER_ID = "00000000-0000-4000-8000-000000000000"

_lock = threading.Lock()
_requests = 0
_by_status_class: dict[str, int] = {}
_server_errors: dict[str, dict] = {}


def _names_own_user(value) -> bool:
    return isinstance(value, str) and value == OWN_USER_ID


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() == "GET":
        return
    params = case.path_parameters or {}
    for name, value in params.items():
        if _names_own_user(value):
            params[name] = ABSENT_USER_ID
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("ids"), list):
        body["ids"] = [ABSENT_USER_ID if _names_own_user(v) else v for v in body["ids"]]


@schemathesis.hook
def after_call(context, case, response):
    global _requests
    label = f"{case.operation.method.upper()} {case.operation.path}"
    status = response.status_code
    with _lock:
        _requests += 1
        key = f"{status // 100}xx"
        _by_status_class[key] = _by_status_class.get(key, 0) + 1
        if status >= 500:
            sample = _server_errors.setdefault(label, {"count": 0, "status": status, "curl": case.as_curl_command()})
            sample["count"] += 1


@atexit.register
def _write_tally():
    with _lock:
        tally = {
            "requests": _requests,
            "by_status_class": _by_status_class,
            "server_errors": _server_errors,
        }
    with open(TALLY_FILE, "w", encoding="utf-8") as out:
        json.dump(tally, out, indent=2, sort_keys=True)
