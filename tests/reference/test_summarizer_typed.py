"""The reference summarizer and typed facts: a fact type is kept only under a heading that asks for it, an updated fact
keeps its latest value marked with the one it replaced, carried facts are lost round by round unless the prompt
anchors, artifacts carry what was done to them, and the three seeded faults are options of the same code."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from harness.compaction.prompts import deepagents_default_prompt
from harness.compaction.variants import make_config
from harness.reference import summarizer
from harness.reference.summarizer import fact_types, summarize, typed_facts
from harness.suites.faults import SEEDED_FAULTS as TYPED_FACT_FAULTS
from harness.task_format import Statement, fact_sentence
from tests._messages import TASK, call, summary_message, summary_prompt

SENTENCES = {
    "constraint": fact_sentence("constraint", "maximum batch size", "500"),
    "decision": fact_sentence("decision", "billing database", "mysql-8"),
    "fact": fact_sentence("fact", "access code for the north vault", "6174-BASALT"),
    "goal_state": fact_sentence("goal_state", "next step", "reconcile-ledgers"),
    "preference": fact_sentence("preference", "report format", "markdown"),
    "rule": fact_sentence("rule", "commit prefix", "FIN"),
}
CHANGED = fact_sentence("decision", "billing database", "pg-16", replaces="mysql-8")
ALL_TYPES = (
    "Write these sections.\n## SESSION INTENT\n## PROGRESS\n## DECISIONS\n## CONSTRAINTS AND RULES\n## KEY FACTS\n"
    "## USER PREFERENCES\n## ARTIFACTS\n## CURRENT STATE\n## NEXT STEPS\n<messages>\n{messages}\n</messages>"
)
LINES = {kind: f"- {sentence}" for kind, sentence in SENTENCES.items()}
"""A typed fact as the summary writes it; the bare sentence may also be in the quoted request or a progress line."""
ANCHOR = "If an earlier summary is among the messages, keep its items word for word and update it.\n"


def _history(*, changed: bool = False) -> list:
    """Every fact type stated once, in each place a summarizer sees: a user turn, an assistant's text, tool results."""
    messages = [
        HumanMessage(f"{TASK}\n{SENTENCES['constraint']} {SENTENCES['preference']}"),
        AIMessage(f"Noted. {SENTENCES['decision']} {SENTENCES['goal_state']}"),
        *call("fetch_document", {"doc_id": "DOC-001"}, f"DOC-001: memo\n{SENTENCES['fact']}\n{SENTENCES['rule']}", "c1"),
    ]
    if changed:
        messages += call("fetch_document", {"doc_id": "DOC-002"}, f"DOC-002: minutes\n{CHANGED}", "c2")
    return messages


def _section(text: str, heading: str) -> str:
    """The body of ``## heading`` in a summary."""
    body = text.split(f"## {heading}\n", 1)[1]
    return body.split("\n## ", 1)[0].strip()


# -- which heading keeps which type ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("heading", "types"),
    [
        ("DECISIONS AND CONSTRAINTS", ("decision", "constraint")),
        ("CONSTRAINTS AND RULES", ("constraint", "rule")),
        ("KEY FACTS", ("fact",)),
        ("Important details", ("fact",)),
        ("USER PREFERENCES", ("preference",)),
        ("Standing instructions", ("rule",)),
        ("NEXT STEPS", ("goal_state",)),
        ("CURRENT STATE", ("goal_state",)),
        ("ARTIFACTS", ()),  # "fact" inside a word is not the word
        ("SESSION INTENT", ()),
        ("SUMMARY", ()),
    ],
)
def test_a_heading_keeps_the_types_whose_words_it_has(heading, types):
    assert fact_types(heading) == types


@pytest.mark.parametrize("kind", sorted(SENTENCES))
def test_each_type_is_kept_under_its_heading_and_nowhere_without_one(kind):
    heading = {
        "constraint": "CONSTRAINTS",
        "decision": "DECISIONS",
        "fact": "KEY FACTS",
        "goal_state": "CURRENT STATE",
        "preference": "PREFERENCES",
        "rule": "RULES",
    }[kind]
    text = summarize(summary_prompt(_history(), f"## PROGRESS\n## {heading}\n{{messages}}"), detail_loss=0.0)
    assert _section(text, heading).endswith(LINES[kind])  # CURRENT STATE begins with the last action
    for other, line in LINES.items():
        assert (line in text) == (other == kind), other


