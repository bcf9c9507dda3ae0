"""The command line, end to end on one or two cases (offline)."""

import gzip
import json
from pathlib import Path

import pytest

from harness.cli.main import EXIT_BAD_INPUT, EXIT_ERROR, EXIT_FAILED, EXIT_OK, EXIT_SKIPPED, build_parser, main
from harness.runs.results import read_results

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    code = main(["run", "--cases", "needle-h24k-d000", "goal-ledgers-12", "--out", str(out), "--run-id", "smoke"])
    assert code == EXIT_OK
    return out / "smoke"


def test_run_writes_results_traces_chart_and_report(run_dir):
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert sorted(r["case_id"] for r in rows) == ["goal-ledgers-12", "needle-h24k-d000"]
    for row in rows:
        assert row["simulated"] and row["agent_model"] == "reference-agent" and row["arm"] == "forced-20"
        assert row["events"]["summary"] >= 1 and row["tokens"]["peak_context"] > 0 and row["wall_time_s"] > 0
        assert all(row["passed"].values()), row["explanations"]
        assert row["answers"][0].startswith("TASK COMPLETE")
        with gzip.open(run_dir / row["trace"], "rt") as fh:
            assert json.load(fh)["case_id"] == row["case_id"]
    assert (run_dir / "token_curves.png").stat().st_size > 10_000
    report = (run_dir / "report.md").read_text()
    assert "Simulated" in report and "![token curves](token_curves.png)" in report and "95% interval" in report
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["fixed_overhead_tokens"] > 2000 and meta["datasets"]
    frame = read_results(run_dir)
    assert {"score.needle_correct", "score.goal_preserved", "events.summary"} <= set(frame.columns)


def test_score_rescoring_stored_traces_matches(run_dir):
    assert main(["score", str(run_dir)]) == EXIT_OK
    old = [json.loads(x)["scores"] for x in (run_dir / "results.jsonl").read_text().splitlines()]
    new = [json.loads(x)["scores"] for x in (run_dir / "rescored.jsonl").read_text().splitlines()]
    assert old == new


