"""Schemathesis hooks of the fuzz run (loaded by fuzz/run.sh through SCHEMATHESIS_HOOKS).

1. The fuzzer's own account stays usable. Every operation is fuzzed, but a write that names the
   fuzzer's own user (PUT /user/{id}, DELETE /users with its id) or its own API token (DELETE
   /tokens with its id) is pointed at an id that does not exist instead: otherwise one generated
   request could delete, demote or lock out the only admin, or revoke the token it calls with, and
   every later request would answer 401/403, testing nothing.
2. The positive-data check (valid data by the document must be accepted) is spared the rules that
   OpenAPI cannot state, and only those (`filter_failure`): each is said in the document's words.
3. Every response is tallied into FUZZ_TALLY_FILE for the summary line: requests, responses per
   status class and, per operation, how many answered 5xx with one such request as curl.
"""

import atexit
import json
import os
import re
import threading
from urllib.parse import urlsplit

import schemathesis

OWN_IDS = {os.environ["FUZZ_OWN_USER_ID"], os.environ["FUZZ_OWN_TOKEN_ID"]}
TALLY_FILE = os.environ["FUZZ_TALLY_FILE"]
# A well-formed id that no user or token has (ids are UUIDs).
ABSENT_ID = "00000000-0000-4000-8000-000000000000"

_lock = threading.Lock()
_requests = 0
_by_status_class: dict[str, int] = {}
_server_errors: dict[str, dict] = {}


def _names_own(value) -> bool:
    return isinstance(value, str) and value in OWN_IDS


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() == "GET":
        return
    params = case.path_parameters or {}
    for name, value in params.items():
        if _names_own(value):
            params[name] = ABSENT_ID
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("ids"), list):
        body["ids"] = [ABSENT_ID if _names_own(v) else v for v in body["ids"]]


# The gateway's limit on the request line and headers (Node's default; README "API conventions").
HEAD_LIMIT_BYTES = 16 * 1024


def _head_bytes(request) -> int:
    """The bytes Node counts against its limit: the request target, every header name and value."""
    headers = dict(request.headers)
    headers.setdefault("Host", urlsplit(request.url).netloc)
    return len(request.path_url.encode()) + sum(
        len(str(name).encode("latin-1")) + len(value if isinstance(value, bytes) else str(value).encode("latin-1"))
        for name, value in headers.items()
    )


# How a 400 names a value that is well formed but names no record the caller can see (README
# "Authorization model": a body naming one answers 400 naming the field).
NAMES_NO_RECORD = re.compile(
    r"is not a known |^unknown (?!(field|parameter)$)|does not exist|that you can see"
    r"|^is not a scan result of this check$|^is not the id of a user: "
)


# How a 400 refuses a cursor the server did not issue for this list and order.
NOT_AN_ISSUED_CURSOR = re.compile(r"^is not a cursor of this list in the order ")


# How a 400 says that a time is on the wrong side of the time of the request.
RELATIVE_TO_NOW = re.compile(r"must be in the future|must not be after now")


def _details(response) -> list:
    try:
        details = response.json().get("error", {}).get("details") or []
    except ValueError:
        return []
    return [d for d in details if isinstance(d, dict)]


def _every_problem(response, rule) -> bool:
    details = _details(response)
    return bool(details) and all(rule.search(str(d.get("problem", ""))) for d in details)


def _names_no_record_in_body(case, response) -> bool:
    """A body (or query) value naming no record; a path naming none must answer 404, so it is not spared."""
    path_names = set(case.path_parameters or {})
    return _every_problem(response, NAMES_NO_RECORD) and not any(d.get("field") in path_names for d in _details(response))


def _problem_fields(response) -> set:
    return {d.get("field") for d in _details(response)}


def _pull_request_without_number(case) -> bool:
    query = case.query or {}
    return "pull_request[number]" not in query and (
        "pull_request[head_sha]" in query or "pull_request[base_branch]" in query
    )


def _groups_week_with_others(case) -> bool:
    groups = (case.query or {}).get("group_by")
    return isinstance(groups, list) and "week" in groups and len(set(groups)) > 1


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if getattr(failure, "code", None) != "ST202":
        return True
    # A limit on all parameters together: OpenAPI bounds each parameter alone (maxItems, maxLength),
    # so a request of many parameters each within bounds can still be above the documented 16 KiB.
    if response.status_code == 431 and _head_bytes(response.request) > HEAD_LIMIT_BYTES:
        return False
    # group_by=week only alone: a rule between the values of one repeated parameter and the others,
    # which no schema of a query parameter states (the operation's description does).
    if response.status_code == 400 and _groups_week_with_others(case) and _problem_fields(response) == {"group_by"}:
        return False
    # pull_request[head_sha] and [base_branch] only with pull_request[number]: a rule between query
    # parameters, which no parameter's schema states (their descriptions do).
    if (
        response.status_code == 400
        and _pull_request_without_number(case)
        and _problem_fields(response) == {"pull_request[number]"}
    ):
        return False
    # An id or code must name a record that exists: no schema can say which ones do.
    if response.status_code == 400 and _names_no_record_in_body(case, response):
        return False
    # A time before or after the time of the request: a schema's bounds are fixed, the time is not.
    if response.status_code == 400 and _every_problem(response, RELATIVE_TO_NOW):
        return False
    # A cursor is valid only as the server issued it (next_cursor, for the same sort): which strings
    # those are is the server's to say, not a schema's; the document states its alphabet and says so.
    # Only that refusal: a cursor refused for its length or type is the document and server disagreeing.
    if (
        response.status_code == 400
        and "cursor" in (case.query or {})
        and _problem_fields(response) == {"cursor"}
        and _every_problem(response, NOT_AN_ISSUED_CURSOR)
    ):
        return False
    return True


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
