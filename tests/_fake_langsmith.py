"""A local stand-in for the LangSmith API that records what the SDK sends (loopback only)."""

from __future__ import annotations

import gzip
import json
import re
import threading
import uuid
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse


class Recorder:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, object]] = []
        self.datasets: dict[str, dict] = {}
        self.examples: dict[str, list[dict]] = {}
        self.sessions: dict[str, dict] = {}
        self.runs: dict[str, dict] = {}
        self.feedback: list[dict] = []
        self.received_bytes = 0
        self.seen = 0  # connections' requests read, answered or not
        self.lock = threading.Lock()


def _now() -> str:
    return datetime.now(UTC).isoformat()


_RUN_FIELDS = (
    "id",
    "name",
    "run_type",
    "start_time",
    "end_time",
    "inputs",
    "outputs",
    "extra",
    "error",
    "tags",
    "parent_run_id",
    "trace_id",
    "dotted_order",
)


def _traced_session(name: str) -> dict:
    """The project a traced run names (``session_name``), as the server makes it on the run's arrival."""
    return {
        "id": str(uuid.uuid5(uuid.NAMESPACE_URL, name)),
        "name": name,
        "start_time": _now(),
        "tenant_id": str(uuid.UUID(int=1)),
        "reference_dataset_id": None,
    }


def _session_id(rec: Recorder, run: dict) -> str | None:
    if run.get("session_id"):
        return str(run["session_id"])
    name = run.get("session_name")
    known = next((s["id"] for s in rec.sessions.values() if s.get("name") == name), None)
    return known or (_traced_session(name)["id"] if name else None)


def _stored_run(rec: Recorder, run: dict) -> dict:
    """A received run as the read endpoints return it: its fields and its project's id."""
    out = {k: run.get(k) for k in _RUN_FIELDS}
    out["session_id"] = _session_id(rec, run)
    out["trace_id"] = out["trace_id"] or out["id"]
    return out


_FILTER = re.compile(r'^(eq|has)\((name|run_type|status|tags), "([^"]*)"\)$')


def _query_runs(rec: Recorder, body: dict) -> list[dict] | str:
    """``POST /runs/query`` over the received runs: by project, trace, run type, root, ids, and a filter of the forms
    ``eq(name|run_type|status, "v")`` or ``has(tags, "v")`` (any other filter is refused, as the server refuses one it
    cannot parse). A string: why the query is refused."""
    runs = [_stored_run(rec, r) for r in rec.runs.values() if r.get("run_type")]
    if body.get("filter"):
        match = _FILTER.match(body["filter"])
        if match is None:
            return f"unsupported filter {body['filter']!r}"
        op, key, value = match.groups()
        runs = [r for r in runs if (value in (r.get(key) or []) if op == "has" else r.get(key) == value)]
    if body.get("session"):
        runs = [r for r in runs if r["session_id"] in {str(s) for s in body["session"]}]
    if body.get("trace"):
        runs = [r for r in runs if str(r["trace_id"]) == str(body["trace"])]
    if body.get("run_type"):
        runs = [r for r in runs if r["run_type"] == body["run_type"]]
    if body.get("is_root") is not None:
        runs = [r for r in runs if (r["parent_run_id"] is None) == bool(body["is_root"])]
    if body.get("id"):
        runs = [r for r in runs if r["id"] in {str(i) for i in body["id"]}]
    runs.sort(key=lambda r: str(r.get("start_time") or ""), reverse=True)
    return runs[: body["limit"]] if body.get("limit") else runs


