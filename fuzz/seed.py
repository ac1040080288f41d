"""Makes the records a fuzz run's valid data refers to, through the API, and prints their ids as JSON.

An id, code or address that no schema can say exists (a project's code, a check, an issue, a tracker
URL the outbound policy lets through) is valid only when it names a record. fuzz/run.sh runs this
before the fuzzer, and fuzz/hooks.py puts these values into the generated valid requests, so that they
reach the operation's logic instead of its "not found".

    python fuzz/seed.py BASE_URL TOKEN JIRA_URL > seed.json

JIRA_URL is a Jira (fuzz/jira.ts starts the tests' contract server) with project SEC and issue type
Task, for the seeded tracker, whose account is FUZZ_JIRA_EMAIL and FUZZ_JIRA_TOKEN.
"""

import json
import os
import sys
import time

import api

base, token, jira = sys.argv[1], sys.argv[2], sys.argv[3]
CODE = "fuzz-seed"


def call(method: str, path: str, body=None):
    return api.call(base, token, method, path, body)


def sarif(results: int) -> bytes:
    """A small SARIF report of one tool, `results` findings on distinct lines."""
    return json.dumps(
        {
            "version": "2.1.0",
            "runs": [
                {
                    "tool": {"driver": {"name": "fuzz-seed", "rules": [{"id": "seed-rule"}]}},
                    "results": [
                        {
                            "ruleId": "seed-rule",
                            "level": "error",
                            "message": {"text": f"seeded finding {n}"},
                            "locations": [
                                {
                                    "physicalLocation": {
                                        "artifactLocation": {"uri": "app.py"},
                                        "region": {"startLine": n + 1},
                                    }
                                }
                            ],
                        }
                        for n in range(results)
                    ],
                }
            ],
        }
    ).encode()


call("POST", "/project", {"code": CODE, "name": "Fuzz seed", "description": "", "tags": []})
layer = call(
    "POST",
    "/layer",
    {"name": "code", "description": "", "project_code": CODE, "layer_type_id": 1, "is_template": False},
)
source = call(
    "POST",
    "/source",
    {
        "name": "fuzz seed repository",
        "description": "",
        "source_type_id": 1,
        "settings": {"url": f"{base}/fuzz-seed.git", "branch_name": "main", "auth_method": "Anonymous"},
    },
)
# A manual tool: its check takes uploads and runs no scanner.
tool = call("POST", "/tool", {"description": "fuzz seed", "type_id": 20, "settings": {}})
check = call(
    "POST",
    "/check",
    {
        "layer_id": layer["id"],
        "security_tool_id": tool["id"],
        "scan_source_id": source["id"],
        "source_auth": {"branch_name": "main"},
        "run_scan_task": {"type": "manual"},
    },
)
ISSUES = 20
REPORT = sarif(ISSUES)
result = call("POST", f"/check/{check['id']}/results", REPORT)["scan_result_id"]
deadline = time.monotonic() + 120
while True:
    issues = [i["id"] for i in call("GET", f"/issues?limit=100&filter[scan]={result}")["items"]]
    if len(issues) == ISSUES:
        break
    if time.monotonic() > deadline:
        sys.exit(f"seed: the seeded scan {result} was not ingested within 120 s")
    time.sleep(0.5)
# The last issue is accepted, so the acceptance's own operations have a record; the others stay open.
acceptance = call(
    "POST", "/risk-acceptance", {"issue_ids": [issues[-1]], "reason": "fuzz seed", "expires_at": api.in_days(30)}
)
tracker = call(
    "POST",
    "/tracker",
    {
        "name": "fuzz seed",
        "type": "jira",
        "url": jira,
        # The account fuzz/jira.ts's server takes (fuzz/run.sh gives both the same).
        "credentials": {"username": os.environ["FUZZ_JIRA_EMAIL"], "password": os.environ["FUZZ_JIRA_TOKEN"]},
        "projects": [{"project_code": CODE, "tracker_project": "SEC", "issue_type": "Task"}],
    },
)
# A ticket of that tracker, made from the second issue: a key that names a ticket.
ticket = call("POST", f"/issue/{issues[1]}/ticket", {"tracker_id": tracker["id"]})
call(
    "PUT",
    f"/source/{source['id']}/decoration",
    {"enabled": False, "platform": "github", "api_url": f"{base}/", "token": "fuzz-seed"},
)
role = call(
    "POST",
    "/role",
    {"role_code": "fuzz-seed", "role_name": "Fuzz seed", "roles": {"issues.issues": ["r"]}},
)

json.dump(
    {
        "base_url": base,
        "project_code": CODE,
        "layer_id": layer["id"],
        "source_id": source["id"],
        "tool_id": tool["id"],
        "tool_type_id": tool["type_id"],
        "check_id": check["id"],
        "result_id": result,
        "issue_ids": issues[:-1],
        "risk_acceptance_id": acceptance["id"],
        "tracker_id": tracker["id"],
        "tracker_url": jira,
        "ticket_key": ticket["key"],
        "role_code": role["role_code"],
        "report": REPORT.decode(),
    },
    sys.stdout,
)