def test_every_type_lands_in_its_own_section_each_once():
    text = summarize(summary_prompt(_history(), ALL_TYPES), detail_loss=0.0)
    assert _section(text, "DECISIONS") == f"- {SENTENCES['decision']}"
    assert _section(text, "CONSTRAINTS AND RULES") == f"- {SENTENCES['constraint']}\n- {SENTENCES['rule']}"
    assert _section(text, "KEY FACTS") == f"- {SENTENCES['fact']}"
    assert _section(text, "USER PREFERENCES") == f"- {SENTENCES['preference']}"
    # the first heading that keeps goal_state has it; NEXT STEPS, which keeps it too, does not repeat it
    assert _section(text, "CURRENT STATE").endswith(f"\n- {SENTENCES['goal_state']}")
    assert text.count(SENTENCES["goal_state"]) == 1 and SENTENCES["goal_state"] not in _section(text, "NEXT STEPS")


def test_a_flat_prompt_keeps_no_typed_fact():
    text = summarize(summary_prompt(_history(), "Summarize the conversation below.\n{messages}"), detail_loss=0.0)
    assert text.startswith("Summary of earlier work:") and not any(line in text for line in LINES.values())


def test_the_default_prompts_keep_the_goal_state_only_so_a_needle_is_not_kept():
    from langchain.agents.middleware.summarization import DEFAULT_SUMMARY_PROMPT

    for prompt in (deepagents_default_prompt(), DEFAULT_SUMMARY_PROMPT):
        text = summarize(summary_prompt(_history(), prompt), detail_loss=0.0)
        kept = {kind for kind, line in LINES.items() if line in text}
        assert kept == {"goal_state"}, kept
        assert SENTENCES["fact"] not in text  # the needle-like sentence of a tool result is nowhere
        assert LINES["goal_state"] in _section(text, "NEXT STEPS")


def test_the_shipped_typed_variant_keeps_every_type_and_anchors():
    prompt = make_config("typed").summary_prompt
    assert summarizer._anchors(prompt)
    text = summarize(summary_prompt(_history(), prompt), detail_loss=0.0)
    assert all(line in text for line in LINES.values())


def test_a_tool_call_argument_is_not_a_statement():
    """What the agent wrote into a file is not what anyone said; only an assistant's text is read."""
    messages = [
        HumanMessage(TASK),
        *call("write_file", {"file_path": "/notes/a.md", "content": SENTENCES["decision"]}, "ok", "w1"),
    ]
    assert SENTENCES["decision"] not in summarize(summary_prompt(messages, ALL_TYPES), detail_loss=0.0)


# -- updates -----------------------------------------------------------------------------------------------------------
def test_an_update_keeps_the_latest_value_marked_with_the_one_it_replaced():
    text = summarize(summary_prompt(_history(changed=True), ALL_TYPES), detail_loss=0.0)
    assert _section(text, "DECISIONS") == f"- {CHANGED}"
    assert SENTENCES["decision"] not in text


def test_an_update_said_without_not_is_marked_with_the_previous_distinct_value():
    facts = [
        (Statement("decision", "db", "a"), False),
        (Statement("decision", "db", "a"), False),
        (Statement("decision", "db", "b"), False),
    ]
    assert [f.statement.render() for f in typed_facts(facts)] == ["Decision (changed): the db is b, not a."]
    restated = [(Statement("decision", "db", "b", "a"), True), (Statement("decision", "db", "b"), False)]
    assert [f.statement for f in typed_facts(restated)] == [Statement("decision", "db", "b", "a")]


def test_a_statement_s_own_not_is_kept_when_nothing_else_says_the_old_value():
    messages = [HumanMessage(TASK), *call("fetch_document", {"doc_id": "DOC-002"}, f"DOC-002\n{CHANGED}", "c2")]
    assert f"- {CHANGED}" in summarize(summary_prompt(messages, ALL_TYPES), detail_loss=0.0)


