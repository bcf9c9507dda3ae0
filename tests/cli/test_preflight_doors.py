"""Every door makes the same early checks (`harness.runs.early`) before it imports the agent stack or builds a model:
`harness run`, `harness experiment run`, `harness.evaluate` and the pytest plugin on both fronts say a live model's
stopped server first (exit 4; `evaluate` raises), ask a live server once, and ask LangSmith once when the plan talks
to it; when LangSmith does not answer the plan still runs and writes its results locally."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.errors import EXIT_BAD_INPUT, EXIT_ERROR, EXIT_OK
from tests._fake_langsmith import FakeLangSmith
from tests.cli.test_startup import HEAVY, ROOT, closed_port, run_and_list_imports

pytestmark = pytest.mark.slow  # starts interpreters and servers (tests/README.md)

FAKE_KEY = "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789"
CASE = "needle-h24k-d000"
LIVE = ["--model", "openai:reference-agent", "--summary-model", "openai:reference-summarizer"]
AGENT_STACK = HEAVY
"""What the pytest path must not have imported when it stops at its early checks: the HEAVY packages, as at every
other door (the evals' conftest finds deepagents without importing it; a user's `--compaction-strategy` is imported
without the harness importing langchain for it: `harness.user_code`)."""


def _spec(tmp_path: Path, url: str | None = None) -> Path:
    spec = tmp_path / "spec.yaml"
    live = f"model: openai:reference-agent\nsummary_model: openai:reference-summarizer\nbase_url: {url}\n" if url else ""
    spec.write_text(f"name: early\n{live}variants: [forced-20]\nthresholds: [20%]\nscenarios: {{cases: [{CASE}]}}\n")
    return spec


class CountingServer:
    """A loopback server that answers 404 to everything (so a live case ends in ERROR at its first request) and
    counts the early checks' ``GET /v1/models``."""

    def __init__(self) -> None:
        self.models = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                if self.command == "GET" and self.path.rstrip("/").endswith("/models"):
                    server.models += 1
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                body = b'{"error": {"message": "not found", "type": "invalid_request_error"}}'
                self.send_response(404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer  # noqa: N815

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> CountingServer:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LANGSMITH_", "LANGCHAIN_"))}
    return {**{k: v for k, v in base.items() if not k.endswith("_API_KEY")}, **extra}


# -- a stopped server: said before the agent stack is imported, at every door ---------------------------------------


def test_experiment_run_says_a_stopped_server_before_the_agent_stack_is_imported(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "exp"
    rc, err, heavy = run_and_list_imports(["experiment", "run", str(_spec(tmp_path, url)), "--out", str(out)])
    assert rc == EXIT_ERROR and f"nothing answers at {url}" in err and "No case was run" in err, err[-2000:]
    assert heavy == [], f"imported before the early checks said so: {heavy}"
    assert not out.exists()


def test_harness_evaluate_says_a_stopped_server_before_the_agent_stack_is_imported(tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    code = (
        "import json, sys\nimport harness\n"
        f"try:\n    harness.evaluate('needle', model='openai:gpt-x', base_url={url!r}, runs_dir={str(tmp_path)!r})\n"
        "except Exception as exc:\n    raised = [type(exc).__name__, str(exc)]\n"
        f"print(json.dumps([raised, sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    (kind, message), heavy = json.loads(done.stdout.strip().splitlines()[-1])
    assert kind == "EndpointUnreachable" and f"nothing answers at {url}" in message
    assert heavy == [], f"imported before the early checks said so: {heavy}"
    assert list(tmp_path.iterdir()) == []


PROBE = """
import json, sys

def pytest_unconfigure(config):
    heavy = sorted({m.split(".")[0] for m in sys.modules} & set(%r))
    sys.stderr.write("AGENT-STACK " + json.dumps(heavy) + "\\n")
"""

USER_STRATEGY = '''
def make(config, model, *, backend, summarizer=None):
    """A user's middleware factory (never built here: the session stops at its early checks)."""
    raise AssertionError("built")
'''


def _pytest(args: list[str], cwd: Path, probe_dir: Path, **env: str) -> subprocess.CompletedProcess:
    (probe_dir / "agent_stack_probe.py").write_text(PROBE % (AGENT_STACK,))
    path = os.pathsep.join([str(probe_dir), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "agent_stack_probe", *args],
        cwd=cwd,
        env=_env(PYTHONPATH=path, **env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _imported(done: subprocess.CompletedProcess) -> list[str]:
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("AGENT-STACK ")]
    return json.loads(line.removeprefix("AGENT-STACK "))


@pytest.mark.parametrize("front", ["evals/", "--compaction-strategy"])
def test_the_pytest_fronts_say_a_stopped_server_before_anything_is_built(front, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    runs = tmp_path / "runs"
    if front == "evals/":
        args, cwd = ["evals/", "-m", "needle", *LIVE, "--base-url", url, "--runs-dir", str(runs)], ROOT
    else:
        project = tmp_path / "project"
        (project / "tests").mkdir(parents=True)
        (project / "tests" / "test_own.py").write_text("def test_their_own():\n    assert True\n")
        (tmp_path / "user_strategy.py").write_text(USER_STRATEGY)
        user = ["--compaction-strategy", "user_strategy:make", "--compaction-evals", "needle"]
        live = ["--compaction-model", "openai:reference-agent", "--compaction-summary-model", "openai:reference-summarizer"]
        args, cwd = [*user, *live, "--compaction-base-url", url, "--compaction-runs-dir", str(runs)], project
    done = _pytest(args, cwd, tmp_path)
    printed = done.stdout + done.stderr
    assert done.returncode == EXIT_ERROR, printed[-3000:]
    assert f"nothing answers at {url}" in printed and "No case was run" in printed
    assert "passed" not in done.stdout and "failed" not in done.stdout and not runs.exists()
    assert _imported(done) == [], f"imported before the early checks said so: {_imported(done)}"


# -- a live server is asked once, whichever door ---------------------------------------------------------------------


def test_every_door_asks_a_live_server_once(tmp_path, capsys):
    import harness

    asked: dict[str, int] = {}
    with CountingServer() as server:

        def count(door: str) -> None:
            asked[door] = server.models - sum(asked.values())

        assert main(["run", *LIVE, "--base-url", server.url, "--cases", CASE, "--out", str(tmp_path / "run")]) == EXIT_ERROR
        count("harness run")
        spec = _spec(tmp_path, server.url)
        assert main(["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith"]) == EXIT_ERROR
        count("harness experiment run")
        run = harness.evaluate(
            "needle",
            cases=[CASE],
            model="openai:reference-agent",
            summary_model="openai:reference-summarizer",
            base_url=server.url,
            runs_dir=tmp_path / "evaluate",
            workers=0,
        )
        assert len(run.errors) == 1
        count("harness.evaluate")
        # pytest under xdist: the controller asks before it starts its worker, which does not ask again
        done = _pytest(
            ["evals/test_evals.py", "-m", "needle", "-k", CASE, "-n", "1", *LIVE, "--base-url", server.url]
            + ["--runs-dir", str(tmp_path / "pytest")],
            ROOT,
            tmp_path,
        )
        assert "1 error" in done.stdout, (done.stdout + done.stderr)[-3000:]
        count("pytest evals/ -n 1")
    capsys.readouterr()
    assert asked == {door: 1 for door in asked} and len(asked) == 4, asked


# -- LangSmith: asked once, after the models, and a LangSmith that does not answer keeps the results local -----------


def _preflights(fake: FakeLangSmith) -> int:
    """The LangSmith pre-flights the fake saw (`harness.langsmith.session.preflight`: one ``GET /datasets?limit=1``)."""
    return sum(
        1
        for method, path, query in fake.recorder.requests
        if method == "GET" and path.rstrip("/").endswith("/datasets") and query.get("limit") == ["1"] and "name" not in query
    )


def test_experiment_run_asks_langsmith_once_before_the_grid_runs_and_the_export_reuses_it(tmp_path, monkeypatch, capsys):
    import harness.runs.grid as grid

    seen: list[int] = []
    real = grid.run_cells
    with FakeLangSmith() as fake:
        monkeypatch.setenv("LANGSMITH_API_KEY", FAKE_KEY)
        monkeypatch.setenv("LANGSMITH_ENDPOINT", fake.url)
        monkeypatch.setattr(grid, "run_cells", lambda *a, **k: (seen.append(_preflights(fake)), real(*a, **k))[1])
        assert main(["experiment", "run", str(_spec(tmp_path)), "--out", str(tmp_path)]) == EXIT_OK
        assert seen == [1]  # asked before the first cell ran
        assert _preflights(fake) == 1 and fake.recorder.feedback  # the export uploaded on that one answer
    assert json.loads((tmp_path / "early" / "langsmith.json").read_text())["uploaded"] is True
    capsys.readouterr()


@pytest.mark.parametrize("outage", ["refused", "never answers"])
def test_experiment_run_with_langsmith_down_says_so_first_and_writes_its_results(outage, tmp_path, monkeypatch, capsys):
    import harness.langsmith.session as session

    asked: list[str | None] = []
    real = session.preflight
    monkeypatch.setattr(session, "preflight", lambda client: (asked.append(real(client)), asked[-1])[1])
    with FakeLangSmith(hang=outage == "never answers") as fake:
        monkeypatch.setenv("LANGSMITH_API_KEY", FAKE_KEY)
        monkeypatch.setenv("LANGSMITH_ENDPOINT", f"http://127.0.0.1:{closed_port()}" if outage == "refused" else fake.url)
        assert main(["experiment", "run", str(_spec(tmp_path)), "--out", str(tmp_path)]) == EXIT_OK
    printed = capsys.readouterr().out
    assert len(asked) == 1 and asked[0] is not None and asked[0].startswith("LangSmith did not answer")
    early = printed.index("warning: LangSmith: LangSmith did not answer")
    assert early < printed.index("experiment early: 1 cells")  # said before the grid started
    assert "results stay local" in printed[early:].splitlines()[0]
    written = tmp_path / "early"
    assert len((written / "cells.jsonl").read_text().splitlines()) == 1
    assert json.loads((written / "langsmith.json").read_text())["upload_failed"] == asked[0]
    assert FAKE_KEY not in printed


def test_harness_run_says_a_bad_model_before_it_asks_langsmith(tmp_path):
    with FakeLangSmith() as fake:
        env = _env(LANGSMITH_TRACING="true", LANGSMITH_API_KEY=FAKE_KEY, LANGSMITH_ENDPOINT=fake.url)
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", "--model", "openai:", "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
        assert done.returncode == EXIT_BAD_INPUT and "--model 'openai:': write provider:name" in done.stderr
        assert fake.recorder.requests == []  # a mistake is said at once, not after LangSmith's answer


def test_harness_run_with_tracing_asks_langsmith_once(tmp_path):
    with FakeLangSmith() as fake:
        env = _env(LANGSMITH_TRACING="true", LANGSMITH_API_KEY=FAKE_KEY, LANGSMITH_ENDPOINT=fake.url)
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", "--cases", CASE, "--out", str(tmp_path)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=300,
            check=False,
        )
        assert done.returncode == EXIT_OK, (done.stdout + done.stderr)[-2000:]
        assert _preflights(fake) == 1 and fake.recorder.runs  # asked once, then traced through that client


def test_a_pytest_session_asks_langsmith_once_after_its_models(tmp_path):
    with FakeLangSmith() as fake:
        done = _pytest(
            ["evals/test_evals.py", "-m", "needle", "-k", CASE, "--runs-dir", str(tmp_path / "runs")],
            ROOT,
            tmp_path,
            LANGSMITH_API_KEY=FAKE_KEY,
            LANGSMITH_ENDPOINT=fake.url,
        )
        assert done.returncode == 0 and "1 passed" in done.stdout, (done.stdout + done.stderr)[-3000:]
        assert _preflights(fake) == 1 and fake.recorder.feedback
        bad = _pytest(
            ["evals/test_evals.py", "-m", "needle", "--model", "openai:", "--runs-dir", str(tmp_path / "bad")],
            ROOT,
            tmp_path,
            LANGSMITH_API_KEY=FAKE_KEY,
            LANGSMITH_ENDPOINT=fake.url,
        )
        assert bad.returncode == 4 and "--model 'openai:': write provider:name" in bad.stdout + bad.stderr
        assert _preflights(fake) == 1  # the bad model was said before LangSmith was asked
