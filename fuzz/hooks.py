"""Schemathesis hooks of the fuzz run (loaded by fuzz/run.sh through SCHEMATHESIS_HOOKS).

1. The fuzzer's own account stays usable. Every operation is fuzzed, but a write that names the
   fuzzer's own user (PUT /user/{id}, DELETE /users with its id) or its own API token (DELETE
   /tokens with its id) is pointed at an id that does not exist instead: otherwise one generated
   request could delete, demote or lock out the only admin, or revoke the token it calls with, and
   every later request would answer 401/403, testing nothing.
2. Valid data names records that exist and carries what a client would send (fuzz/valid_data.py:
   the records fuzz/seed.py made, real files, a signed license, the current password).
3. The positive-data check (valid data by the document must be accepted) is spared the rules that
   OpenAPI cannot state, and only those (`filter_failure`, SPARED): each with the reason no schema
   states it, recognised by the operation, the field and the problem the 400 names.
4. Every response is tallied into FUZZ_TALLY_FILE for the summary line: requests, responses per
   status class and, per operation, how many answered 5xx with one such request as curl.
"""

import atexit
import json
import os
import re
import threading
from typing import NamedTuple
from urllib.parse import urlsplit

import schemathesis
from valid_data import (
    CHECK_WRITES,
    SOURCE_TEST,
    SOURCE_UPDATE,
    TOOL_UPDATE,
    fits,
    follow_password_change,
    make_valid,
    settings_per_type,
)
from valid_data import label as _label

OWN_IDS = {os.environ["FUZZ_OWN_USER_ID"], os.environ["FUZZ_OWN_TOKEN_ID"]}
TALLY_FILE = os.environ["FUZZ_TALLY_FILE"]
# A well-formed id that no user or token has (ids are UUIDs).
ABSENT_ID = "00000000-0000-4000-8000-000000000000"
# The least PASSWORD_MIN_LENGTH can be set to (PASSWORD_LEAST_LENGTH), which the document states as minLength.
PASSWORD_LEAST_LENGTH = 8

_lock = threading.Lock()
_requests = 0
_by_status_class: dict[str, int] = {}
_server_errors: dict[str, dict] = {}


def _names_own(value) -> bool:
    return isinstance(value, str) and value in OWN_IDS


def _positive(case) -> bool:
    meta = getattr(case, "meta", None)
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.hook
def before_call(context, case, kwargs):
    if _positive(case):
        make_valid(case)
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
    # A ticket's key names a ticket of the tracker, outside Bulwark.
    r"|^names no ticket of this tracker$"
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


def _names_no_record_in_body(case, detail) -> bool:
    """A body (or query) value naming no record; a path naming none must answer 404, so it is not spared."""
    return bool(NAMES_NO_RECORD.search(str(detail.get("problem", "")))) and detail.get("field") not in set(
        case.path_parameters or {}
    )


class Spared(NamedTuple):
    """A refusal by a rule no schema can state: on these operations (all when empty), this field, this problem."""

    operations: tuple
    field: str
    problem: str

    def covers(self, label: str, detail: dict) -> bool:
        return (
            (not self.operations or label in self.operations)
            # DOTALL: a generated key (a field's name) or value in a problem may hold a line break.
            and re.fullmatch(self.field, str(detail.get("field", "")), re.DOTALL) is not None
            and re.search(self.problem, str(detail.get("problem", "")), re.DOTALL) is not None
        )


USER_PASSWORDS = ("POST /api/v1/user", "PUT /api/v1/user/{user_id}", "PUT /api/v1/auth/password")
PROJECT_WRITES = ("POST /api/v1/project", "PUT /api/v1/project/{project_code}")
GATE_LINKS = ("POST /api/v1/policy", "PUT /api/v1/policy/{id}", "POST /api/v1/quality-gate/link-layer")

