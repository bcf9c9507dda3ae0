"""`harness export` and the round trip: a run the harness makes offline, exported as ATIF and as OpenAI JSONL, imported
back with the readers, gives the same messages and compactions; the shipped exported session imports to the shipped case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.errors import EXIT_BAD_INPUT, EXIT_OK
from harness.sessions import read_session
from harness.sessions.check import check_session
from harness.sessions.export import trace_session
from harness.trace.schema import load_trace

pytestmark = pytest.mark.slow  # runs a case offline through `harness run`

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    assert main(["run", "--cases", "goal-ledgers-12", "--variant", "forced-20", "--out", str(out), "--run-id", "r"]) == EXIT_OK
    return out / "r"


def test_a_run_exported_and_imported_back_gives_the_same_messages_and_compactions(run_dir: Path, tmp_path: Path) -> None:
    (row,) = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    trace = load_trace(run_dir / row["trace"])
    expected = trace_session(trace, "x")
    size = check_session(expected)
    assert expected.compactions, "the case must compact for the round trip to hold its compactions"
    assert expected.messages[0]["role"] in ("system", "user") and size.messages > 20
    for fmt, name in (("openai", "{stem}.jsonl"), ("atif", "{stem}/trajectory.json")):
        out = tmp_path / fmt
        assert main(["export", str(run_dir), "--format", fmt, "--out", str(out)]) == EXIT_OK
        stem = Path(row["trace"]).name.removesuffix(".gz").removesuffix(".json")
        back = read_session(fmt, str(out / name.format(stem=stem)))
        assert back.messages == expected.messages, fmt
        assert [(c.at, c.kind, c.summary) for c in back.compactions] == [(c.at, c.kind, c.summary) for c in expected.compactions]


def test_an_export_of_the_same_run_is_byte_identical(run_dir: Path, tmp_path: Path) -> None:
    for fmt in ("openai", "atif"):
        texts = []
        for n in (1, 2):
            assert main(["export", str(run_dir), "--format", fmt, "--out", str(tmp_path / f"{fmt}{n}")]) == EXIT_OK
            texts.append(
                {
                    p.relative_to(tmp_path / f"{fmt}{n}"): p.read_bytes()
                    for p in (tmp_path / f"{fmt}{n}").rglob("*")
                    if p.is_file()
                }
            )
        assert texts[0] == texts[1] and texts[0]


def test_export_of_a_directory_that_is_not_a_run_exits_2_and_writes_nothing(tmp_path: Path, capsys) -> None:
    assert main(["export", str(tmp_path), "--format", "atif", "--out", str(tmp_path / "out")]) == EXIT_BAD_INPUT
    assert "no results.jsonl" in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_the_shipped_exported_session_imports_to_the_shipped_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the shipped row names its source relative to the repository
    shipped = ROOT / "datasets" / "sessions"
    rows = [json.loads(line) for line in (shipped / "sessions.jsonl").read_text().splitlines()]
    for row in rows:
        source = row["session"]["source"]
        probes = source.replace(".trajectory.json", ".probes.yaml")
        args = ["import", row["session"]["format"], source, "--out", str(tmp_path), "--id", row["id"], "--probes", probes]
        assert main(args) == EXIT_OK
        (fresh,) = [json.loads(line) for line in (tmp_path / "sessions.jsonl").read_text().splitlines() if row["id"] in line]
        assert fresh == row
        assert (tmp_path / f"{row['id']}.jsonl").read_text() == (shipped / f"{row['id']}.jsonl").read_text()


def test_the_same_run_as_langchain_dicts_reads_to_the_same_session(run_dir: Path, tmp_path: Path) -> None:
    """What deepagents keeps in its state (LangChain messages, the summary marked lc_source) reads as the export does."""
    from langchain_core.messages import HumanMessage, convert_to_messages, messages_to_dict

    from harness._deepagents_adapter import SUMMARY_SOURCE, reads_as_summary
    from harness.sessions.export import trace_messages

    (row,) = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    trace = load_trace(run_dir / row["trace"])
    messages = list(convert_to_messages(trace_messages(trace)))
    for m in messages:
        if reads_as_summary(m):
            m.additional_kwargs["lc_source"] = SUMMARY_SOURCE
    assert any(isinstance(m, HumanMessage) and m.additional_kwargs.get("lc_source") for m in messages)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(messages_to_dict(messages)))
    expected, back = trace_session(trace, "x"), read_session("langchain", str(path))
    assert back.messages == expected.messages
    assert [(c.at, c.summary) for c in back.compactions] == [(c.at, c.summary) for c in expected.compactions]
