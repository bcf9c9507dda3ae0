"""Start-up (issue 32, items 8 and 9): the pre-flights come before the heavy imports, the bench measures the start-up
(figures in docs/performance.md, never asserted here), and the notebooks have an install extra and a make target."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from harness.agent.endpoints import PROVIDER_KEYS, Endpoint, check_live_spec, known_providers, preflight
from harness.bench.figures import RUN_HEADER
from harness.errors import ConfigError, EndpointUnreachable, LiveModelUnavailable

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("langchain", "langchain_core", "langgraph", "deepagents", "pandas", "matplotlib", "datasets", "openai")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_and_list_imports(argv: list[str], env: dict[str, str] | None = None) -> tuple[int, str, list[str]]:
    """`harness ARGV` in a fresh interpreter: (exit code, stderr, the HEAVY packages it imported)."""
    code = (
        "import json, sys\nfrom harness.cli.main import main\n"
        f"rc = main({argv!r})\n"
        f"print(json.dumps([rc, sorted({{m.split('.')[0] for m in sys.modules}} & set({list(HEAVY)!r}))]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False
    )
    rc, heavy = json.loads(proc.stdout.strip().splitlines()[-1])
    return rc, proc.stderr, heavy


def test_a_stopped_server_is_reported_before_the_agent_stack_or_the_scenarios_are_imported():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    rc, err, heavy = run_and_list_imports(["run", "--model", "openai:gpt-x", "--base-url", url, "--out", "unused"])
    assert rc == 4 and f"nothing answers at {url}" in err and "No case was run" in err
    assert heavy == [], f"imported before the pre-flight said so: {heavy}"
    assert not (ROOT / "unused").exists()


def test_harness_check_says_a_stopped_server_before_its_compactor_audit_builds_the_agent_stack(tmp_path):
    """`harness check` audits the compactor (which builds the stack) after the early checks, not before them."""
    url = f"http://127.0.0.1:{closed_port()}/v1"
    argv = ["check", "--strategy", "langchain-summarization", "--model", "openai:gpt-x", "--base-url", url]
    rc, err, heavy = run_and_list_imports(
        [*argv, "--baseline", str(tmp_path / "b.json"), "--update", "--out", str(tmp_path / "o")]
    )
    assert rc == 4 and f"nothing answers at {url}" in err, err
    assert heavy == [], f"imported before the pre-flight said so: {heavy}"
    assert not (tmp_path / "o").exists() and not (tmp_path / "b.json").exists()


DOORS = {
    "check --baseline B": ["check", "--baseline", str(ROOT / "datasets/baselines/nightly.json")],
    "run --strategy MODULE:FUNCTION": ["run", "--strategy", "tests._strategies:keep_task_and_last_six"],
    "run --kind session (a replay)": ["run", "--kind", "session", "--datasets", "datasets/sessions/sessions.jsonl"],
    "experiment run SPEC": ["experiment", "run", "{spec}"],
    "import --propose-probes": ["import", "atif", "datasets/sessions/goal-ledgers-12.trajectory.json", "--propose-probes"],
    "judge calibrate RUN_DIR": ["judge", "calibrate", "{run}"],
}
"""Doors a live run starts from that the tests above and tests/cli/test_preflight_doors.py do not walk in the same
situation (docs/live.md, "The pre-flight"); `harness run --kind K` is `harness run`'s path, and a user's own code
(`--strategy module:function`) is read before the early checks, without the harness importing langchain for it.
The last two build a live judge (`--judge-model`, `--judge-base-url`); calibrate's run directory is only looked for
before the judge's checks, so an empty results.jsonl stands for one."""
JUDGE_DOORS = ("import --propose-probes", "judge calibrate RUN_DIR")


