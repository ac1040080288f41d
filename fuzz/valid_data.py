"""Valid data that reaches an operation's logic: what fuzz/hooks.py makes of the requests generated as valid.

An id, code or address that no schema can say exists is valid only when it names a record, and some
bodies must be a real file, a signed license or the current password. fuzz/seed.py makes the records
before the run; `make_valid` puts them, and the rest a client would send, into a positive case.
"""

import datetime
import json
import os
import secrets

import jsonschema

import api

SOURCE_TEST = "POST /api/v1/sources-type/{type_id}/test"
SOURCE_UPDATE = "PUT /api/v1/source/{source_id}"
TOOL_UPDATE = "PUT /api/v1/tool/{tool_id}"
CHECK_WRITES = ("POST /api/v1/check", "PUT /api/v1/check/{check_id}")


def label(case) -> str:
    return f"{case.operation.method.upper()} {case.operation.path}"


# Small real files for the operations whose body must be one: no schema can state a file format
# (the document says which format each takes). The data is made here, not taken from a corpus.
KEV_CATALOG = {
    "catalogVersion": "2026.11.29",
    "vulnerabilities": [{"cveID": "CVE-2021-44228", "dateAdded": "2021-12-10", "dueDate": "2021-12-24"}],
}
EPSS_FILE = (
    b"#model_version:v2025.03.14,score_date:2026-11-28T00:00:00+0000\n"
    b"cve,epss,percentile\nCVE-2021-44228,0.97,0.99\n"
)
CYCLONEDX_SBOM = {
    "bomFormat": "CycloneDX",
    "specVersion": "1.5",
    "version": 1,
    "components": [{"type": "library", "name": "left-pad", "version": "1.3.0", "purl": "pkg:npm/left-pad@1.3.0"}],
}


SEED = json.load(open(os.environ["FUZZ_SEED_FILE"], encoding="utf-8"))
TOKEN = os.environ["FUZZ_TOKEN"]
LICENSE = open(os.environ["FUZZ_LICENSE_FILE"], encoding="utf-8").read().strip()
OWN_USER_ID = os.environ["FUZZ_OWN_USER_ID"]
# The admin's password as a valid password change leaves it (the fuzzer's token is the admin's).
_admin_password = os.environ["FUZZ_ADMIN_PASSWORD"]
PASSWORD_CHANGE = "PUT /api/v1/auth/password"


def _real_file(case):
    """(media type, body) of a real file for an operation that takes one, or None."""
    op = label(case)
    if op == "POST /api/v1/intel/import":
        feed = (case.query or {}).get("feed")
        return ("application/json", KEV_CATALOG) if feed == "kev" else ("application/octet-stream", EPSS_FILE)
    if op == "POST /api/v1/layer/{layer_id}/sbom":
        return "application/json", CYCLONEDX_SBOM
    if op == "POST /api/v1/check/{check_id}/results":
        return "application/json", json.loads(SEED["report"])
    return None


# Path parameters that name a seeded record, by name; an `id` by the path it is in.
SEEDED_PATH_VALUES = {
    name: SEED[name] for name in ("project_code", "layer_id", "source_id", "tool_id", "check_id", "result_id")
}
SEEDED_IDS = {
    "/api/v1/issue/{id}": SEED["issue_ids"][0],
    "/api/v1/tracker/{id}": SEED["tracker_id"],
    "/api/v1/risk-acceptance/{id}": SEED["risk_acceptance_id"],
}


def _project_code(value):
    """A project's code; "*" (every project, in a tracker's mapping) stays as it is."""
    # A report's filter names its projects as a list under this singular name.
    if isinstance(value, list):
        return [SEED["project_code"]] if value else value
    return value if value == "*" else SEED["project_code"]