def test_a_stale_value_paged_back_from_the_history_file_is_older_than_the_update():
    page = f"@@ lines 1-40 of 90 | next offset 40 @@\n{SENTENCES['decision']}"
    messages = [
        HumanMessage(TASK),
        *call("fetch_document", {"doc_id": "DOC-002"}, f"DOC-002\n{CHANGED}", "c2"),
        *call("read_file", {"file_path": "/conversation_history/session_abc.md"}, page, "c3"),
    ]
    assert _section(summarize(summary_prompt(messages, ALL_TYPES), detail_loss=0.0), "DECISIONS") == f"- {CHANGED}"


# -- carried facts and loss --------------------------------------------------------------------------------------------
def _chained(prompt: str) -> str:
    """A second summary request: the first summary (every type kept) and one new tool result stating nothing."""
    first = summarize(summary_prompt(_history(), prompt), detail_loss=0.0)
    return summary_prompt([summary_message(first), *call("read_file", {"file_path": "/ledgers/a.md"}, "# Ledger", "c3")], prompt)


def test_carried_facts_are_lost_round_by_round_under_a_prompt_that_does_not_anchor():
    texts = [summarize(_chained(ALL_TYPES), seed=seed, detail_loss=0.5) for seed in range(12)]
    assert any(LINES["rule"] not in t for t in texts) and any(LINES["rule"] in t for t in texts)
    assert not any(line in summarize(_chained(ALL_TYPES), detail_loss=1.0) for line in LINES.values())


def test_an_anchored_prompt_never_loses_a_carried_fact():
    prompt = ANCHOR + ALL_TYPES
    for seed in range(12):
        text = summarize(_chained(prompt), seed=seed, detail_loss=1.0)
        assert all(line in text for line in LINES.values()), seed


def test_facts_of_the_new_messages_are_never_lost():
    text = summarize(summary_prompt(_history(changed=True), ALL_TYPES), detail_loss=1.0)
    assert all(line in text for k, line in LINES.items() if k != "decision") and f"- {CHANGED}" in text


def test_a_typed_line_of_an_earlier_summary_is_not_carried_as_progress():
    done = fact_sentence("goal_state", "ledger step", "done")
    first = summarize(summary_prompt([HumanMessage(TASK), AIMessage(done)], ALL_TYPES), detail_loss=0.0)
    assert f"- {done}" in first
    text = summarize(summary_prompt([summary_message(first)], ANCHOR + ALL_TYPES), detail_loss=0.0)
    assert done not in _section(text, "PROGRESS") and text.count(done) == 1


def test_typed_losses_are_drawn_after_every_progress_line_so_no_progress_line_changes(monkeypatch):
    prompt = summary_prompt(
        [summary_message(summarize(summary_prompt(_history(changed=True), ALL_TYPES), detail_loss=0.0)), *_history()[2:]],
        ALL_TYPES,
    )
    with_facts = [summarize(prompt, seed=seed, detail_loss=0.5) for seed in range(8)]
    monkeypatch.setattr(summarizer, "_statements", lambda messages: [])
    without = [summarize(prompt, seed=seed, detail_loss=0.5) for seed in range(8)]
    for a, b in zip(with_facts, without, strict=True):
        assert _section(a, "PROGRESS") == _section(b, "PROGRESS") and _section(a, "SESSION INTENT") == _section(
            b, "SESSION INTENT"
        )
    assert with_facts != without


# -- artifacts ---------------------------------------------------------------------------------------------------------
ARTIFACT_RUN = [
    HumanMessage(TASK),
    *call("read_file", {"file_path": "/ledgers/a.md"}, "# Ledger", "r1"),
    *call("write_file", {"file_path": "/notes/a.md", "content": "x"}, "Updated file /notes/a.md", "w1"),
    *call("edit_file", {"file_path": "/notes/b.md", "old_string": "a", "new_string": "b"}, "Successfully replaced", "e1"),
    *call("read_file", {"file_path": "/notes/a.md"}, "x", "r2"),
    *call("write_file", {"file_path": "/notes/c.md", "content": "x"}, "Error: permission denied", "w2"),
]


