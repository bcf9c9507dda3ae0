"""``harness judge calibrate`` end to end: a probe run's answers judged in process and through ``harness serve``
(the real openevals + ChatOpenAI path, no key), ERROR on a failing judge, bad input refused with nothing written,
and the run report's Judge section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.reference.serve import Fault, serving
from harness.runs.results import append_row
from tests._rows import full_row

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "judge_probe.jsonl"
CASE = "probe-hand-01"
# Per turn of the fixture: vault (recall), billing database (decision, pg-16 over mysql-8), batch size, report format,
# commit prefix. Trial 1 gives wrong answers, three of them worded to fool a keyword judge.
ANSWERS = [
    ["TASK COMPLETE", "6174-BASALT", "pg-16; rejected: mysql-8", "500", "markdown", "I don't know the commit prefix."],
    ["TASK COMPLETE", "0000-QUARTZ", "mysql-8; rejected: pg-16", "not 500", "The report format is not markdown.", "FIN-OPS"],
]
# Two generated cases of the shipped dev set, a continuation and an artifact probe, two trials each: the right answer,
# then a stale status (both judges false) and an extra file (the keyword judge's blind spot: true).
DEV = Path(__file__).resolve().parents[2] / "datasets" / "probes.jsonl"
FILES = "/notes/ledger_01.md\n/notes/ledger_02.md\n/reports/log.md"
GENERATED = {
    "probe-artifact-trail-s7-i0": ["", FILES, FILES + "\n/docs/DOC-001.md"],
    "probe-plan-state-s7-i0": ["", "", "The next step is close-backlog.", "The next step is update-manifests."],
}
# Sorted by id: the artifact trail's two trials, the hand case's ten questions, the plan's two trials.
DETERMINISTIC = [True, False] + [True, True, True, True, False, False, False, False, False, True] + [True, False]
KEYWORD_JUDGE = [True, True] + [True, True, True, True, False, False, True, True, True, True] + [True, False]
# agreement 10/14; judge 11 true of 14, deterministic 7 of 14: chance 11/14*1/2 + 3/14*1/2 = 1/2; (10/14 - 1/2) / (1/2)
KAPPA = 0.4286


def probe_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir(parents=True)
    for trial, answers in enumerate(ANSWERS):
        append_row(
            run / "results.jsonl",
            full_row(case_id=CASE, kind="probe", arm="forced-20", trial=trial, answers=answers),
        )
    for case, (*before, right, wrong) in GENERATED.items():
        for trial, answer in enumerate((right, wrong)):
            row = {"case_id": case, "kind": "probe", "arm": "forced-20", "trial": trial, "answers": [*before, answer]}
            append_row(run / "results.jsonl", full_row(**row))
    return run


def calibrate(run: Path, *extra: str) -> int:
    return main(["judge", "calibrate", str(run), "--datasets", str(FIXTURE), str(DEV), *extra])


def test_the_keyword_stand_in_is_calibrated_and_flagged(tmp_path, capsys):
    run = probe_run(tmp_path)
    assert calibrate(run) == 0
    result = json.loads((run / "judge.json").read_text())
    assert [j["deterministic"] for j in result["judgements"]] == DETERMINISTIC
    assert [j["judge"] for j in result["judgements"]] == KEYWORD_JUDGE
    assert [j["rubric"] for j in result["judgements"]][:3] == ["artifacts", "artifacts", "current_value"]
    assert (result["n"], result["agreement"], result["kappa"], result["threshold"]) == (14, 0.7143, KAPPA, 0.6)
    assert result["flagged"] and result["simulated"] and len(result["interval"]) == 2
    assert {k: (r["n"], r["kappa"]) for k, r in result["by_rubric"].items()} == {
        "current_value": (8, 0.5),  # agreement 6/8: judge 6 true, deterministic 4; chance 6/8*4/8 + 2/8*4/8 = 1/2
        "continuation": (2, 1.0),
        "decision": (2, 0.0),  # the swapped roles fool it: judge true twice
        "artifacts": (2, 0.0),  # the extra file fools it
    }
    usage = result["usage"]
    assert usage["judgements"] == 14 and usage["input_tokens"] > 14 * 100 and usage["cost_usd"] == 0.0
    out = capsys.readouterr().out
    assert "Cohen's kappa 0.43" in out and "n=14" in out and "FLAG: kappa 0.43 is below the threshold 0.6" in out
    assert (
        "  artifacts: kappa 0.00 (none), n=2, agreement 50%; below threshold" in out and f"{usage['input_tokens']:,} input" in out
    )
    assert "forced-20/probe-hand-01/t1/turn3 (current_value): judge true, deterministic false; answer 'not 500'" in out
    first = (run / "judge.json").read_bytes()
    assert calibrate(run, "--fail-below") == 1  # flagged: exit 1 on request
    assert (run / "judge.json").read_bytes() == first  # same run, same judge: byte-identical
    # at a lower threshold the overall kappa passes, and the decision and artifact rubrics (kappa 0) still flag it
    assert calibrate(run, "--min-kappa", "0.3", "--fail-below") == 1
    reason = json.loads((run / "judge.json").read_text())["flag_reason"]
    assert reason == "a rubric's kappa is below the threshold 0.3: decision 0.00, artifacts 0.00"
    assert calibrate(run, "--min-kappa", "0.3") == 0  # flagged, reported, exit 0 without --fail-below


def test_through_harness_serve_the_real_openai_path_gives_the_same_judgements(tmp_path):
    run = probe_run(tmp_path)
    with serving(max_seconds=120) as srv:
        code = calibrate(run, "--judge-model", "openai:reference-judge", "--judge-base-url", srv.url)
        requests = srv.state.stats()["requests"]
    assert code == 0
    result = json.loads((run / "judge.json").read_text())
    assert requests == {"judge": 14}
    assert [j["judge"] for j in result["judgements"]] == KEYWORD_JUDGE
    assert (result["judge_model"], result["simulated"], result["kappa"]) == ("openai:reference-judge", True, KAPPA)
    # the served stand-in's usage fields reach judge.json through ChatOpenAI's usage_metadata (fewer input tokens than
    # in process: the schema travels as response_format, which the server does not count, not as a bound tool)
    assert all(j["usage"]["input_tokens"] > 100 and j["usage"]["output_tokens"] > 0 for j in result["judgements"])
    assert result["usage"]["input_tokens"] == sum(j["usage"]["input_tokens"] for j in result["judgements"])
    assert result["usage"]["cost_usd"] is None  # openai:reference-judge has no list price: no cost, never a guess
    assert result["endpoint"]["settings"]["timeout"] == 120.0 and result["endpoint"]["settings"]["max_retries"] == 6


def test_a_failing_judge_is_error_not_a_verdict_and_leaks_no_key(tmp_path, capsys, monkeypatch):
    secret = "sk-judge-0123456789abcdefSECRET"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    run = probe_run(tmp_path)
    with serving(max_seconds=120, faults=[Fault("auth", count=None, scope="judge")]) as srv:
        code = calibrate(run, "--judge-model", "openai:reference-judge", "--judge-base-url", srv.url)
    assert code == 4
    text = (run / "judge.json").read_text()
    result = json.loads(text)
    assert {j["judge"] for j in result["judgements"]} == {"ERROR"}
    assert result["judgements"][0]["error"]["provider_error"] == {
        **result["judgements"][0]["error"]["provider_error"],
        "status": 401,
        "model": "judge",
    }
    assert (result["n"], result["errors"], result["kappa"], result["flagged"]) == (0, 14, None, True)
    captured = capsys.readouterr()
    assert secret not in text + captured.out + captured.err


def test_a_retried_fault_is_absorbed_by_the_client(tmp_path):
    run = probe_run(tmp_path)
    with serving(max_seconds=120, faults=[Fault("500", count=2, scope="judge")]) as srv:
        code = calibrate(run, "--judge-model", "openai:reference-judge", "--judge-base-url", srv.url)
        statuses = srv.state.stats()["statuses"]
    assert code == 0 and statuses == {"500": 2, "200": 15}  # 14 judgements and the preflight GET /v1/models
    assert json.loads((run / "judge.json").read_text())["kappa"] == KAPPA


@pytest.mark.parametrize(
    ("make_run", "options", "message"),
    [
        (lambda tmp: tmp / "missing", [], "no results.jsonl"),
        (
            lambda tmp: (append_row(tmp / "results.jsonl", full_row(case_id="x", kind="needle", answers=[])), tmp)[1],
            [],
            "no answered probe question",
        ),
        (probe_run, ["--judge-model", "nope:judge"], "unknown provider 'nope'"),
        (probe_run, ["--judge-base-url", "http://127.0.0.1:9/v1"], "apply to a live judge"),
        (probe_run, ["--min-kappa", "0"], "--min-kappa 0.0"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, make_run, options, message):
    run = make_run(tmp_path)
    assert calibrate(run, *options) == 2
    assert message in capsys.readouterr().err
    assert not (run / "judge.json").exists()


def test_the_run_report_shows_kappa_and_the_flag(tmp_path):
    from harness.report._document import Document
    from harness.report.facts_report import judge_section

    run = probe_run(tmp_path)
    doc = Document("Run")
    judge_section(doc, run)
    assert "## Judge" not in doc.markdown()  # not calibrated: no section
    calibrate(run)
    judge_section(doc, run)
    text = doc.markdown()
    assert "## Judge" in text and "Cohen's kappa 0.43 (95 % bootstrap [" in text and "n=14" in text
    (artifacts,) = [line for line in text.splitlines() if line.startswith("| artifacts ")]  # the per-rubric table
    assert [c.strip() for c in artifacts.split("|")[2:-1]] == ["2", "0", "50%", "0", "none", "below threshold"]
    assert "judge calls: 14 judgements" in text and "cost $0.0000 (prices as of" in text
    assert "**FLAG:** kappa 0.43 is below the threshold 0.6" in text


def test_an_experiment_directory_is_calibrated_over_its_cells_per_arm_and_threshold(tmp_path):
    exp = tmp_path / "exp"
    exp.mkdir()
    for arm in ("typed", "minimal"):
        for trial, answers in enumerate(ANSWERS):
            row = {"case_id": CASE, "kind": "probe", "arm": arm, "threshold": "20%", "trial": trial, "answers": answers}
            append_row(exp / "cells.jsonl", full_row(**row, cell_id=f"{arm}|20%|{CASE}|{trial}"))
    assert calibrate(exp) == 0
    result = json.loads((exp / "judge.json").read_text())
    assert result["n"] == 20 and result["kappa"] == 0.4  # the same judgements twice: the same kappa
    assert {j["id"].split("/")[0] for j in result["judgements"]} == {"typed@20%", "minimal@20%"}