# Body fields that name records, wherever they are in a body: what each becomes.
SEEDED_FIELDS = {
    "project_code": _project_code,
    "project_codes": lambda value: [SEED["project_code"]] if value else value,
    "layer_id": lambda _: SEED["layer_id"],
    "security_tool_id": lambda _: SEED["tool_id"],
    "scan_source_id": lambda _: SEED["source_id"],
    "issue_ids": lambda value: SEED["issue_ids"][: max(1, min(len(value), len(SEED["issue_ids"])))],
    "user_ids": lambda value: [OWN_USER_ID] if value else value,
}
# An address the operation stores and later calls: the seeded tracker's Jira; a platform's API
# address is only resolved when stored, and names this Bulwark, which the run lets it reach.
SEEDED_ADDRESSES = {
    "POST /api/v1/tracker": ("url", SEED["tracker_url"]),
    "PUT /api/v1/tracker/{id}": ("url", SEED["tracker_url"]),
    "PUT /api/v1/source/{source_id}/decoration": ("api_url", f"{SEED['base_url']}/"),
}


def _seed_fields(value):
    if isinstance(value, list):
        return [_seed_fields(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {k: SEEDED_FIELDS[k](v) if k in SEEDED_FIELDS else _seed_fields(v) for k, v in value.items()}


# A value of each custom field type (POST /field: text, datetime, uuid, url).
FIELD_VALUES = {
    "text": "fuzz",
    "datetime": "2026-01-01T00:00:00Z",
    "uuid": "00000000-0000-4000-8000-000000000001",
    "url": "https://example.com/",
}


def _field_values() -> list:
    """A value for every custom field defined now (the run's own requests define fields, required ones too)."""
    fields = api.call(SEED["base_url"], TOKEN, "GET", "/fields?limit=1000")["items"]
    return [{"field_id": f["id"], "value": FIELD_VALUES[f["type"]]} for f in fields]


def _access(body: dict):
    """project_codes as access_type wants them; the seeded sources and tools are global when the body names none."""
    if "project_codes" in body or body.get("access_type") == "project":
        body["project_codes"] = [SEED["project_code"]] if body.get("access_type") == "project" else []


def _range_until_now(filter_: dict):
    """A report's range as the time of the request allows it: ending by now, starting by its end."""
    times = {}
    for key in ("from", "to"):
        try:
            times[key] = datetime.datetime.fromisoformat(str(filter_.get(key)))
        except ValueError:
            pass
    to = times.get("to")
    # A time without a zone cannot be compared with one that has it; such a value is moved too.
    end = min(to, api.now()) if to is not None and to.tzinfo else api.now()
    if "to" in times:
        filter_["to"] = end.strftime(api.TIME_FORMAT)
    if "from" in times and (not times["from"].tzinfo or times["from"] > end):
        filter_["from"] = end.strftime(api.TIME_FORMAT)


def _real_values(case):
    """Valid data made to name what exists: seeded records in paths and bodies, a real license, the password."""
    op = label(case)
    # A deletion keeps its generated ids: the seeded records must outlive it.
    if case.method.upper() != "DELETE":
        params = case.path_parameters or {}
        for name in params:
            if name in SEEDED_PATH_VALUES:
                params[name] = SEEDED_PATH_VALUES[name]
            elif name == "id":
                path = case.operation.path
                for prefix, value in SEEDED_IDS.items():
                    if path == prefix or path.startswith(prefix + "/"):
                        params[name] = value
        if isinstance(case.body, (dict, list)):
            case.body = _seed_fields(case.body)
    if op == "POST /api/v1/mcp":
        # A JSON-RPC request as an MCP client sends it, with the Accept the transport requires (a
        # header OpenAPI does not let a document declare).
        case.body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        case.headers = {**(case.headers or {}), "Accept": "application/json, text/event-stream"}
        return
    query = case.query if isinstance(case.query, dict) else {}
    if op == "POST /api/v1/check/{check_id}/results":
        # The real report given as the body is SARIF, which the upload detects.
        query.pop("format", None)
    if op == "GET /api/v1/scan-results/stats/compare":
        query.update({name: SEED["result_id"] for name in ("first", "second") if name in query})
    if op == "GET /api/v1/sso/callback" and "error" not in query and not ("state" in query and "code" in query):
        # state and code come together from the provider, or error alone: a provider's refusal.
        query["error"] = "access_denied"
    body = case.body if isinstance(case.body, dict) else None
    if body is None:
        return
    if op in SEEDED_ADDRESSES and SEEDED_ADDRESSES[op][0] in body:
        field, address = SEEDED_ADDRESSES[op]
        body[field] = address
    if op in ("POST /api/v1/issue/{id}/ticket", "PUT /api/v1/issue/{id}/ticket") and "tracker_id" in body:
        body["tracker_id"] = SEED["tracker_id"]
        if "key" in body:
            body["key"] = SEED["ticket_key"]
    if op == "POST /api/v1/risk-acceptance":
        body["expires_at"] = api.in_days(30)
        body.pop("approver_id", None)
    if op == "PUT /api/v1/issues/assignee":
        body["ids"] = SEED["issue_ids"][:1]
        if isinstance(body.get("assignee"), dict):
            body["assignee"] = {"type": "user", "id": OWN_USER_ID}
    if op == "POST /api/v1/group" and isinstance(body.get("roles"), list):
        body["roles"] = [SEED["role_code"]] if body["roles"] else []
    if op in ("POST /api/v1/project", "PUT /api/v1/project/{project_code}") and "field_values" in body:
        body["field_values"] = _field_values()
    if op == "PUT /api/v1/project/{project_code}" and "code" in body:
        body["code"] = SEED["project_code"]
    if op in CHECK_WRITES and isinstance(body.get("grouped_checks"), list):
        # An item names the check being updated (once), or no check: a new check of the group.
        named = False
        for item in body["grouped_checks"]:
            if isinstance(item, dict) and "check_id" in item:
                if op == "PUT /api/v1/check/{check_id}" and not named:
                    item["check_id"], named = SEED["check_id"], True
                else:
                    item.pop("check_id")
    if op in (SOURCE_UPDATE, TOOL_UPDATE):
        _access(body)
    if op == SOURCE_UPDATE and body.get("source_type_id", 1) != 1:
        # The seeded source is a Git (HTTP) one: another type would need that type's whole settings.
        body.pop("source_type_id")
        body.pop("settings", None)
    if op == TOOL_UPDATE and "settings" in body:
        # A tool keeps its type (the seeded one is manual): settings of another type are not valid for it.
        document = case.operation.schema.raw_schema
        manual = settings_per_type(document, "ToolCreate", "type_id")[SEED["tool_type_id"]]
        if not fits(document, manual, body["settings"]):
            body["settings"] = {}
    if op == "POST /api/v1/report" and isinstance(body.get("filter"), dict):
        _range_until_now(body["filter"])
    if op == "PUT /api/v1/license":
        body["license"] = LICENSE
    if op == PASSWORD_CHANGE:
        body["current_password"] = _admin_password
        body["password"] = body["password_confirmation"] = f"fuzz-{secrets.token_urlsafe(18)}"
    if op == SOURCE_TEST:
        # Stored credentials go only to the address they were saved for: test the settings as given.
        body.pop("source_id", None)
        # The type is the path's, which no body schema sees: test the settings as the type they fit.
        document = case.operation.schema.raw_schema
        fitting = [
            type_id
            for type_id, schema in settings_per_type(document, "SourceCreate", "source_type_id").items()
            if fits(document, schema, body.get("settings"))
        ]
        if fitting:
            case.path_parameters["type_id"] = fitting[0]


def settings_per_type(document: dict, body: str, key: str) -> dict:
    """{type id: the schema of its settings} from the if/then/else chain of a create body's schema."""
    schema = document["components"]["schemas"][body]
    # The chain is the body's schema itself or one of its allOf members; none is the document changed
    # under this hook, which must then fail rather than spare nothing.
    branch = next(s for s in [schema, *schema.get("allOf", [])] if key in s.get("if", {}).get("properties", {}))
    per_type = {}
    while branch:
        condition = branch["if"]["properties"][key]
        for type_id in condition.get("enum", [condition.get("const")]):
            per_type[type_id] = branch["then"]["properties"]["settings"]
        branch = branch.get("else")
    return per_type


def fits(document: dict, schema: dict, value) -> bool:
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]}).is_valid(value)


def make_valid(case):
    """A positive case made to name what exists and to carry what a client would send."""
    _real_values(case)
    real = _real_file(case)
    if real is not None:
        case.media_type, case.body = real


def follow_password_change(case, response):
    """The admin's password after a change that was accepted, as it was sent."""
    global _admin_password
    # A case may also go out with another method (OPTIONS answers 200 and changes nothing).
    if label(case) == PASSWORD_CHANGE and response.status_code == 200 and response.request.method == "PUT":
        _admin_password = json.loads(response.request.body)["password"]