def test_bad_input_exits_2_names_the_problem_and_leaves_earlier_results(run_dir, tmp_path, capsys):
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    out = tmp_path / "runs"
    assert main(["run", "--variant", "forced-99", "--out", str(out)]) == EXIT_BAD_INPUT
    assert "unknown variant 'forced-99'" in capsys.readouterr().err
    assert main(["run", "--trigger", "140%", "--out", str(out)]) == EXIT_BAD_INPUT
    assert "fraction must be in (0, 1]" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x", "kind": "needle", "description": "d", "task": "t", "needles": "oops"}\n')
    assert main(["run", "--datasets", str(broken), "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "broken.jsonl: row 1 (id 'x'): field 'needles': expected a list" in err
    assert not out.exists()
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == before


def test_a_live_model_without_a_key_is_skipped(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["run", "--model", "openai:gpt-5.2", "--out", str(tmp_path)]) == EXIT_SKIPPED
    assert "OPENAI_API_KEY is not set" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_help_documents_every_run_option():
    help_text = build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    for option in (
        "--variant",
        "--trigger",
        "--keep",
        "--window",
        "--model",
        "--summary-model",
        "--kind",
        "--cases",
        "--limit",
        "--seed",
        "--trials",
        "--out",
        "--run-id",
        "--datasets",
    ):
        assert option in help_text


def test_results_reader_skips_a_torn_last_line_and_refuses_a_bad_middle_line(tmp_path):
    from harness.errors import HarnessError
    from harness.runs.results import read_jsonl, read_rows
    from tests._rows import full_row

    path = tmp_path / "results.jsonl"
    one, two = (json.dumps(full_row(case_id=c)) for c in ("1", "2"))
    path.write_text(f'{one}\n{two}\n{{"a": ')
    assert [r["case_id"] for r in read_rows(path)] == ["1", "2"] and path.read_text().endswith('{"a": ')
    assert [r["case_id"] for r in read_rows(path, repair=True)] == ["1", "2"] and path.read_text() == f"{one}\n{two}\n"
    path.write_text('{"a": 1}\n{"a": 2}\n{"a": ')  # any JSONL file of records reads the same way
    assert read_jsonl(path, repair=True) == [{"a": 1}, {"a": 2}] and path.read_text() == '{"a": 1}\n{"a": 2}\n'
    path.write_text('{"a": 1}\nnot json\n{"a": 3}\n')
    with pytest.raises(HarnessError, match="line 2 is not valid JSON"):
        read_rows(path)


def test_report_renders_a_validity_matrix(tmp_path):
    from harness.report.validity_report import write_validity
    from harness.suites.validity import ValidityResult

    def run(fault, failed, seed=0):
        return {"eval": "needle", "case_id": "x", "seed": seed, "fault": fault, "failed": failed, "explanations": {}}

    runs = [run(None, [], s) for s in range(10)]
    runs += [
        run("history-unreadable", ["needle_correct", "needle_via_history"]),
        # offload-disabled makes the run fail, but not by the check the registry names for it: a miss
        run("offload-disabled", ["needle_correct"]),
        run("tool-result-dropped", ["structure_ok"]),
    ]
    write_validity(ValidityResult.from_runs(runs, 10), tmp_path)
    (tmp_path / "report.md").unlink()
    assert main(["report", str(tmp_path)]) == EXIT_OK
    report = (tmp_path / "report.md").read_text()
    assert "| needle" in report and "DETECTED" in report and "missed" in report and "10/10" in report
    assert "needle did not catch offload-disabled by needle_via_history" in report


def test_validity_command_writes_and_prints_the_matrix(tmp_path, monkeypatch, capsys):
    """The command's wiring (the matrix itself runs in evals/test_validity.py): a canned result, printed and written."""
    import harness.suites.validity as validity
    from harness.suites.validity import ValidityResult

    runs = [
        {"eval": "needle", "case_id": "x", "seed": 0, "fault": f, "failed": failed, "explanations": {}}
        for f, failed in ((None, []), ("history-unreadable", ["needle_via_history"]))
    ]
    monkeypatch.setattr(validity, "run_validity", lambda seeds, **_: ValidityResult.from_runs(runs, seeds))
    # needle must also catch offload-disabled and tool-result-dropped, which this result never injected: a failure
    assert main(["validity", "--seeds", "1", "--out", str(tmp_path / "v")]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert "| needle" in out and "DETECTED" in out and (tmp_path / "v" / "report.md").exists()
    assert "problem: needle: fault offload-disabled was never injected" in out


def test_validity_proves_one_eval_with_the_faults_its_entry_names(tmp_path, capsys):
    """`harness validity --eval NAME --named-faults`: what someone adding an eval runs (it used to take the Python
    function); only that eval's runs, healthy and under each fault its entry names."""
    from harness.suites.registry import SUITES

    out = tmp_path / "v"
    assert main(["validity", "--eval", "notsummary", "--seeds", "1", "--named-faults", "--out", str(out)]) == 0
    runs = json.loads((out / "validity.json").read_text())["runs"]
    assert {r["eval"] for r in runs} == {"notsummary"}
    assert {r["fault"] for r in runs} == {None, *SUITES["notsummary"].faults}
    assert "| notsummary" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--eval", "nope"], "--eval 'nope': not an eval of the validity matrix; it has needle,"),
        (["--seeds", "0"], "--seeds must be at least 1, got 0"),
    ],
)
def test_validity_refuses_an_unknown_eval_or_no_seeds_writing_nothing(tmp_path, capsys, argv, message):
    assert main(["validity", *argv, "--out", str(tmp_path / "v")]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err and not (tmp_path / "v").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "foo:bar"], "--model 'foo:bar': unknown provider 'foo'"),
        (["--summary-model", "foo:bar"], "--summary-model 'foo:bar': unknown provider 'foo'"),
        (["--keep", "tokens:-5"], "--keep 'tokens:-5': tokens must be a positive integer"),
        (["--trigger", "tokens:3000", "--keep", "tokens:5000"], "--trigger / --keep: config 'forced-20+custom': keep"),
        (["--window", "500"], "--window must be at least 1000 tokens, got 500"),
        (["--window", "0"], "--window must be at least 1000 tokens, got 0"),  # 0 was read as "not given"
        (["--limit", "0"], "--limit must be at least 1, got 0"),  # 0 meant "no limit" and ran every case
        (["--datasets", str(ROOT / "datasets")], "datasets: is a directory; give its .jsonl files"),
        (["--base-url", "http://127.0.0.1:9/v1", "--max-rps", "2"], "--base-url and --max-rps apply to a live model"),
        (["--trigger", "tokens:2000", "--keep", "tokens:500"], "at or below the fixed per-call overhead"),
        (["--run-id", "smoke"], "--run-id smoke:"),
    ],
)
def test_each_bad_option_is_named_exits_2_and_writes_nothing(run_dir, argv, message, capsys):
    before = sorted(p.name for p in run_dir.parent.iterdir())
    smoke = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    assert main(["run", *argv, "--cases", "needle-h24k-d000", "--out", str(run_dir.parent)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert sorted(p.name for p in run_dir.parent.iterdir()) == before
    assert {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()} == smoke


@pytest.mark.parametrize("content", [b'\xff\xfe{"id": "x"}\n', '{"id": "caf\xe9"}\n'.encode("latin-1")])
def test_a_dataset_that_is_not_utf8_names_the_file_and_row(tmp_path, content, capsys):
    path = tmp_path / "latin.jsonl"
    good = (ROOT / "datasets" / "goal.jsonl").open("rb").readline()  # a valid first row: the error must name row 2
    path.write_bytes(good + content)
    out = tmp_path / "runs"
    assert main(["run", "--datasets", str(path), "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{path}: row 2: not UTF-8 text" in err and not out.exists()


def test_audit_and_run_agree_on_a_trigger_below_the_overhead(tmp_path, capsys):
    assert main(["audit", "--model", "openai:gpt-5.2", "--trigger", "tokens:2000", "--keep", "tokens:500"]) == EXIT_BAD_INPUT
    assert "trigger-below-overhead" in capsys.readouterr().out
    assert main(["run", "--trigger", "tokens:2000", "--keep", "tokens:500", "--out", str(tmp_path)]) == EXIT_BAD_INPUT


def test_experiment_workers_below_one_is_refused(tmp_path, capsys):
    assert (
        main(
            ["experiment", "run", str(ROOT / "datasets" / "experiments" / "smoke.yaml"), "--workers", "0", "--out", str(tmp_path)]
        )
        == EXIT_BAD_INPUT
    )
    assert "--workers must be at least 1" in capsys.readouterr().err and not any(tmp_path.iterdir())


def test_a_broken_variant_file_is_listed_as_broken_beside_the_others(monkeypatch, tmp_path, capsys):
    import shutil

    import harness.compaction.variants as variants

    for f in variants.VARIANTS_DIR.glob("*.md"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "zz-broken.md").write_text("---\ntrigger: 20%\n---\nno placeholder here\n")
    monkeypatch.setattr(variants, "VARIANTS_DIR", tmp_path)
    assert main(["variants"]) == EXIT_BAD_INPUT
    out = capsys.readouterr().out
    assert "zz-broken            BROKEN:" in out and "{messages}" in out
    assert "minimal" in out and "structured" in out  # the others are still listed


def _files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("run_id", ["../../escape", "ABSOLUTE", "..", ".hidden", "a/b"])
def test_a_run_id_is_a_directory_name_never_a_path_out_of_out(tmp_path, run_id, capsys):
    outside = tmp_path.parent / f"{tmp_path.name}-outside"  # where an absolute --run-id would have written
    run_id = str(outside) if run_id == "ABSOLUTE" else run_id
    out = tmp_path / "a" / "b"
    assert main(["run", "--run-id", run_id, "--cases", "needle-h24k-d000", "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"--run-id {run_id!r}: a directory name, not a path" in err and "Traceback" not in err
    assert _files_under(tmp_path) == [] and not outside.exists()


def test_an_experiment_name_is_a_directory_name_never_a_path(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("name: ../../escape\nvariants: [forced-20]\nthresholds: [20%]\nscenarios: {limit: 1}\n")
    out = tmp_path / "a" / "b"
    assert main(["experiment", "run", str(spec), "--out", str(out), "--no-langsmith"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{spec}: name: '../../escape': a directory name, not a path" in err and "Traceback" not in err
    assert _files_under(tmp_path) == ["spec.yaml"]


@pytest.fixture
def unreadable(monkeypatch):
    """Make ``path`` unreadable: chmod 000, and, where that binds nothing (root), the same PermissionError raised by
    Path.open for it (Path.read_text opens through it)."""
    import os

    blocked: set[str] = set()
    real_open = Path.open

    def guarded_open(self, *args, **kwargs):
        if str(self) in blocked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    def block(path: Path) -> Path:
        path.chmod(0)
        if os.geteuid() == 0:
            blocked.add(str(path))
            monkeypatch.setattr(Path, "open", guarded_open)
        return path

    return block


def test_unreadable_dataset_and_variant_files_are_named_not_tracebacks(tmp_path, unreadable, capsys):
    out = tmp_path / "runs"
    dataset = tmp_path / "cases.jsonl"
    dataset.write_bytes((ROOT / "datasets" / "goal.jsonl").open("rb").readline())
    unreadable(dataset)
    assert main(["run", "--datasets", str(dataset), "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{dataset}: cannot be read (Permission denied)" in err and "Traceback" not in err

    variant = tmp_path / "mine.md"
    variant.write_text((ROOT / "datasets" / "variants" / "minimal.md").read_text())
    unreadable(variant)
    assert main(["run", "--variant", str(variant), "--cases", "needle-h24k-d000", "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{variant}: cannot be read (Permission denied)" in err and "Traceback" not in err

    as_dir = tmp_path / "dir.md"  # a directory where a file is expected: IsADirectoryError was a traceback
    as_dir.mkdir()
    assert main(["run", "--variant", str(as_dir), "--cases", "needle-h24k-d000", "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{as_dir}: is a directory" in err and "Traceback" not in err

    latin = tmp_path / "latin.md"
    latin.write_bytes("---\ndescription: caf\xe9\n---\nSummarize {messages}\n".encode("latin-1"))
    assert main(["run", "--variant", str(latin), "--cases", "needle-h24k-d000", "--out", str(out)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert f"{latin}: not UTF-8 text (byte 0xe9" in err and "Traceback" not in err
    assert not out.exists()


def test_out_pointing_at_a_file_is_named_for_run_and_experiment(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("keep me\n")
    for out in (afile, afile / "below"):
        assert main(["run", "--cases", "needle-h24k-d000", "--out", str(out)]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert f"--out {out}: {afile} is a file, not a directory" in err and "Traceback" not in err
        smoke = str(ROOT / "datasets" / "experiments" / "smoke.yaml")
        assert main(["experiment", "run", smoke, "--out", str(out), "--max-cells", "1", "--no-langsmith"]) == EXIT_BAD_INPUT
        err = capsys.readouterr().err
        assert f"--out {out}: {afile} is a file, not a directory" in err and "Traceback" not in err
    assert afile.read_text() == "keep me\n" and _files_under(tmp_path) == ["afile"]


def test_a_spec_with_an_endpoint_and_no_live_model_says_so_in_the_specs_words(tmp_path, capsys):
    spec = tmp_path / "spec.yaml"
    spec.write_text("base_url: http://127.0.0.1:9/v1\nvariants: [forced-20]\nthresholds: [20%]\nscenarios: {limit: 1}\n")
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path / "out"), "--no-langsmith"]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    # was: "base-url, --model-kwargs, --max-rps and --max-tpm apply to a live /x/spec.yaml: model (provider:name)"
    assert f"{spec}: base_url applies to a live model (provider:name), but with no model the agent is" in err
    assert "--" not in err.split("HTTP:")[0] and "Traceback" not in err and _files_under(tmp_path) == ["spec.yaml"]


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:  # a port just freed: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_nothing_listening_at_the_base_url_stops_before_any_case_with_exit_4(tmp_path, capsys):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    live = ["--model", "openai:reference-agent", "--summary-model", "openai:reference-summarizer"]
    assert main(["run", *live, "--base-url", url, "--cases", "needle-h24k-d000", "--out", str(tmp_path / "runs")]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert f"error: nothing answers at {url} (ConnectionRefusedError" in err and "No case was run" in err
    assert "Traceback" not in err and _files_under(tmp_path) == []  # no run directory, no ERROR rows after 21 s each
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"model: openai:reference-agent\nsummary_model: openai:reference-summarizer\nbase_url: {url}\n"
        "variants: [forced-20]\nthresholds: [20%]\nscenarios: {cases: [needle-h24k-d000]}\n"
    )
    assert main(["experiment", "run", str(spec), "--out", str(tmp_path / "exp"), "--no-langsmith"]) == EXIT_ERROR
    err = capsys.readouterr().err
    assert f"error: nothing answers at {url} (ConnectionRefusedError" in err and "Traceback" not in err
    assert _files_under(tmp_path) == ["spec.yaml"]