SPARED = (
    # An address the outbound policy refuses, or a host name that does not resolve: the deployment's
    # OUTBOUND_ALLOW_CIDRS/OUTBOUND_DENY_CIDRS and DNS decide, not a schema (the fields' descriptions say so).
    Spared((), r".*", r"^cannot be reached \("),
    # A stored secret goes only to the scheme, host and port it was saved for: the stored record decides.
    Spared((), r".*", r"^must have the scheme, host and port the stored credentials were saved for "),
    # One property unique among an array's items: JSON Schema's uniqueItems compares whole items only.
    Spared(GATE_LINKS, r"quality_gates\[\d+\]\.quality_gate_id", r"^repeats a quality gate listed before$"),
    Spared(
        ("POST /api/v1/tracker", "PUT /api/v1/tracker/{id}"),
        r"projects\[\d+\]\.project_code",
        r"^repeats a project listed before$",
    ),
    Spared(PROJECT_WRITES, r"field_values\[\d+\]\.field_id", r'^custom field ".*" is given twice$'),
    Spared(CHECK_WRITES, r"grouped_checks\[\d+\]\.taginfo", r"^repeats the tag of element \d+$"),
    # Custom fields are records: a value fits the type of the stored field it names, and a field
    # stored as required must be given.
    Spared(PROJECT_WRITES, r"field_values\[\d+\]\.value", r'\(custom field ".*", type \w+\)$'),
    Spared(PROJECT_WRITES, r"field_values", r'^custom field ".*" \(id .*\) is required$'),
    # project_code (of the earlier interface) must be the project of the stored layer that layer_id names.
    Spared(("POST /api/v1/check",), r"project_code", r"^the layer belongs to project "),
    # A project's code in the body of its update (of the earlier interface) must be the code in the path.
    Spared(("PUT /api/v1/project/{project_code}",), r"code", r"^is immutable$"),
    # A comparison of two values, which JSON Schema cannot make: to_status_id differs from
    # from_status_id; a report's range does not start after it ends (to defaults to now).
    Spared(("POST /api/v1/issues/statuses/transition",), r"to_status_id", r"^must differ from from_status_id$"),
    Spared(("POST /api/v1/report",), r"filter\.from", r"^must not be after to \(default: now\)$"),
    Spared(("POST /api/v1/report",), r"filter\.to", r"^must not be before from$"),
    # The password policy beyond what the document states (not blank, at least PASSWORD_LEAST_LENGTH):
    # not easily guessed (zxcvbn's estimate), equal to its confirmation, and the caller's own password.
    Spared(USER_PASSWORDS, r"password", r": choose a longer phrase of unrelated words$"),
    Spared(USER_PASSWORDS, r"password_confirmation", r"^does not match password$"),
    Spared(("PUT /api/v1/auth/password",), r"current_password", r"^is not the current password$"),
    # A license is signed by the vendor's key for this installation: its form is stated, its signature
    # and contents are not a schema's to check.
    Spared(("PUT /api/v1/license",), r"license", r"^(?!not a license: )"),
    # Rules on what an update is merged with, the stored settings or record: directory and single
    # sign-on enabled only when complete, no start_tls with ldaps:// urls, an http:// issuer only with
    # allow_insecure_http; the admin role only in a group of no project_tags nor project_codes; a
    # tracker's credentials given again when its type changes, a decoration's token the first time;
    # a user who becomes a directory user loses the local password, and needs one to stop being one;
    # a source's or tool's access type and project codes, each kept from the stored access when left out.
    Spared(("PUT /api/v1/ldap/settings",), r".*", r"^is required to enable directory login$"),
    Spared(("PUT /api/v1/ldap/settings",), r"start_tls", r"^cannot be used with ldaps:// urls$"),
    Spared(("PUT /api/v1/sso/settings",), r".*", r"^is required to enable single sign-on$"),
    Spared(("PUT /api/v1/sso/settings",), r"issuer", r"^must be https:// unless allow_insecure_http is true$"),
    Spared(("PUT /api/v1/group/{id}",), r"roles", r"^the built-in admin role holds every permission on every project"),
    Spared(("PUT /api/v1/tracker/{id}",), r"credentials", r"^is required when type changes from "),
    Spared(("PUT /api/v1/source/{source_id}/decoration",), r"token", r"^is required the first time$"),
    # The single sign-on callback takes state and code unless the provider sent error: a rule between
    # query parameters, which no parameter's schema states (the operation's description does).
    Spared(("GET /api/v1/sso/callback",), r"state|code", r"^is required$"),
    Spared(
        ("PUT /api/v1/user/{user_id}",),
        r"password",
        r"^(must be absent for a directory user|is required when active_directory becomes false)$",
    ),
    Spared(("PUT /api/v1/user/{user_id}",), r"active_directory", r"^no directory login is configured "),
    Spared(
        ("PUT /api/v1/source/{source_id}", "PUT /api/v1/tool/{tool_id}"),
        r"project_codes",
        r'^must (list at least one project when access_type is "project"|be empty when access_type is "global")$',
    ),
)


