"""`harness import`: the cut, the probes file, the two files it writes (loaded back as a session case), redaction,
what it prints; and every bad input refused with exit 2, naming where, with nothing written and earlier cases intact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli.main import main
from harness.errors import EXIT_BAD_INPUT, EXIT_OK
from harness.scenarios.schema import load_scenarios
from harness.sessions.model import CONTINUE_TASK

SUMMARY = "Here is a summary of the conversation to date:\n\nThe user wants the bug in separable.py fixed."


def _call(n: int) -> dict:
    return {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": f"step {n}"})}}


def _session(steps: int = 6, summary_at: int | None = None) -> list[dict]:
    """system, user, then ``steps`` (assistant call, tool result) pairs; a deepagents summary after pair ``summary_at``."""
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
    ]
    for n in range(steps):
        messages.append({"role": "assistant", "content": f"Step {n}.", "tool_calls": [_call(n)]})
        messages.append({"role": "tool", "tool_call_id": f"c{n}", "content": f"output of step {n} " + "x" * 200})
        if summary_at == n:
            messages.append({"role": "user", "content": SUMMARY})
    return messages


PROBES = [
    {"question": "Which file holds the bug?", "expected": ["separable.py"], "type": "path", "message": 1},
    {
        "question": "Which file must not be touched?",
        "expected": "setup.py",
        "type": "constraint",
        "message": 1,
        "stale": ["separable.py"],
    },
]


def _files(tmp_path: Path, messages: list[dict] | str, probes: list[dict] | str = PROBES) -> tuple[str, str]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    source, probe_file = tmp_path / "session.jsonl", tmp_path / "probes.jsonl"
    source.write_text(messages if isinstance(messages, str) else "".join(json.dumps(m) + "\n" for m in messages))
    probe_file.write_text(probes if isinstance(probes, str) else "".join(json.dumps(p) + "\n" for p in probes))
    return str(source), str(probe_file)


def _import(source: str, out: Path, *extra: str) -> int:
    return main(["import", "openai", source, "--out", str(out), *extra])


def test_a_session_is_cut_before_its_first_compaction_and_written_as_a_case_that_loads(tmp_path: Path, capsys) -> None:
    source, probes = _files(tmp_path, _session(6, summary_at=3))
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes) == EXIT_OK
    printed = capsys.readouterr().out
    assert "14 messages" in printed and "compactions recorded at: 10" in printed
    assert "cut just before its first compaction (message 10) (the default" in printed and "probes: 2 from" in printed
    (case,) = load_scenarios([out / "sessions.jsonl"])
    assert case.id == "session" and case.kind == "session" and case.task == CONTINUE_TASK
    assert case.session is not None and (case.session.cut, case.session.cut_by, case.session.messages) == (10, "compaction", 14)
    assert case.session.compactions == (10,) and case.session.format == "openai"
    assert len(case.conversation) == 10 and case.followups == ("Which file holds the bug?", "Which file must not be touched?")
    assert case.probes[1].expected == ("setup.py",) and case.probes[1].stale == ("separable.py",) and case.probes[0].id == "p1"


@pytest.mark.parametrize(
    ("cut", "at", "by"),
    [("6", 6, "index"), ("5", 4, "index"), ("0.5", 8, "share")],  # 5 would split call 1 from its result: moved back to 4
)
def test_a_cut_by_index_or_token_share_never_leaves_a_call_unanswered(tmp_path: Path, cut: str, at: int, by: str) -> None:
    source, probes = _files(tmp_path, _session(6))
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes, "--cut", cut, "--id", "s1") == EXIT_OK
    (case,) = load_scenarios([out / "sessions.jsonl"])
    assert (case.session.cut, case.session.cut_by) == (at, by)
    assert case.conversation[-1]["role"] != "assistant" or not case.conversation[-1].get("tool_calls")


def test_without_a_compaction_the_default_cut_is_a_token_share_and_it_says_so(tmp_path: Path, capsys) -> None:
    source, probes = _files(tmp_path, _session(6))
    assert _import(source, tmp_path / "cases", "--probes", probes) == EXIT_OK
    assert "at 0.6 of its" in capsys.readouterr().out


def test_a_second_session_is_appended_and_the_first_kept_byte_for_byte(tmp_path: Path) -> None:
    source, probes = _files(tmp_path, _session(6))
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes, "--id", "one") == EXIT_OK
    first = (out / "sessions.jsonl").read_bytes()
    assert _import(source, out, "--probes", probes, "--id", "two") == EXIT_OK
    assert (out / "sessions.jsonl").read_bytes().startswith(first)
    assert [c.id for c in load_scenarios([out / "sessions.jsonl"])] == ["one", "two"]


def test_a_key_in_a_tool_result_is_redacted_before_anything_is_written(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("ACME_API_KEY", "acme-secret-value-1234567")
    messages = _session(3)
    messages[3]["content"] = "export ACME_API_KEY=acme-secret-value-1234567 and sk-abcdefghijklmnop1234"
    source, probes = _files(tmp_path, messages)
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes, "--cut", "6") == EXIT_OK
    written = (out / "session.jsonl").read_text() + (out / "sessions.jsonl").read_text()
    assert "acme-secret-value" not in written and "sk-abcdefghijklmnop" not in written and "[REDACTED]" in written


def test_probes_from_a_yaml_file(tmp_path: Path) -> None:
    source, _ = _files(tmp_path, _session(3))
    probes = tmp_path / "probes.yaml"
    probes.write_text(
        "- question: Which file holds the bug?\n  expected: separable.py\n  type: path\n  message: 1\n  id: bug-file\n"
    )
    assert _import(source, tmp_path / "cases", "--probes", str(probes), "--cut", "4") == EXIT_OK
    (case,) = load_scenarios([tmp_path / "cases" / "sessions.jsonl"])
    assert case.probes[0].id == "bug-file" and case.probes[0].origin == "user"


def test_without_probes_they_are_generated_or_the_command_says_none_could_be(tmp_path: Path, capsys) -> None:
    source, _ = _files(tmp_path, _session(3))
    code = _import(source, tmp_path / "cases", "--cut", "4")
    assert code == EXIT_BAD_INPUT and "--probes" in capsys.readouterr().err
    assert not (tmp_path / "cases").exists()
    shared = Path(__file__).resolve().parents[2] / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
    if not shared.is_file():
        pytest.skip(f"the shared recorded session is not here ({shared.name}, ../shared/sessions/)")
    assert main(["import", "mini-swe-agent", str(shared), "--out", str(tmp_path / "swe"), "--cut", "100"]) == EXIT_OK
    (case,) = load_scenarios([tmp_path / "swe" / "sessions.jsonl"])
    assert case.probes and {p.origin for p in case.probes} == {"generated"}
    assert all(p.message < 100 for p in case.probes)


BAD = [
    # (what, session file text or messages, probes, options, words in the error)
    ("truncated JSON", '[{"role": "user", "content": "Fix it"}, {"role": "assis', PROBES, [], "invalid JSON"),
    (
        "a tool result with no call",
        [{"role": "user", "content": "Fix it"}, {"role": "tool", "tool_call_id": "nope", "content": "x"}],
        PROBES,
        [],
        "messages[1].tool_call_id",
    ),
    ("a cut past the end", _session(3), PROBES, ["--cut", "99"], "past the session's end (8 messages)"),
    ("a cut share out of range", _session(3), PROBES, ["--cut", "1.5"], "between 0 and 1"),
    ("a compaction the session lacks", _session(3), PROBES, ["--cut", "first-compaction"], "recorded no compaction"),
    ("a probe past the cut", _session(3), [{**PROBES[0], "message": 6}], ["--cut", "4"], "not before the cut"),
    (
        "a probe of an unknown type",
        _session(3),
        [{**PROBES[0], "type": "vibe"}],
        ["--cut", "4"],
        "probes.jsonl: row 1: field 'type'",
    ),
    (
        "a probe with no question",
        _session(3),
        [{"expected": ["x"], "type": "path", "message": 1}],
        ["--cut", "4"],
        "field 'question'",
    ),
    ("a bad id", _session(3), PROBES, ["--id", "Bad Id"], "--id 'Bad Id'"),
]


@pytest.mark.parametrize(("what", "messages", "probes", "options", "words"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_exits_2_naming_where_and_writes_nothing(
    tmp_path: Path, capsys, what, messages, probes, options, words
) -> None:
    source, probe_file = _files(tmp_path / "bad", messages, probes)
    out = tmp_path / "cases"
    earlier, earlier_probes = _files(tmp_path / "earlier", _session(3))
    assert _import(earlier, out, "--probes", earlier_probes, "--id", "earlier", "--cut", "4") == EXIT_OK
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert _import(source, out, "--probes", probe_file, *options) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert words in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing written, the earlier case intact


def test_non_utf8_is_refused_naming_the_line(tmp_path: Path, capsys) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(b'{"role": "user", "content": "Fix it"}\n{"role": "user", "content": "caf\xe9"}\n')
    _, probes = _files(tmp_path / "p", _session(3))
    assert _import(str(source), tmp_path / "cases", "--probes", probes) == EXIT_BAD_INPUT
    assert "s.jsonl: row 2: not UTF-8" in capsys.readouterr().err
    assert not (tmp_path / "cases").exists()


def test_an_id_already_in_the_file_is_refused_not_overwritten(tmp_path: Path, capsys) -> None:
    source, probes = _files(tmp_path, _session(3))
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes, "--cut", "4") == EXIT_OK
    before = (out / "sessions.jsonl").read_bytes(), (out / "session.jsonl").read_bytes()
    assert _import(source, out, "--probes", probes, "--cut", "6") == EXIT_BAD_INPUT
    assert "already a case" in capsys.readouterr().err
    assert ((out / "sessions.jsonl").read_bytes(), (out / "session.jsonl").read_bytes()) == before


def test_the_whole_file_must_load_before_it_is_replaced_and_a_failed_import_leaves_no_conversation(
    tmp_path: Path, capsys
) -> None:
    source, probes = _files(tmp_path, _session(3))
    out = tmp_path / "cases"
    out.mkdir()
    broken = '{"id": "old", "kind": "session", "description": "x", "task": "t"}\n'  # an earlier row that cannot load
    (out / "sessions.jsonl").write_text(broken)
    assert _import(source, out, "--probes", probes, "--cut", "4") == EXIT_BAD_INPUT
    assert "sessions.jsonl" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["sessions.jsonl"] and (out / "sessions.jsonl").read_text() == broken


def test_prose_probes_import_with_one_warning_that_the_case_needs_a_live_model(tmp_path: Path, capsys) -> None:
    from harness.suites.execute import NotRun, Settings, prepared
    from harness.task_format import render_question

    source, probes = _files(tmp_path, _session(6))
    out = tmp_path / "cases"
    assert _import(source, out, "--probes", probes, "--cut", "6", "--id", "prose") == EXIT_OK
    printed = capsys.readouterr()
    (warning,) = printed.err.splitlines()
    assert warning.startswith("warning: offline runs skip case 'prose'; it needs a live model: 2 of its 2 probe(s)")
    (case,) = load_scenarios([out / "sessions.jsonl"])
    with pytest.raises(NotRun) as skipped:  # an offline run of the session eval skips it with the same reason
        prepared("session", case, Settings.offline(), None)
    assert warning == f"warning: offline runs skip case 'prose'; it {str(skipped.value).removeprefix('prose: ')}"
    assert "warning" not in printed.out
    grammar = tmp_path / "grammar.jsonl"  # a probe in the grammar the reference agent answers: no warning
    grammar.write_text(json.dumps({**PROBES[0], "question": render_question("bug file")}) + "\n")
    assert _import(source, out, "--probes", str(grammar), "--cut", "6", "--id", "grammar") == EXIT_OK
    assert capsys.readouterr().err == ""
    rows = [json.loads(line) for line in (out / "sessions.jsonl").read_text().splitlines()]
    assert rows[0].keys() == rows[1].keys()  # the warning is printed, never written: the case is valid as it is
