"""The fuzz run's own calls to Bulwark's API (fuzz/seed.py before the run, fuzz/valid_data.py during it)."""

import datetime
import json
import urllib.request

# The form the API writes and takes for a time.
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def call(base: str, token: str, method: str, path: str, body=None, content_type: str = "application/json"):
    """The JSON answer of `method` `path` under /api/v1; a body given as bytes is sent as it is."""
    data = body if isinstance(body, bytes) else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}/api/v1{path}", data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", content_type)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def in_days(days: int) -> str:
    return (now() + datetime.timedelta(days=days)).strftime(TIME_FORMAT)
