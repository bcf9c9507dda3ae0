"""Each session format read from a small file written here, and the shared real mini-swe-agent session: the messages
each maps to, the compactions it records, what it keeps out of the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.sessions import FORMATS, read_session
from harness.sessions.check import check_session

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
SUMMARY = (
    "You are in the middle of a conversation that has been summarized.\n\nThe full conversation history has been saved to "
    "/conversation_history/t.md should you need to refer back to it for details.\n\nA condensed summary follows:\n\n"
    "<summary>\nThe user wants the bug in separable.py fixed.\n</summary>"
)
CALL = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
EXPECTED = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
    {"role": "assistant", "content": "Looking.", "tool_calls": [CALL]},
    {"role": "tool", "content": "astropy/modeling/separable.py", "tool_call_id": "c1"},
    {"role": "assistant", "content": "Found it."},
]


def _write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_every_format_is_registered_with_a_reader_that_imports() -> None:
    import importlib

    assert {"openai", "anthropic", "langchain", "atif", "mini-swe-agent"} <= set(FORMATS)  # and the sources' readers
    for module_function, _ in FORMATS.values():
        module, _, function = module_function.partition(":")
        assert callable(getattr(importlib.import_module(module), function))


@pytest.mark.parametrize("shape", ["array", "jsonl", "object"])
def test_openai_messages_as_an_array_jsonl_or_an_object(tmp_path: Path, shape: str) -> None:
    raw = [
        {"role": "developer", "content": "You are a coding agent."},
        {"role": "user", "content": [{"type": "text", "text": "Fix the bug in separable.py; never touch setup.py."}]},
        {"role": "assistant", "content": "Looking.", "tool_calls": [{**CALL, "index": 0}], "refusal": None},
        {"role": "tool", "name": "bash", "tool_call_id": "c1", "content": "astropy/modeling/separable.py"},
        {"role": "user", "content": SUMMARY},
        {"role": "assistant", "content": "Found it."},
    ]
    data = {"array": raw, "object": {"messages": raw}, "jsonl": "".join(json.dumps(m) + "\n" for m in raw)}[shape]
    session = read_session("openai", _write(tmp_path, "s.json", data))
    assert list(session.messages) == EXPECTED
    ((compaction),) = session.compactions
    assert (compaction.at, compaction.kind) == (4, "deepagents-summary")
    assert compaction.summary == "The user wants the bug in separable.py fixed."


def test_anthropic_blocks_become_tool_calls_and_results_thinking_and_compaction_stay_out(tmp_path: Path) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "You are a coding agent."}],
        "messages": [
            {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "the file first", "signature": "x"},
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "c1", "name": "bash", "input": {"command": "ls"}},
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "astropy/modeling/separable.py"}],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "compaction", "content": "The bug is in separable.py."},
                    {"type": "text", "text": "Found it."},
                ],
            },
        ],
    }
    session = read_session("anthropic", _write(tmp_path, "a.json", body))
    assert list(session.messages) == EXPECTED
    assert [(c.at, c.kind, c.summary) for c in session.compactions] == [
        (4, "anthropic-compaction", "The bug is in separable.py.")
    ]
    assert session.meta["thinking_blocks"] == 1 and session.meta["model"] == "claude-sonnet-4-5"


def test_a_failed_anthropic_compaction_is_no_compaction_and_is_counted(tmp_path: Path) -> None:
    """A ``compaction`` block with null content: the compaction failed and the API treats the block as a no-op, so
    nothing was compacted there (a cut there would replay a compaction that never happened); it is counted."""
    body = [
        {"role": "user", "content": "Fix the bug in separable.py."},
        {"role": "assistant", "content": [{"type": "compaction", "content": None}, {"type": "text", "text": "Looking."}]},
        {"role": "user", "content": "Go on."},
        {"role": "assistant", "content": [{"type": "compaction", "content": "The bug is in separable.py."}]},
    ]
    session = read_session("anthropic", _write(tmp_path, "a.json", body))
    assert [m["content"] for m in session.messages] == ["Fix the bug in separable.py.", "Looking.", "Go on."]
    assert [(c.at, c.kind, c.summary) for c in session.compactions] == [
        (3, "anthropic-compaction", "The bug is in separable.py.")
    ]
    assert session.meta["failed_compactions"] == 1


@pytest.mark.parametrize("shape", ["messages_to_dict", "convert_to_messages"])
def test_langchain_dicts_read_by_langchain_and_a_deepagents_summary_is_a_compaction(tmp_path: Path, shape: str) -> None:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage, messages_to_dict

    summary = HumanMessage(SUMMARY, additional_kwargs={"lc_source": "summarization"})
    messages = [
        SystemMessage("You are a coding agent."),
        HumanMessage("Fix the bug in separable.py; never touch setup.py."),
        AIMessage("Looking.", tool_calls=[{"id": "c1", "name": "bash", "args": {"command": "ls"}}]),
        ToolMessage("astropy/modeling/separable.py", tool_call_id="c1", name="bash"),
        summary,
        AIMessage("Found it."),
    ]
    if shape == "messages_to_dict":
        data: list = messages_to_dict(messages)
    else:
        data = [
            {"type": "system", "content": "You are a coding agent."},
            {"type": "human", "content": "Fix the bug in separable.py; never touch setup.py."},
            {"role": "assistant", "content": "Looking.", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "c1", "content": "astropy/modeling/separable.py"},
            {"role": "user", "content": SUMMARY},
            {"type": "ai", "content": "Found it."},
        ]
    session = read_session("langchain", _write(tmp_path, "l.json", data))
    assert list(session.messages) == EXPECTED
    assert [(c.at, c.kind) for c in session.compactions] == [(4, "deepagents-summary")]


def _atif(steps: list[dict], version: str = "ATIF-v1.4", **root: object) -> dict:
    return {
        "schema_version": version,
        "session_id": "s",
        "agent": {"name": "terminus-2", "version": "1", "model_name": "m"},
        "steps": steps,
        **root,
    }


ATIF_STEPS = [
    {"step_id": 1, "source": "system", "message": "You are a coding agent."},
    {"step_id": 2, "source": "user", "message": "Fix the bug in separable.py; never touch setup.py."},
    {
        "step_id": 3,
        "source": "agent",
        "message": "Looking.",
        "reasoning_content": "the file first",
        "tool_calls": [{"tool_call_id": "c1", "function_name": "bash", "arguments": {"command": "ls"}}],
        "observation": {"results": [{"source_call_id": "c1", "content": "astropy/modeling/separable.py"}]},
        "metrics": {"prompt_tokens": 120, "completion_tokens": 9},
    },
    {"step_id": 4, "source": "agent", "message": "", "metrics": {"prompt_tokens": 130}},
    {"step_id": 5, "source": "system", "message": "The bug is in separable.py.", "extra": {"context_management": {}}},
    {"step_id": 6, "source": "agent", "message": "Found it."},
]


@pytest.mark.parametrize("version", ["ATIF-v1.4", "ATIF-v1.7"])
def test_atif_steps_pair_results_with_calls_and_a_compaction_step_is_not_a_message(tmp_path: Path, version: str) -> None:
    session = read_session("atif", _write(tmp_path, "trajectory.json", _atif(ATIF_STEPS, version)))
    assert list(session.messages) == EXPECTED
    assert [(c.at, c.kind, c.summary) for c in session.compactions] == [(4, "atif-step", "The bug is in separable.py.")]
    assert session.meta["skipped_steps"] == 1 and session.meta["reasoning_steps"] == 1 and session.meta["model"] == "m"


def test_an_atif_trajectory_continued_in_another_file_ended_in_a_compaction(tmp_path: Path) -> None:
    doc = _atif(ATIF_STEPS[:4], continued_trajectory_ref="trajectory.cont-1.json")
    session = read_session("atif", _write(tmp_path, "trajectory.json", doc))
    assert [(c.at, c.kind) for c in session.compactions] == [(4, "atif-continuation")]


def test_mini_swe_agent_tool_call_format_reads_content_only_and_drops_the_exit_message(tmp_path: Path) -> None:
    traj = {
        "trajectory_format": "mini-swe-agent-1.1",
        "info": {"exit_status": "Submitted", "config": {"model": {"model_name": "deepseek/deepseek-chat"}}},
        "messages": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
            {"role": "assistant", "content": "Looking.", "tool_calls": [CALL], "extra": {"response": {}}},
            {"role": "tool", "tool_call_id": "c1", "content": "astropy/modeling/separable.py", "extra": {"raw_output": "x"}},
            {"role": "assistant", "content": "Found it."},
            {"role": "exit", "content": "diff --git a/x b/x", "extra": {"exit_status": "Submitted"}},
        ],
    }
    session = read_session("mini-swe-agent", _write(tmp_path, "x.traj.json", traj))
    assert list(session.messages) == EXPECTED
    assert session.meta["exit_status"] == "Submitted" and session.meta["model"] == "deepseek/deepseek-chat"


def test_mini_swe_agent_text_actions_become_bash_calls_and_their_outputs_results(tmp_path: Path) -> None:
    traj = {
        "trajectory_format": "mini-swe-agent-1",
        "messages": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "Fix the bug in separable.py; never touch setup.py."},
            {"role": "assistant", "content": "THOUGHT: list the files.\n\n```bash\nls\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\nastropy/modeling/separable.py\n</output>"},
            {"role": "assistant", "content": "Two at once:\n```bash\nls\n```\n```bash\npwd\n```"},
            {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks."},
        ],
    }
    session = read_session("mini-swe-agent", _write(tmp_path, "x.traj.json", traj))
    call = {"id": "bash-2", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    assert session.messages[2] == {"role": "assistant", "content": "THOUGHT: list the files.", "tool_calls": [call]}
    assert session.messages[3]["role"] == "tool" and session.messages[3]["tool_call_id"] == "bash-2"
    assert [m["role"] for m in session.messages[4:]] == ["assistant", "user"]  # several blocks: kept as text


@pytest.mark.skipif(not SHARED.exists(), reason=f"the shared recorded session is not here ({SHARED.name}, ../shared/sessions/)")
def test_the_shared_real_mini_swe_agent_session_reads_and_checks() -> None:
    session = read_session("mini-swe-agent", str(SHARED))
    size = check_session(session)
    roles = [m["role"] for m in session.messages]
    assert size.messages == 129 and roles[:2] == ["system", "user"]  # 130 recorded: the exit message is not one
    assert roles.count("assistant") == 64 and roles.count("tool") == 63
    assert len(size.open_calls) == 1  # its last call submits the patch: never answered
    assert "separability_matrix" in session.messages[1]["content"]
    assert size.tokens > 15_000 and session.compactions == ()


BAD_READS = [
    # (format, document, the field the error names, words in it)
    ("atif", _atif(ATIF_STEPS, "ATIF-v2.0"), "schema_version", "major version 2 is not read"),
    ("atif", {"steps": []}, "schema_version", "expected 'ATIF-v1.x'"),
    (
        "atif",
        _atif(
            [
                {
                    "step_id": 1,
                    "source": "agent",
                    "message": "x",
                    "observation": {"results": [{"source_call_id": "nope", "content": "y"}]},
                }
            ]
        ),
        "steps[0].observation.results[0].source_call_id",
        "'nope' answers no tool call",
    ),
    ("atif", _atif([{"step_id": 1, "source": "robot", "message": "x"}]), "steps[0].source", "Input should be"),
    (
        "anthropic",
        [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "y"}]}],
        "messages[0].content[0].tool_use_id",
        "answers no earlier tool_use",
    ),
    ("openai", [{"role": "robot", "content": "x"}], "messages[0].role", "expected one of"),
    (
        "openai",
        [{"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{"}}]}],
        "messages[0].tool_calls[0].function.arguments",
        "not valid JSON",
    ),
    (
        "mini-swe-agent",
        {"trajectory_format": "mini-swe-agent-9", "messages": [{"role": "user", "content": "x"}]},
        "trajectory_format",
        "expected",
    ),
    ("langchain", [{"type": "robot", "data": {"content": "x"}}], "messages[0]", "LangChain cannot read it"),
]


@pytest.mark.parametrize(("fmt", "doc", "field", "words"), BAD_READS, ids=[f"{b[0]}-{b[2]}" for b in BAD_READS])
def test_a_bad_session_is_refused_naming_the_file_and_field(
    tmp_path: Path, fmt: str, doc: object, field: str, words: str
) -> None:
    from harness.errors import DatasetError

    path = _write(tmp_path, "bad.json", doc)
    with pytest.raises(DatasetError) as info:
        check_session(read_session(fmt, path))
    assert info.value.path == path and info.value.field == field and words in info.value.problem, str(info.value)


def test_an_unknown_atif_major_version_exits_2_through_the_command_and_writes_nothing(tmp_path: Path, capsys) -> None:
    from harness.cli.main import main

    path = _write(tmp_path, "trajectory.json", _atif(ATIF_STEPS, "ATIF-v2.0"))
    assert main(["import", "atif", path, "--out", str(tmp_path / "cases"), "--cut", "2"]) == 2
    assert "field 'schema_version': ATIF-v2.0: major version 2" in capsys.readouterr().err
    assert not (tmp_path / "cases").exists()
