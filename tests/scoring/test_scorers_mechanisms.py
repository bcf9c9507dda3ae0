"""The mechanism scorers (eviction, overflow, subagents, argument truncation) over hand-built traces.

Each trace is the recorder's shape written out by hand (agent and summarizer calls, tool results as messages, the
events the recorder would have stamped), so each test states exactly which calls, results and events a case had.
"""

from __future__ import annotations

from typing import Any

from harness import _deepagents_adapter as da
from harness.scenarios.schema import ExpectedFile, ExpectedStep, Needle, Scenario
from harness.scoring.scorers import (
    CHECK,
    DRIFT_KEYS,
    MEASURE,
    VALIDITY,
    Score,
    drift_scores,
    eviction_scores,
    goal_scores,
    overflow_scores,
    scores_by_key,
    subagent_scores,
    truncation_scores,
)
from harness.trace.schema import Trace

ToolUse = tuple[str, dict[str, Any], "str | None"]  # (name, args, result; None: no result)


class Build:
    """A trace written call by call: ``agent`` and ``summarizer`` calls, ``event``s, then ``trace``."""

    def __init__(self, strategy: str = "deepagents-summarization", **config: Any) -> None:
        self.config = {"strategy": strategy, **config}
        self.calls: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.ids = 0

    def agent(
        self, turn: int = 0, text: str = "", tools: list[ToolUse] = (), error: dict | None = None, approx_tokens: int = 100
    ) -> dict[str, Any]:  # type: ignore[assignment]
        tool_calls = []
        for name, args, result in tools:
            self.ids += 1
            tc_id = f"call_{self.ids}"
            tool_calls.append({"name": name, "args": args, "id": tc_id})
            if result is not None:
                self.messages[f"msg_{tc_id}"] = {"type": "tool", "data": {"content": result, "tool_call_id": tc_id}}
        return self._call(
            role="agent",
            turn=turn,
            approx_tokens=approx_tokens,
            response=None if error else {"text": text, "tool_calls": tool_calls},
            error=error,
            namespace="",
        )

    def summarizer(self, turn: int = 0, namespace: str = "") -> dict[str, Any]:
        return self._call(
            role="summarizer", turn=turn, approx_tokens=50, response={"text": "summary"}, error=None, namespace=namespace
        )

    def event(self, type_: str, call: dict[str, Any], **fields: Any) -> dict[str, Any]:
        event = {"type": type_, "call_index": call["index"], "turn": call["turn"], **fields}
        self.events.append(event)
        return event

    def trace(self, answers: list[str | None] = (), **final: Any) -> Trace:  # type: ignore[assignment]
        return Trace(
            case_id="case-1",
            kind="needle",
            config=dict(self.config),
            calls=self.calls,
            events=self.events,
            messages=self.messages,
            final={"answers": list(answers), "error": None, **final},
        )

    def _call(self, **fields: Any) -> dict[str, Any]:
        call = {"index": len(self.calls), "message_keys": [], "summary_at_head": False, **fields}
        self.calls.append(call)
        return call


def ids(call: dict[str, Any]) -> list[str]:
    return [tc["id"] for tc in call["response"]["tool_calls"]]


def fetch(doc_id: str, result: str | None = "a long document") -> ToolUse:
    return ("fetch_document", {"doc_id": doc_id}, result)


def read(path: str, result: str | None, offset: int = 0) -> ToolUse:
    return ("read_file", {"file_path": path, "offset": offset}, result)


# -- eviction -------------------------------------------------------------------------------------------------------
EVICTION = Scenario(
    id="evict-1",
    kind="needle",
    description="the needle's document is evicted",
    task="Review the archive.",
    followups=("What was the vault code?",),
    needles=(Needle("vault", "TANGO-7", "DOC-3", 0.5, 1),),
)
LARGE = "/large_tool_results/"


def evicted_archive(build: Build) -> str:
    """Turn 0 fetches DOC-1 and DOC-3; DOC-3's result is evicted. Returns the eviction file's path."""
    call = build.agent(0, tools=[fetch("DOC-1"), fetch("DOC-3")])
    path = LARGE + ids(call)[1]
    build.event("evict", call, tool_call_id=ids(call)[1], path=path)
    return path


