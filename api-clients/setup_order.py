"""The API guide's set-up order through the Python client generated from the served document.

    python setup_order.py BASE_URL ADMIN_PASSWORD EXCHANGES_FILE REPORT_FILE   (the client on PYTHONPATH)

Login, a source, a tool, a project, a layer and a check; a report uploaded and its scan result
(REPORT_FILE, a Semgrep JSON report) polled; the issues listed; a report created, polled and downloaded as JSON and PDF. Every response
is appended to EXCHANGES_FILE (JSON lines), which run.ts validates against the document.
"""

import base64
import json
import sys
import time
import uuid

import httpx

from bulwark_api_client import AuthenticatedClient, Client
from bulwark_api_client.api.authentication import login
from bulwark_api_client.api.checks import create_check
from bulwark_api_client.api.issues import list_issues
from bulwark_api_client.api.layers import create_layer
from bulwark_api_client.api.projects import create_project
from bulwark_api_client.api.reports import create_report, download_report, get_report
from bulwark_api_client.api.scan_results import get_scan_result, upload_check_results
from bulwark_api_client.api.sources import create_source
from bulwark_api_client.api.tools import create_tool
from bulwark_api_client.models import (
    CheckCreate,
    CreateReportInput,
    LayerCreate,
    LoginRequest,
    ProjectCreate,
    ReportDocument,
    SourceCreate,
    ToolCreate,
    UploadedJson,
)
from bulwark_api_client.models.download_report_format import DownloadReportFormat

base_url, password, exchanges_file = sys.argv[1:4]
exchanges = open(exchanges_file, "a", encoding="utf-8")


def record(response: httpx.Response) -> None:
    response.read()
    content_type = response.headers.get("content-type", "")
    text = content_type.startswith(("application/json", "text/")) or "+json" in content_type
    exchanges.write(json.dumps({
        "client": "python",
        "method": response.request.method,
        "path": response.request.url.path,
        "status": response.status_code,
        "content_type": content_type,
        "body": response.text if text else base64.b64encode(response.content).decode(),
    }) + "\n")


hooks = {"event_hooks": {"response": [record]}}


def ok(response, status=200):
    if response.status_code != status or response.parsed is None:
        raise SystemExit(f"{response.status_code} {response.content[:500]!r}")
    return response.parsed


def until(what, read, done, seconds=120):
    deadline = time.monotonic() + seconds
    while True:
        value = read()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"{what} did not happen within {seconds} s: {value}")
        time.sleep(0.5)


anonymous = Client(base_url=base_url, httpx_args=hooks)
token = ok(login.sync_detailed(client=anonymous, body=LoginRequest(username="admin", password=password))).access_token
client = AuthenticatedClient(base_url=base_url, token=token, httpx_args=hooks)

code = f"py{uuid.uuid4().hex[:6]}"
source = ok(create_source.sync_detailed(client=client, body=SourceCreate.from_dict({
    "name": f"repository {code}", "description": "python client", "source_type_id": 1,
    "settings": {"url": "https://git.example.com/app.git", "branch_name": "main", "auth_method": "Anonymous"},
})))
tool = ok(create_tool.sync_detailed(client=client, body=ToolCreate.from_dict({
    "description": f"uploads {code}", "type_id": 20, "settings": {"scan_result_lang": "EN"},
})))
ok(create_project.sync_detailed(client=client, body=ProjectCreate.from_dict({
    "code": code, "name": f"Project {code}", "description": "python client", "tags": ["clients"],
})))
layer = ok(create_layer.sync_detailed(client=client, body=LayerCreate.from_dict({
    "name": "code", "description": "code", "project_code": code, "layer_type_id": 1, "is_template": False,
})))
check = ok(create_check.sync_detailed(client=client, body=CheckCreate.from_dict({
    "layer_id": layer.id, "security_tool_id": tool.id, "scan_source_id": source.id,
    "source_auth": {"branch_name": "main"}, "run_scan_task": {"type": "manual"},
})))

report = json.load(open(sys.argv[4], encoding="utf-8"))
run = ok(upload_check_results.sync_detailed(check_id=uuid.UUID(check.id), client=client, body=UploadedJson.from_dict(report)))
scan = until("the scan's completion", lambda: ok(get_scan_result.sync_detailed(result_id=uuid.UUID(run.scan_result_id), client=client)),
             lambda s: s.state in ("completed", "failed"))
if scan.state != "completed":
    raise SystemExit(f"the scan ended {scan.state}: {scan.error}")
issues = until("the issues of the scan", lambda: ok(list_issues.sync_detailed(client=client, filterscan=run.scan_result_id)),
               lambda page: page.total >= 1)

created = ok(create_report.sync_detailed(client=client, body=CreateReportInput.from_dict({
    "name": f"Report {code}", "type": "summary", "filter": {"project_code": [code]},
})))
until("the report", lambda: ok(get_report.sync_detailed(id=uuid.UUID(created.id), client=client)), lambda r: r.state == "ready")
document = ok(download_report.sync_detailed(id=uuid.UUID(created.id), client=client, format_=DownloadReportFormat.JSON))
if not isinstance(document, ReportDocument) or document.totals.issues < 1:
    raise SystemExit(f"the JSON report reads {document}")
# The generated function parses the first media type it knows (JSON); a binary format is read through
# the client's own httpx client, with the same address and token.
pdf = client.get_httpx_client().get(f"/api/v1/report/{created.id}/download", params={"format": "pdf"})
if pdf.status_code != 200 or not pdf.content.startswith(b"%PDF"):
    raise SystemExit(f"the PDF download answered {pdf.status_code}")
print(f"python client: {issues.total} issues, report {created.id} downloaded as JSON and PDF")