def _password_above_floor(label: str, case, detail: dict) -> bool:
    """A password of the stated least length refused for PASSWORD_MIN_LENGTH, which a deployment may set higher."""
    body = case.body if isinstance(case.body, dict) else {}
    password = body.get("password")
    return (
        label in USER_PASSWORDS
        and detail.get("field") == "password"
        and re.fullmatch(r"must be at least \d+ characters", str(detail.get("problem", ""))) is not None
        and isinstance(password, str)
        and len(password) >= PASSWORD_LEAST_LENGTH
    )


# The settings of a source or tool are stated per type (SourceCreate's and ToolCreate's if/then name
# each type's schema). Where the body does not name the type, no schema can say which applies:
# a connection test's type is its path's type_id, and an update's is the stored record's unless the
# body names one (sources; a tool keeps its type). There, a refused setting is spared only when the
# settings do not fit what the document states of that type (the test) or of every type (a tool's
# update), and an update of a source only for a setting the stored ones decide.


def _settings_the_body_does_not_decide(label: str, case, detail: dict) -> bool:
    field = str(detail.get("field", ""))
    if label not in (SOURCE_TEST, SOURCE_UPDATE, TOOL_UPDATE) or field.split(".")[0] != "settings":
        return False
    body = case.body if isinstance(case.body, dict) else {}
    settings = body.get("settings")
    document = case.operation.schema.raw_schema
    if label == SOURCE_TEST:
        type_id = (case.path_parameters or {}).get("type_id")
        type_id = int(type_id) if isinstance(type_id, str) and type_id.isdigit() else type_id
        # Positive data names a type the document lists, so the chain has its schema.
        return not fits(document, settings_per_type(document, "SourceCreate", "source_type_id")[type_id], settings)
    if label == TOOL_UPDATE:
        per_type = settings_per_type(document, "ToolCreate", "type_id")
        return not all(fits(document, schema, settings) for schema in per_type.values())
    # Whether Login/Password is asked for, and with which login and password, the update and the
    # stored source decide together (a login or password left out keeps the stored one).
    return (
        "source_type_id" not in body
        or not isinstance(settings, dict)
        or field.removeprefix("settings.") not in settings
        or str(detail.get("problem", "")) == "is required with Login/Password"
    )


def _spared(case, response) -> bool:
    """Whether every problem of the 400 is a rule no schema can state: the refusal is then not the document's fault."""
    label = _label(case)
    details = _details(response)
    return bool(details) and all(
        _names_no_record_in_body(case, d)
        or RELATIVE_TO_NOW.search(str(d.get("problem", "")))
        or _password_above_floor(label, case, d)
        or _settings_the_body_does_not_decide(label, case, d)
        or any(rule.covers(label, d) for rule in SPARED)
        for d in details
    )


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
    # An id or code must name a record that exists (no schema can say which ones do), a time before or
    # after the time of the request (a schema's bounds are fixed, the time is not), and the rules of SPARED.
    if response.status_code == 400 and _spared(case, response):
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
    label = _label(case)
    status = response.status_code
    follow_password_change(case, response)
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