def test_the_needle_paged_back_from_its_eviction_file_holds_every_eviction_score():
    build = Build()
    path = evicted_archive(build)
    build.agent(1, tools=[read(path, "first page, nothing here"), read(path, "the vault code is tango-7", offset=100)])
    build.agent(1, "The code is TANGO-7.")
    scores = eviction_scores(build.trace(["Reviewed.", "The code is TANGO-7."]), EVICTION)
    assert scores == [
        Score("evicted", True, VALIDITY, "1 tool result(s) evicted before the question, the needle's document DOC-3 among them"),
        Score("needle_correct", True, CHECK, "expected 'TANGO-7'; the agent replied 'The code is TANGO-7.'"),
        Score(
            "needle_via_eviction_file",
            True,
            CHECK,
            f"read_file on {path} returned the needle after 2 page(s) of evicted results",
        ),
        Score("eviction_pages_read", 2, MEASURE, "read_file calls on /large_tool_results/ files in the question turn"),
    ]


def test_a_needle_paged_back_in_another_case_is_still_found():
    build = Build()
    path = evicted_archive(build)
    build.agent(1, tools=[read(path, "The Vault Code Is Tango-7")])
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "tango-7"]), EVICTION))
    assert scores["needle_via_eviction_file"].value is True


def test_an_eviction_file_whose_every_read_is_refused_is_named_unreadable_through_the_agents_backend():
    """A backend that routes /large_tool_results/ where read_file cannot read it back (a user's assembly): said so."""
    build = Build()
    path = evicted_archive(build)
    refused = f"Error: {path} is in a write-only archive (no read access)"
    build.agent(1, tools=[read(path, refused)])
    build.agent(1, "I do not know the code.")
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "I do not know the code."]), EVICTION))
    assert scores["needle_via_eviction_file"] == Score(
        "needle_via_eviction_file",
        False,
        CHECK,
        f"the evicted result {path} is not readable through the agent's backend: read_file returned {refused!r} "
        "(1 read(s), every one refused)",
    )


def test_an_eviction_of_another_document_makes_the_case_invalid():
    build = Build()
    call = build.agent(0, tools=[fetch("DOC-1"), fetch("DOC-3")])
    build.event("evict", call, tool_call_id=ids(call)[0], path=LARGE + ids(call)[0])
    build.event("evict", call, tool_call_id="call_unknown", path=LARGE + "call_unknown")  # no fetch behind it
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "TANGO-7"]), EVICTION))
    assert scores["evicted"] == Score(
        "evicted",
        False,
        VALIDITY,
        "2 tool result(s) evicted before the question, the needle's document DOC-3 NOT among them: the case is invalid",
    )


def test_an_eviction_in_the_question_turn_is_not_before_the_question():
    build = Build()
    build.agent(0, tools=[fetch("DOC-1")])
    call = build.agent(1, tools=[fetch("DOC-3")])
    build.event("evict", call, tool_call_id=ids(call)[0], path=LARGE + ids(call)[0])
    build.agent(1, tools=[read(LARGE + ids(call)[0], "TANGO-7")])
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "TANGO-7"]), EVICTION))
    assert scores["evicted"].value is False and scores["evicted"].explanation.startswith("0 tool result(s)")
    assert scores["eviction_pages_read"].value == 0  # the file was not one evicted before the question


def test_only_read_file_calls_of_the_question_turn_on_evicted_files_are_pages_read():
    build = Build()
    path = evicted_archive(build)
    build.agent(0, tools=[read(path, "TANGO-7")])  # before the question
    build.agent(1, tools=[read("/notes.md", "TANGO-7"), ("ls", {"file_path": path}, "TANGO-7"), read(path, "page one")])
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "TANGO-7"]), EVICTION))
    assert scores["eviction_pages_read"].value == 1
    assert scores["needle_via_eviction_file"] == Score(
        "needle_via_eviction_file", False, CHECK, "1 read_file call(s) on evicted results, none returned the needle"
    )


def test_a_needle_read_back_but_not_in_the_reply_fails_recovery():
    build = Build()
    path = evicted_archive(build)
    build.agent(1, tools=[read(path, "TANGO-7")])
    reply = "I could not find it. " + "x" * 200
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", reply]), EVICTION))
    assert scores["needle_correct"] == Score(
        "needle_correct", False, CHECK, f"expected 'TANGO-7'; the agent replied {reply[:160]!r}"
    )
    assert scores["needle_via_eviction_file"] == Score(
        "needle_via_eviction_file",
        False,
        CHECK,
        f"read_file on {path} returned the needle, but the reply did not carry it",
    )