def make_handler(rec: Recorder, hang: threading.Event | None = None, fail_after: int | None = None):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def handle_one_request(self):
            if hang is not None:  # an endpoint that accepts connections and never answers (until shutdown)
                hang.wait(600)
                return
            with rec.lock:
                rec.seen += 1
                down = fail_after is not None and rec.seen > fail_after
            if down:  # LangSmith went down midway: the connection closes without an answer
                self.close_connection = True
                return
            super().handle_one_request()

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            with rec.lock:
                rec.received_bytes += len(raw)
            if self.headers.get("Content-Encoding") == "gzip":
                raw = gzip.decompress(raw)
            try:
                return json.loads(raw) if raw else None
            except (json.JSONDecodeError, UnicodeDecodeError):
                return {"_raw_bytes": len(raw), "_type": self.headers.get("Content-Type")}

        def _send(self, payload, status=200):
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):  # noqa: N802
            url = urlparse(self.path)
            query = parse_qs(url.query)
            with rec.lock:
                rec.requests.append(("GET", url.path, query))
            path = url.path.rstrip("/")
            if path.endswith("/info"):
                return self._send(
                    {
                        "version": "0.11.0",
                        "instance_flags": {},
                        "batch_ingest_config": {
                            "use_multipart_endpoint": False,
                            "size_limit": 100,
                            "size_limit_bytes": 20_971_520,
                            "scale_up_nthreads_limit": 16,
                            "scale_up_qsize_trigger": 1000,
                            "scale_down_nempty_trigger": 4,
                        },
                    }
                )
            if path.endswith("/datasets"):
                names = query.get("name", [])
                found = [d for d in rec.datasets.values() if not names or d["name"] in names]
                return self._send(found)
            if "/datasets/" in path:
                ds_id = path.split("/datasets/")[1].split("/")[0]
                return self._send(rec.datasets.get(ds_id, {}), 200 if ds_id in rec.datasets else 404)
            if path.endswith("/examples"):
                ds = (query.get("dataset") or [None])[0]
                found = [e for e in rec.examples.get(ds, []) if not query.get("id") or e["id"] in query["id"]]
                offset, limit = int((query.get("offset") or [0])[0]), int((query.get("limit") or [100])[0])
                return self._send(found[offset : offset + limit])
            if path.endswith("/sessions"):
                names = query.get("name", [])
                found = [s for s in rec.sessions.values() if not names or s["name"] in names]
                with rec.lock:  # a project the tracer named in its runs exists, as on the server
                    traced = [n for n in names if not found and any(r.get("session_name") == n for r in rec.runs.values())]
                return self._send(found or [_traced_session(n) for n in traced])
            if "/sessions/" in path:
                sid = path.split("/sessions/")[1].split("/")[0]
                return self._send(rec.sessions.get(sid, {}), 200 if sid in rec.sessions else 404)
            if "/runs/" in path:  # read_run
                with rec.lock:
                    run = rec.runs.get(path.rsplit("/", 1)[1])
                    stored = _stored_run(rec, run) if run else None
                return self._send(stored, 200) if stored else self._send({"detail": "Run not found"}, 404)
            return self._send([])

        def do_POST(self):  # noqa: N802
            url = urlparse(self.path)
            body = self._body()
            with rec.lock:
                rec.requests.append(("POST", url.path, body))
                path = url.path.rstrip("/")
                if path.endswith("/datasets"):
                    ds = {
                        "id": str(uuid.uuid4()),
                        "created_at": _now(),
                        "modified_at": _now(),
                        "example_count": 0,
                        "session_count": 0,
                        "data_type": "kv",
                        "tenant_id": str(uuid.UUID(int=1)),
                        **(body or {}),
                    }
                    rec.datasets[ds["id"]] = ds
                    return self._send(ds)
                if path.endswith("/examples/bulk"):
                    out = []
                    for ex in body or []:
                        ex = {"id": ex.get("id") or str(uuid.uuid4()), "created_at": _now(), "modified_at": _now(), **ex}
                        rec.examples.setdefault(ex["dataset_id"], []).append(ex)
                        out.append(ex)
                    return self._send(out)
                if path.endswith("/sessions"):
                    sess = {
                        "id": (body or {}).get("id") or str(uuid.uuid4()),
                        "start_time": _now(),
                        "tenant_id": str(uuid.UUID(int=1)),
                        "reference_dataset_id": None,
                        **(body or {}),
                    }
                    rec.sessions[sess["id"]] = sess
                    return self._send(sess)
                if path.endswith("/runs/query"):  # list_runs: one page, newest first
                    found = _query_runs(rec, body or {})
                    if isinstance(found, str):
                        return self._send({"detail": found}, 400)
                    return self._send({"runs": found, "cursors": {"next": None}})
                if path.endswith("/runs"):
                    rec.runs[body["id"]] = body
                    return self._send({})
                if path.endswith("/runs/batch"):
                    for run in (body or {}).get("post", []):
                        rec.runs[run["id"]] = run
                    for run in (body or {}).get("patch", []):
                        rec.runs.setdefault(run["id"], {}).update(run)
                    return self._send({})
                if path.endswith("/feedback"):
                    rec.feedback.append(body)
                    return self._send({"id": (body or {}).get("id") or str(uuid.uuid4()), **(body or {})})
            return self._send({})

        def do_PATCH(self):  # noqa: N802
            url = urlparse(self.path)
            body = self._body()
            with rec.lock:
                rec.requests.append(("PATCH", url.path, body))
                if "/runs/" in url.path:
                    rec.runs.setdefault(url.path.rsplit("/", 1)[1], {}).update(body or {})
                if "/sessions/" in url.path:  # like the server: null fields do not erase stored ones
                    rec.sessions.setdefault(url.path.rsplit("/", 1)[1], {}).update(
                        {k: v for k, v in (body or {}).items() if v is not None}
                    )
            return self._send({})

    return Handler


class FakeLangSmith:
    """``hang=True``: an endpoint that accepts connections and never answers. ``fail_after=N``: answers N requests,
    then closes every connection without an answer (LangSmith going down midway)."""

    def __init__(self, hang: bool = False, fail_after: int | None = None) -> None:
        self.recorder = Recorder()
        self._hang = threading.Event() if hang else None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.recorder, self._hang, fail_after))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeLangSmith:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._hang is not None:
            self._hang.set()
        self.server.shutdown()
        self.server.server_close()
