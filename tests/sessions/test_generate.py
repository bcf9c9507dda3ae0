"""Probes generated from a session's messages before its cut: one of each type from a hand-written session, overrides
as stale answers, the caps, the recent tail left out, determinism, a row that loads; and on the shared real session."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from harness.scenarios.schema import load_scenarios
from harness.session_format import BLANK
from harness.sessions.generate import MAX_PROBES, PER_TYPE, RECENT_MESSAGES, generate_probes
from tests._probe_sessions import FILLER, SESSION, bash, rc, result, shared_prefix


def _table(messages: list[dict]) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], int]]:
    return [(p.id, p.question, p.expected, p.stale, p.message) for p in generate_probes(messages)]


def test_a_hand_written_session_gives_one_probe_per_fact_each_with_the_message_that_states_it():
    assert _table(SESSION) == [
        (
            "constraint-1",
            f'Question: Fill in the blank in what the user told you: "Do not {BLANK} the tests under tests/.". '
            "Reply with the missing part only.",
            ("modify",),
            (),
            1,
        ),
        (
            "constraint-2",
            f'Question: Fill in the blank in what the user told you: "You must {BLANK} the public API unchanged.". '
            "Reply with the missing part only.",
            ("keep",),
            (),
            1,
        ),
        (
            "path-1",
            "Question: Where is the file `lexer_tables.py` you came across? Reply with its full path only.",
            ("./src/legacy/lexer_tables.py", "src/legacy/lexer_tables.py"),
            (),
            3,
        ),
        (
            "command-1",
            "Question: What exit code did the command `cd /repo && find . -name '*.py' -path '*parser*'` return? "
            "Reply with the number only.",
            ("0",),
            (),
            3,
        ),
        (
            "command-2",
            "Question: What exit code did the command `cd /repo && python -c 'import parser'` return? Reply with the number only.",
            ("1",),
            (),
            5,
        ),
        (
            "error-1",
            f"Question: Fill in the blank in the error you met: \"ModuleNotFoundError: No module named '{BLANK}'\". "
            "Reply with the missing part only.",
            ("tokenizer_v2",),
            (),
            5,
        ),
        (
            "artifact-1",
            "Question: Which file did you write the text `import tokenizer_v3 as tokenizer_v2` into? Reply with its path only.",
            ("src/parser/parser_core.py", "/repo/src/parser/parser_core.py"),
            (),
            7,
        ),
        (
            "command-3",
            "Question: What exit code did the command `cd /repo && sed -i 's/import tokenizer_v2/import tokenizer_v3 as "
            "tokenizer_v2/' src/parser/parser_core.py` return? Reply with the number only.",
            ("0",),
            (),
            8,
        ),
        (
            "artifact-2",
            "Question: Which file did you write the text `Switched the parser to tokenizer v3` into? Reply with its path only.",
            ("/repo/notes/fix.md",),
            (),
            9,
        ),
        ("decision-1", "Question: What is the build number? Reply with the value only.", ("4420",), ("4417",), 11),
        ("value-1", "Question: What is the listen port? Reply with the value only.", ("8080",), (), 11),
    ]
    assert {p.origin for p in generate_probes(SESSION)} == {"generated"}
    assert {p.type for p in generate_probes(SESSION)} == {
        "artifact",
        "path",
        "command",
        "error",
        "constraint",
        "decision",
        "value",
    }


def test_the_system_prompt_is_never_a_source_and_facts_stated_twice_are_not_asked():
    questions = " ".join(p.question for p in generate_probes(SESSION))
    assert "sudo" not in questions  # "Never use sudo" is the system prompt's: no compaction drops it
    assert "parser_core.py` you came across" not in questions  # named in two messages: removing one would not lose it
    assert "fix.md` you came across" not in questions


def test_an_error_met_twice_and_a_constraint_the_agent_repeats_are_not_asked():
    boom = rc(1, "KeyError: 'ledger_id'")
    twice = [*SESSION[:12], bash("k1", "make a"), result("k1", boom), bash("k2", "make b"), result("k2", boom), *FILLER]
    assert not [p for p in generate_probes(twice) if p.type == "error" and p.expected == ("ledger_id",)]
    repeated = [*SESSION[:12], {"role": "assistant", "content": "Noted: Do not modify the tests under tests/."}, *FILLER]
    assert [p.expected for p in generate_probes(repeated) if p.type == "constraint"] == [("keep",)]


def test_the_same_messages_give_the_same_probes():
    first = json.dumps([dataclasses.asdict(p) for p in generate_probes(SESSION)])
    assert json.dumps([dataclasses.asdict(p) for p in generate_probes(json.loads(json.dumps(SESSION)))]) == first


def test_a_fact_in_the_recent_tail_or_repeated_there_is_not_asked():
    tail = [
        {"role": "user", "content": "Never push to the main branch directly."},
        {"role": "assistant", "content": "Understood; src/parser/parser_core.py is the file I changed."},
        *FILLER[: RECENT_MESSAGES - 2],
    ]
    probes = generate_probes([*SESSION[: -len(FILLER)], *FILLER[:4], *tail])
    questions = " ".join(p.question for p in probes)
    assert "push" not in questions  # stated in the tail a compaction keeps
    assert "tokenizer_v3 as tokenizer_v2` into" not in questions  # its file is named again in the tail
    assert "Switched the parser to tokenizer v3" in questions


def test_at_most_per_type_the_earliest_first_and_at_most_max_probes_in_the_order_they_are_stated():
    messages: list[dict] = [{"role": "user", "content": " ".join(f"You must never drop table t{k}_x now." for k in range(5))}]
    for k in range(5):
        messages += [bash(f"c{k}", f"cd /w && echo 'setting {k} of the run' > conf/s{k}.ini"), result(f"c{k}", rc(0))]
        messages += [
            bash(f"f{k}", f"ls /w/d{k}"),
            result(f"f{k}", rc(2, f"/w/d{k}/table_{k}.csv\nKeyError: 'column_{k}' in frame f{k}")),
        ]
    probes = generate_probes([*messages, *FILLER])
    by_type: dict[str, list[int]] = {}
    for p in probes:
        by_type.setdefault(p.type, []).append(p.message)
    assert len(probes) == MAX_PROBES and all(len(v) <= PER_TYPE for v in by_type.values())
    assert [p.message for p in probes] == sorted(p.message for p in probes)
    assert by_type["constraint"] == [0] * PER_TYPE
    assert [p.expected for p in probes if p.type == "constraint"] == [("drop",)] * PER_TYPE
    assert by_type["command"] == [4, 8, 12]  # failing commands, the earliest first
    assert max(p.message for p in probes) < 20  # the latest facts are the ones left out


def test_generated_probes_make_a_session_row_that_loads(tmp_path: Path):
    probes = generate_probes(SESSION)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(m) + "\n" for m in SESSION))
    row = {
        "id": "s1",
        "kind": "session",
        "description": "a hand-written session",
        "task": "Continue the task where you left off.",
        "conversation": "s.jsonl",
        "session": {
            "format": "openai",
            "source": "s.json",
            "messages": 30,
            "tokens": 900,
            "cut": len(SESSION),
            "cut_by": "index",
        },
        "probes": [{k: v for k, v in dataclasses.asdict(p).items() if v != ()} for p in probes],  # a row refuses "stale": []
    }
    (tmp_path / "sessions.jsonl").write_text(json.dumps(row) + "\n")
    (case,) = load_scenarios([tmp_path / "sessions.jsonl"])
    assert case.followups == tuple(p.question for p in probes) and case.probes == tuple(probes)


def test_the_shared_real_session_gives_probes_of_four_types_before_its_last_messages():
    prefix = shared_prefix()
    probes = generate_probes(prefix)
    assert {p.type for p in probes} >= {"artifact", "path", "command", "constraint"}
    assert all(p.message < len(prefix) - RECENT_MESSAGES for p in probes)
    artifact = next(p for p in probes if p.type == "artifact")
    assert artifact.expected == ("astropy/modeling/separable.py", "/testbed/astropy/modeling/separable.py")
    assert "cright[-right.shape[0]:, -right.shape[1]:] = right" in artifact.question
    assert generate_probes(shared_prefix()) == probes