def test_no_answer_in_the_question_turn_is_an_empty_reply():
    build = Build()
    evicted_archive(build)
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed."]), EVICTION))
    assert scores["needle_correct"] == Score("needle_correct", False, CHECK, "expected 'TANGO-7'; the agent replied ''")
    assert scores["needle_via_eviction_file"].explanation == "0 read_file call(s) on evicted results, none returned the needle"


def test_an_unanswered_read_returns_no_needle():
    build = Build()
    path = evicted_archive(build)
    build.agent(1, tools=[read(path, None)])
    scores = scores_by_key(eviction_scores(build.trace(["Reviewed.", "TANGO-7"]), EVICTION))
    assert scores["eviction_pages_read"].value == 1 and scores["needle_via_eviction_file"].value is False


# -- overflow -------------------------------------------------------------------------------------------------------
OVERFLOW = Scenario(
    id="overflow-1",
    kind="goal",
    description="the provider rejects a request",
    task="Read DOC-1.",
    expected_steps=(ExpectedStep("fetch_document", "DOC-1"),),
)


def rejected(build: Build, approx_tokens: int) -> dict[str, Any]:
    error = {"type": "BadRequestError", "message": "prompt is too long", "context_overflow": True}
    return build.agent(0, error=error, approx_tokens=approx_tokens)