@pytest.mark.parametrize(
    ("door", "situation"),
    [
        ("check --baseline B", "stopped server"),
        ("check --baseline B", "missing key"),
        ("check --baseline B", "bad baseline"),
        ("run --strategy MODULE:FUNCTION", "stopped server"),
        ("run --kind session (a replay)", "stopped server"),
        ("experiment run SPEC", "missing key"),
        ("import --propose-probes", "stopped server"),
        ("import --propose-probes", "missing key"),
        ("judge calibrate RUN_DIR", "stopped server"),
        ("judge calibrate RUN_DIR", "missing key"),
    ],
)
def test_every_door_says_a_stopped_server_a_missing_key_or_a_bad_baseline_before_the_heavy_imports(door, situation, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out, spec = tmp_path / "out", tmp_path / "spec.yaml"
    base_url = url if situation == "stopped server" else None
    spec.write_text(
        "name: doors\nmodel: openai:gpt-x\n"
        + (f"base_url: {base_url}\n" if base_url else "")
        + "variants: [forced-20]\nthresholds: [20%]\nscenarios: {cases: [needle-h24k-d000]}\n"
    )
    run = tmp_path / "run"
    if door == "judge calibrate RUN_DIR":
        run.mkdir()
        (run / "results.jsonl").write_text("")
    argv = [a.format(spec=spec, run=run) for a in DOORS[door]]
    argv += [] if door == "judge calibrate RUN_DIR" else ["--out", str(out)]
    if door != "experiment run SPEC":  # the spec names its model and server
        model = "--judge-model" if door in JUDGE_DOORS else "--model"
        argv += [model, "openai:gpt-x"] + ([model.replace("model", "base-url"), base_url] if base_url else [])
    if situation == "bad baseline":
        argv[argv.index("--baseline") + 1] = str(tmp_path / "none.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LANGSMITH_")) and k != "OPENAI_API_KEY"}
    rc, err, heavy = run_and_list_imports(argv, env)
    code, message = {
        "stopped server": (4, f"nothing answers at {url}"),
        "missing key": (3, "OPENAI_API_KEY is not set"),
        "bad baseline": (2, f"{tmp_path / 'none.json'}: no baseline file; create it with --update"),
    }[situation]
    assert rc == code and message in err, err[-2000:]
    assert heavy == [], f"imported before the message: {heavy}"
    given = ["results.jsonl", "run", "spec.yaml"] if run.exists() else ["spec.yaml"]
    assert sorted(p.name for p in tmp_path.rglob("*")) == given  # nothing written


def test_a_missing_key_and_a_malformed_spec_are_said_before_the_heavy_imports_too():
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    rc, err, heavy = run_and_list_imports(["run", "--model", "openai:gpt-x"], env=env)
    assert rc == 3 and "OPENAI_API_KEY is not set" in err and heavy == []
    rc, err, heavy = run_and_list_imports(["run", "--model", "openai:", "--base-url", "http://127.0.0.1:9/v1"])
    assert rc == 2 and "--model 'openai:': write provider:name" in err and heavy == []