def test_artifacts_say_what_was_done_to_each_path():
    text = summarize(summary_prompt(ARTIFACT_RUN), detail_loss=0.0)
    # a read after a write does not hide the write; a failed write did nothing
    assert _section(text, "ARTIFACTS") == "- /ledgers/a.md (read)\n- /notes/a.md (written)\n- /notes/b.md (edited)"


def test_carrying_a_summary_keeps_the_artifact_marks_and_old_unmarked_lines():
    first = summarize(summary_prompt(ARTIFACT_RUN), detail_loss=0.0) + "\n- /old/style.md"
    later = [summary_message(first), *call("edit_file", {"file_path": "/ledgers/a.md"}, "Successfully replaced", "e2")]
    text = summarize(summary_prompt(later), detail_loss=0.0)
    assert _section(text, "ARTIFACTS") == (
        "- /ledgers/a.md (edited)\n- /notes/a.md (written)\n- /notes/b.md (edited)\n- /old/style.md"
    )


# -- seeded faults -----------------------------------------------------------------------------------------------------
def test_drop_types_writes_no_fact_of_those_types_and_changes_nothing_else():
    prompt = summary_prompt(_history(changed=True), ALL_TYPES)
    healthy, faulty = (summarize(prompt, detail_loss=0.5, drop_types=d) for d in ((), ("decision", "constraint")))
    assert f"- {CHANGED}" in healthy and LINES["constraint"] in healthy
    assert f"- {CHANGED}" not in faulty and LINES["constraint"] not in faulty
    # the same draws: only the two lines go (DECISIONS, left empty, says None)
    assert faulty == healthy.replace(f"- {CHANGED}", "None").replace(LINES["constraint"] + "\n", "")


def test_keep_first_value_writes_the_value_before_the_update():
    text = summarize(summary_prompt(_history(changed=True), ALL_TYPES), detail_loss=0.0, keep_first_value=True)
    assert _section(text, "DECISIONS") == LINES["decision"] and "pg-16" not in _section(text, "DECISIONS")
    assert LINES["rule"] in text  # a fact stated once is written as it was


def test_forget_artifacts_lists_nothing():
    assert _section(summarize(summary_prompt(ARTIFACT_RUN), detail_loss=0.0, forget_artifacts=True), "ARTIFACTS") == "None"


@pytest.mark.parametrize(
    ("fault", "broken"),
    [
        ("summary-drops-decisions", lambda t: f"- {CHANGED}" not in t and LINES["constraint"] not in t and LINES["rule"] in t),
        ("stale-value-kept", lambda t: _section(t, "DECISIONS") == LINES["decision"]),
        ("artifacts-forgotten", lambda t: _section(t, "ARTIFACTS") == "None" and f"- {CHANGED}" in t),
    ],
)
def test_each_typed_fact_fault_is_a_summarizer_showing_its_fault(fault, broken):
    prompt = summary_prompt([*_history(changed=True), *ARTIFACT_RUN[1:]], ALL_TYPES)
    model = TYPED_FACT_FAULTS[fault].summarizer()
    healthy = summarize(prompt, seed=model.seed, detail_loss=model.detail_loss)
    assert broken(model.invoke(prompt).text) and not broken(healthy)


def test_the_remaining_plan_comes_from_the_latest_request_when_it_has_steps_of_its_own():
    from harness.reference.summarizer import summarize as _summarize
    from harness.task_format import Step, render_task

    first = render_task("Read two.", [Step(1, "fetch_document", "DOC-001"), Step(2, "reply")])
    later = render_task("Carry on.", [Step(3, "fetch_document", "DOC-003"), Step(4, "reply")])
    prompt = (
        "## NEXT STEPS\nWhat remains.\n"
        f'<message type="human">{first}</message><message type="ai">done</message><message type="human">{later}</message>'
    )
    out = _summarize(prompt, seed=0, detail_loss=0.0)
    assert "Continue with step 3." in out and "3. Fetch document DOC-003 with fetch_document." in out