def recovered(build: Build, failed: dict[str, Any], tools: list[ToolUse] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    build.summarizer()
    call = build.agent(0, tools=tools)
    build.event("summary", call, cause="overflow", summary_key="k", tokens_before=10, tokens_after=5)
    build.event("overflow-recovery", call, failed_call_index=failed["index"])
    return call


def test_every_rejection_followed_by_a_fallback_summary_is_recovered_and_the_goal_scores_follow():
    build = Build()
    first = rejected(build, 123456)
    recovered(build, first, tools=[fetch("DOC-1")])
    second = rejected(build, 99000)
    recovered(build, second)
    build.agent(0, "TASK COMPLETE")
    trace = build.trace(["TASK COMPLETE"])
    scores = overflow_scores(trace, OVERFLOW)
    assert scores[:2] == [
        Score("overflowed", 2, VALIDITY, "2 request(s) rejected as too long, the first at 123,456 approximate tokens"),
        Score(
            "overflow_recovered",
            True,
            CHECK,
            "every rejection was followed by a fallback summary and a smaller retry (2 fallback summaries)",
        ),
    ]
    # the goal eval's own scores follow; the goal-drift checks are shared (score_case adds them to every case with steps)
    assert scores[2:] == [s for s in goal_scores(trace, OVERFLOW) if s.key not in DRIFT_KEYS]
    assert [s.key for s in drift_scores(trace, OVERFLOW)] == list(DRIFT_KEYS)


def test_only_overflow_summaries_count_as_fallback_summaries():
    build = Build()
    first = rejected(build, 5000)
    call = recovered(build, first, tools=[fetch("DOC-1")])
    build.event("summary", call, cause="threshold", summary_key="k2", tokens_before=10, tokens_after=5)
    scores = scores_by_key(overflow_scores(build.trace(["TASK COMPLETE"]), OVERFLOW))
    assert scores["overflow_recovered"].explanation == (
        "every rejection was followed by a fallback summary and a smaller retry (1 fallback summaries)"
    )


def test_no_rejection_makes_the_case_invalid_with_nothing_to_recover():
    build = Build()
    build.agent(0, error={"type": "ValueError", "message": "bad", "context_overflow": False})
    build.agent(0, tools=[fetch("DOC-1")])
    scores = overflow_scores(build.trace(["TASK COMPLETE"]), OVERFLOW)
    assert scores[:2] == [
        Score("overflowed", 0, VALIDITY, "0 request(s) rejected as too long: the case is invalid"),
        Score("overflow_recovered", False, CHECK, "nothing to recover from"),
    ]


def test_rejections_without_a_recovery_are_named_up_to_five():
    build = Build()
    failed = [rejected(build, 1000 + n) for n in range(7)]
    recovered(build, failed[2])
    scores = scores_by_key(overflow_scores(build.trace([]), OVERFLOW))
    left = [c["index"] for c in failed if c is not failed[2]]
    assert scores["overflow_recovered"] == Score(
        "overflow_recovered", False, CHECK, f"rejections at calls {left[:5]} had no recovery"
    )


def test_a_recovered_run_that_raised_afterwards_is_not_recovered():
    build = Build()
    first = rejected(build, 5000)
    recovered(build, first)
    error = {"type": "RuntimeError", "message": "m" * 119 + "no", "turn": 0}
    scores = scores_by_key(overflow_scores(build.trace([], error=error), OVERFLOW))
    assert scores["overflow_recovered"] == Score(
        "overflow_recovered", False, CHECK, f"the run ended with RuntimeError: {'m' * 119}n"
    )


# -- subagents ------------------------------------------------------------------------------------------------------
SUBAGENT = Scenario(
    id="subagent-1",
    kind="goal",
    description="work delegated to subagents",
    task="Delegate the ledgers.",
    expected_steps=(ExpectedStep("fetch_document", "DOC-1"),),
)


def task(description: str, result: str | None) -> ToolUse:
    return ("task", {"description": description, "subagent_type": "general-purpose"}, result)


def test_subagents_that_compressed_and_returned_their_reports_hold_with_the_parents_goal_scores():
    build = Build()
    build.summarizer(namespace="subagent")
    build.summarizer(namespace="")  # the parent's own summary is not inside a subagent
    build.summarizer(namespace="subagent")
    build.agent(0, tools=[task("batch 1", "Batch 1 done. TASK COMPLETE"), task("batch 2", "All done: TASK COMPLETE")])
    build.agent(0, tools=[fetch("DOC-1")])
    build.agent(0, "TASK COMPLETE")
    trace = build.trace(["TASK COMPLETE"])
    scores = subagent_scores(trace, SUBAGENT)
    assert scores == [
        Score("subagent_compressed", 2, VALIDITY, "2 summarizer call(s) inside subagents"),
        Score("subagent_results_returned", True, CHECK, "2/2 delegated task(s) returned their report to the parent"),
    ]
    # the parent's goal-drift checks are shared (score_case adds drift_scores to every case with steps)
    assert scores_by_key(drift_scores(trace, SUBAGENT))["goal_all_steps_done"].value is True


def test_no_summary_inside_a_subagent_makes_the_case_invalid():
    build = Build()
    build.summarizer(namespace="")
    build.agent(0, tools=[task("batch 1", "TASK COMPLETE")])
    scores = scores_by_key(subagent_scores(build.trace([]), SUBAGENT))
    assert scores["subagent_compressed"] == Score(
        "subagent_compressed", 0, VALIDITY, "0 summarizer call(s) inside subagents: nothing compressed there, the case is invalid"
    )


def test_a_task_whose_result_is_not_a_report_fails_and_the_first_such_result_is_quoted():
    build = Build()
    long_result = "I could not finish " + "y" * 130
    build.agent(0, tools=[task("batch 1", "TASK COMPLETE"), task("batch 2", long_result), task("batch 3", "partial")])
    scores = scores_by_key(subagent_scores(build.trace([]), SUBAGENT))
    assert scores["subagent_results_returned"] == Score(
        "subagent_results_returned",
        False,
        CHECK,
        f"1/3 delegated task(s) returned their report to the parent; first other result: {long_result[:120]!r}",
    )


def test_a_task_without_a_result_has_returned_nothing():
    build = Build()
    build.agent(0, tools=[task("batch 1", None)])
    scores = scores_by_key(subagent_scores(build.trace([]), SUBAGENT))
    assert scores["subagent_results_returned"] == Score(
        "subagent_results_returned",
        False,
        CHECK,
        "0/1 delegated task(s) returned their report to the parent; first other result: ''",
    )


def test_no_delegated_task_fails_results_returned():
    build = Build()
    build.agent(0, tools=[fetch("DOC-1", "TASK COMPLETE")])  # a report, but not from a task
    scores = scores_by_key(subagent_scores(build.trace([]), SUBAGENT))
    assert scores["subagent_results_returned"] == Score(
        "subagent_results_returned", False, CHECK, "0/0 delegated task(s) returned their report to the parent"
    )


# -- argument truncation --------------------------------------------------------------------------------------------
NOTES, OTHER = "/notes/a.md", "/notes/b.md"
TRUNCATION = Scenario(
    id="truncation-1",
    kind="truncation",
    description="a clipped write must be read back",
    task="Write the notes.",
    expected_steps=(ExpectedStep("write_file", NOTES),),
    expected_files=(ExpectedFile(NOTES, ("alpha", "beta")),),
)
TWO_FILES = Scenario(
    id="truncation-2",
    kind="truncation",
    description="two files",
    task="Write both notes.",
    expected_files=(ExpectedFile(NOTES, ("alpha",)), ExpectedFile(OTHER, ("gamma",))),
)
WHOLE = {NOTES: "alpha beta"}


def write(path: str = NOTES, result: str | None = "Updated file", name: str = "write_file") -> ToolUse:
    return (name, {"file_path": path, "content": "alpha beta"}, result)


def clip(build: Build, at: dict[str, Any], *written: dict[str, Any]) -> None:
    """The request of call ``at`` showed the writes made in ``written`` clipped."""
    build.event("truncate-args", at, tool_call_ids=[i for call in written for i in ids(call)])


def test_a_clipped_write_read_back_before_the_next_one_holds_every_truncation_score():
    build = Build()
    first = build.agent(0, tools=[write()])
    shown = build.agent(0, tools=[read(NOTES, "alpha be" + "t" * 1300)])
    clip(build, shown, first)
    build.agent(0, tools=[write(name="edit_file")])
    build.agent(0, "TASK COMPLETE")
    trace = build.trace(["TASK COMPLETE"], written_files=WHOLE)
    scores = truncation_scores(trace, TRUNCATION)
    assert scores == [
        Score(
            "args_clipped",
            1,
            VALIDITY,
            "1 write(s)/edit(s) came after the file's previous write/edit was shown clipped (1 clipping event(s))",
        ),
        Score(
            "reread_after_clipping",
            True,
            CHECK,
            "read the file back before each of the 1 write(s)/edit(s) that followed a clipped one",
        ),
        Score("file_intact", True, CHECK, f"{NOTES} hold every expected entry and no truncation marker"),
        Score("reread_chars", 1308, MEASURE, "1,308 characters of the file(s) read back"),
    ]  # the goal-drift checks are shared (score_case)
    assert scores_by_key(drift_scores(trace, TRUNCATION))["goal_no_premature_completion"].value is True


def test_a_write_after_a_clipped_one_without_reading_the_file_back_is_blind():
    build = Build()
    build.agent(0, tools=[write()])
    first = build.agent(0, tools=[write()])
    shown = build.agent(0, tools=[read(OTHER, "other notes")])  # another file read back is no help
    clip(build, shown, first)
    nxt = build.agent(0, tools=[write()])
    build.agent(0, tools=[write()])  # follows an unclipped write: not a change that needed a re-read
    trace = build.trace([], written_files=WHOLE)
    scores = scores_by_key(truncation_scores(trace, TRUNCATION))
    assert scores["args_clipped"].value == 1
    assert scores["reread_after_clipping"] == Score(
        "reread_after_clipping",
        False,
        CHECK,
        f"1 of 1 write(s)/edit(s) built on a clipped one without reading the file back; first: {NOTES} changed at call "
        f"{nxt['index']}, its previous write/edit shown clipped from call {shown['index']}",
    )
    assert scores["reread_chars"].value == 0


def test_a_write_in_the_very_call_that_showed_the_clipping_needed_a_read_back():
    build = Build()
    first = build.agent(0, tools=[write()])
    build.agent(0, tools=[read(NOTES, "alpha")])  # a read before the clipping is shown still lies between the writes
    at = build.agent(0, tools=[write()])
    clip(build, at, first)
    scores = scores_by_key(truncation_scores(build.trace([], written_files=WHOLE), TRUNCATION))
    assert scores["args_clipped"].value == 1 and scores["reread_after_clipping"].value is True


def test_a_write_before_the_clipping_was_shown_did_not_build_on_a_clipped_one():
    build = Build()
    first = build.agent(0, tools=[write()])
    build.agent(0, tools=[write()])
    later = build.agent(0, "thinking")
    clip(build, later, first)
    scores = scores_by_key(truncation_scores(build.trace([], written_files=WHOLE), TRUNCATION))
    assert scores["args_clipped"] == Score(
        "args_clipped",
        0,
        VALIDITY,
        f"no write/edit of {NOTES} followed a clipped one (1 clipping event(s)): the case is invalid",
    )
    assert scores["reread_after_clipping"] == Score(
        "reread_after_clipping", False, CHECK, "nothing to re-read: the case is invalid"
    )


def test_the_first_event_that_shows_a_write_clipped_is_when_it_was_seen():
    build = Build()
    first = build.agent(0, tools=[write()])
    shown = build.agent(0, "one")
    clip(build, shown, first)
    nxt = build.agent(0, tools=[write()])
    again = build.agent(0, "two")
    clip(build, again, first)
    build.event("truncate-args", again)  # an event naming no call clips nothing
    scores = scores_by_key(truncation_scores(build.trace([], written_files=WHOLE), TRUNCATION))
    assert scores["args_clipped"].explanation == (
        "1 write(s)/edit(s) came after the file's previous write/edit was shown clipped (3 clipping event(s))"
    )
    assert scores["reread_after_clipping"].explanation.endswith(
        f"changed at call {nxt['index']}, its previous write/edit shown clipped from call {shown['index']}"
    )


def test_reads_in_the_same_call_as_either_write_are_not_between_them():
    build = Build()
    first = build.agent(0, tools=[write(), read(NOTES, "alpha")])
    nxt = build.agent(0, tools=[read(NOTES, "alpha"), write()])
    clip(build, nxt, first)
    scores = scores_by_key(truncation_scores(build.trace([], written_files=WHOLE), TRUNCATION))
    assert scores["args_clipped"].value == 1 and scores["reread_after_clipping"].value is False
    assert scores["reread_chars"].value == 10


def test_failed_writes_and_reads_and_other_files_are_not_counted():
    build = Build()
    first = build.agent(0, tools=[write()])
    build.agent(0, tools=[read(NOTES, "Error: no such file"), read(NOTES, None), read(OTHER, "notes on b")])
    failed = build.agent(0, tools=[write(result="Error: could not write"), write(OTHER)])
    clip(build, failed, first)
    build.agent(0, tools=[write(result=None), ("ls", {"file_path": NOTES}, "a.md")])
    scores = scores_by_key(truncation_scores(build.trace([], written_files=WHOLE), TRUNCATION))
    assert scores["args_clipped"].value == 0 and scores["reread_chars"].value == 0


def test_a_file_missing_an_entry_or_holding_the_marker_is_not_intact():
    build = Build()
    build.agent(0, tools=[write()])
    text = "alpha " + da.TRUNCATION_TEXT
    scores = scores_by_key(truncation_scores(build.trace([], written_files={NOTES: text}), TRUNCATION))
    assert scores["file_intact"] == Score(
        "file_intact",
        False,
        CHECK,
        f"{NOTES} lacks 1 of 2 expected entries (first 'beta'); "
        f"{NOTES} contains the truncation marker {da.TRUNCATION_TEXT!r}: a clipped argument was written back",
    )


def test_the_configured_truncation_text_is_the_marker():
    build = Build(arg_truncation={"truncation_text": "[cut]"})
    build.agent(0, tools=[write()])
    intact = f"alpha beta {da.TRUNCATION_TEXT}"
    assert scores_by_key(truncation_scores(build.trace([], written_files={NOTES: intact}), TRUNCATION))["file_intact"].value
    clipped = {NOTES: "alpha beta [cut]"}
    assert scores_by_key(truncation_scores(build.trace([], written_files=clipped), TRUNCATION))["file_intact"] == Score(
        "file_intact",
        False,
        CHECK,
        f"{NOTES} contains the truncation marker '[cut]': a clipped argument was written back",
    )


def test_files_never_written_are_named_and_the_others_checked():
    build = Build()
    scores = scores_by_key(truncation_scores(build.trace([], written_files={OTHER: "delta"}), TWO_FILES))
    assert scores["file_intact"] == Score(
        "file_intact",
        False,
        CHECK,
        f"{NOTES} was never written; {OTHER} lacks 1 of 1 expected entries (first 'gamma')",
    )


def test_a_trace_without_file_contents_says_so_once():
    scores = scores_by_key(truncation_scores(Build().trace([]), TWO_FILES))
    assert scores["file_intact"] == Score(
        "file_intact", False, CHECK, "the trace holds no file contents (recorded before they were kept)"
    )
    assert scores["args_clipped"].explanation == (
        f"no write/edit of {NOTES}, {OTHER} followed a clipped one (0 clipping event(s)): the case is invalid"
    )


def test_every_expected_file_whole_is_intact():
    written = {NOTES: "alpha", OTHER: "gamma"}
    scores = scores_by_key(truncation_scores(Build().trace([], written_files=written), TWO_FILES))
    assert scores["file_intact"] == Score(
        "file_intact", True, CHECK, f"{NOTES}, {OTHER} hold every expected entry and no truncation marker"
    )