def test_a_run_module_and_the_agent_stack_do_not_import_pandas_or_matplotlib():
    """pandas and matplotlib are the report's: a run imports them after its last case (read_results, write_report)."""
    code = (
        "import sys, harness.runs.run, harness.agent.runner, harness.cli.runs\n"
        "print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


def test_a_run_on_a_warm_scenario_cache_reaches_its_first_case_without_datasets_or_pandas(tmp_path):
    """Issue 32's start-up: the shipped scenarios read back from `harness.scenarios.cache` once `datasets` has loaded
    them, so neither it nor the pandas it imports is imported by the time `harness run` says its first case starts."""
    warm = "from harness.scenarios.schema import load_scenarios\nload_scenarios()"
    subprocess.run([sys.executable, "-c", warm], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    argv = ["run", "--cases", "needle-h24k-d000", "--out", str(tmp_path)]
    code = (
        "import json, sys\nfrom harness.cli.main import main\nseen = []\nwrite = sys.stdout.write\n"
        "def spy(text):\n"
        f"    if not seen and text.startswith({RUN_HEADER!r}):\n"
        f"        seen.append(sorted({{m.split('.')[0] for m in sys.modules}} & {{'datasets', 'pandas', 'pyarrow'}}))\n"
        "    return write(text)\n"
        f"sys.stdout.write = spy\nrc = main({argv!r})\nsys.stdout.write = write\nprint(json.dumps([rc, seen]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    rc, seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert rc == 0 and seen == [[]], proc.stderr[-2000:]


def test_loading_the_scenarios_imports_no_scipy_and_leaves_the_streaming_patch_to_later_loads():
    """`datasets` patches a builder's module for streaming on first use, importing scipy.io for a reader the JSON files
    never need; the loader keeps it from doing so while it reads the shipped files, and only then (a later streaming
    load in the process is patched as usual)."""
    code = (
        "import json, sys\nfrom harness.scenarios.schema import load_scenarios\nn = len(load_scenarios())\n"
        "from datasets.packaged_modules.json import json as module\n"
        "print(json.dumps([n, 'scipy' in sys.modules, hasattr(module, '_patched_for_streaming')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    n, scipy, marked = json.loads(out.strip().splitlines()[-1])
    assert n > 0 and not scipy and not marked


def test_every_provider_named_with_its_key_is_one_langchain_builds():
    """`check_live_spec` knows a provider of PROVIDER_KEYS without asking LangChain: each must be one it builds."""
    assert set(PROVIDER_KEYS) <= set(known_providers())


def test_a_provider_outside_the_key_table_is_asked_of_langchain(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    outside = next(p for p in known_providers() if p not in PROVIDER_KEYS)
    check_live_spec(f"{outside}:some-model", "--model", base_url="http://127.0.0.1:9/v1")  # known: no error
    with pytest.raises(ConfigError, match=r"--model 'nowhere:x': unknown provider 'nowhere'"):
        check_live_spec("nowhere:x", "--model")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LiveModelUnavailable, match="ANTHROPIC_API_KEY"):
        check_live_spec("anthropic:claude", "--model")


def test_the_preflight_checks_live_models_only():
    dead = Endpoint(f"http://127.0.0.1:{closed_port()}/v1")
    # the reference models take no endpoint: left to choose_models, which refuses a base URL with a clear message
    preflight(None, None, dead, dead)
    preflight("reference", "reference", dead, dead)
    with pytest.raises(EndpointUnreachable):
        preflight("openai:gpt-x", None, dead, dead)  # a live agent summarizes through its own endpoint
    with pytest.raises(EndpointUnreachable):
        preflight(None, "openai:gpt-x", Endpoint(), dead)  # a live summarizer beside the reference agent
    with pytest.raises(ConfigError, match="--summary-model 'openai:'"):
        preflight("openai:gpt-x", "openai:", dead, dead)  # a malformed live spec is bad input (exit 2), said first


def test_the_startup_bench_part_runs_and_renders(tmp_path):
    from harness.bench.figures import render, startup

    result = startup(runs=1)
    rows = result["rows"]
    assert [(r["until"], r["no_bytecode"]) for r in rows] == [
        ("first case", False),
        ("first case", True),
        ("first error", False),
        ("first error", True),
    ]
    assert all(r["cpu_s"] > 0 and r["wall_s"] > 0 and len(r["cpu_s_runs"]) == 1 for r in rows)
    assert rows[0]["command"] == "harness run --out OUT" and rows[2]["command"].endswith("--base-url http://127.0.0.1:PORT/v1")
    table = render({"created_at": "now", "machine": {"cpus": 2, "python": "3.11"}, "startup": result})
    lines = [line for line in table.splitlines() if line.startswith("| start-up:")]
    assert len(lines) == 4 and all(re.search(r"\*\*[0-9.]+ s CPU\*\* \(median of 1;", line) for line in lines)
    assert sum("PYTHONDONTWRITEBYTECODE=1" in line for line in lines) == 2


def test_bench_runs_one_part_when_asked(monkeypatch, tmp_path, capsys):
    import harness.bench.figures as bench
    from harness.cli.main import build_parser

    assert build_parser().parse_args(["bench", "--only", "startup"]).only == "startup"
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["bench", "--only", "everything"])
    assert info.value.code == 2

    def not_asked(*args, **kwargs):
        raise AssertionError("a part that was not asked for ran")

    for name in ("time_pytest", "recorder_overhead", "grid_throughput", "stress", "live_throughput"):
        monkeypatch.setattr(bench, name, not_asked)
    row = {"until": "first case", "command": "harness run --out OUT", "no_bytecode": True, "cpu_s": 1.25, "wall_s": 2.5}
    monkeypatch.setattr(bench, "startup", lambda: {"runs": 3, "rows": [row]})
    result = bench.run_bench(out_dir=tmp_path, only="startup")
    assert set(result) == {"created_at", "machine", "load_average", "startup"}
    (saved,) = tmp_path.glob("bench-*.json")
    assert json.loads(saved.read_text())["startup"]["rows"] == [row]
    assert (
        "| start-up: `harness run --out OUT` to its first case, with `PYTHONDONTWRITEBYTECODE=1` | **1.25 s CPU** (median of 3; 2.5 s wall) |"
        in (capsys.readouterr().out)
    )


def test_the_notebook_extra_pins_jupyterlab_on_top_of_the_dev_lock():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert "jupyterlab" in extras["notebook"]

    def pins(name: str) -> dict[str, str]:
        lines = (ROOT / name).read_text().splitlines()
        return dict(line.split("==", 1) for line in lines if re.match(r"^[A-Za-z0-9]", line))

    dev, notebook = pins("requirements-dev.lock"), pins("requirements-notebook.lock")
    assert "jupyterlab" in notebook and "jupyterlab" not in dev
    assert {name: notebook.get(name) for name in dev} == dev  # every dev pin, unchanged: one environment


def test_make_notebooks_installs_the_extra_and_serves_on_loopback_only(tmp_path):
    """`make -n`: what the target would run, without installing or starting a server."""
    venv = tmp_path / "venv"
    out = subprocess.run(["make", "-n", "notebooks", f"VENV={venv}"], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert f"{venv}/bin/uv pip install --quiet --compile-bytecode --python {venv}/bin/python -r requirements-notebook.lock" in out
    (serve,) = [line for line in out.splitlines() if "jupyter lab" in line]
    assert serve.startswith(f"{venv}/bin/jupyter lab --ip 127.0.0.1 ") and "--no-browser" in serve
    assert "--ServerApp.root_dir=notebooks" in serve
