"""Offline, a case whose agent delegates through deepagents' ``task`` tool gives the same trace twice, not only the same
row. deepagents names a subagent's history file ``session_<uuid4 hex>`` (it keeps private state, the session id among
it, out of a subagent's input); offline the harness names it from the case (`_deepagents_adapter.StableSessions`), so
what may differ is `trace.comparable`'s list (ids and times), as for a case without subagents
(tests/runs/test_reproducible.py, which runs two processes). The names reach the model: a subagent's summary names its
file, and the agent may read it back."""

from __future__ import annotations

from harness import _deepagents_adapter as da
from harness.compaction.variants import make_config
from harness.runs.jobs import Job, RunSettings
from harness.runs.pool import Pool, execute
from harness.suites.execute import find_case
from harness.trace.schema import comparable

# The cheapest case of each delegating eval: the parent eval's own declarative subagent (its summarization slot built by
# the harness for its model) and the subagent eval's, deepagents' general-purpose subagent (given the parent's slot).
JOBS = [
    Job("parent", find_case("parent-8x8"), make_config("forced-20")),
    Job("subagent", find_case("delegate-2x8"), make_config("forced-20")),
]


def _run() -> list:
    got: list = []
    execute(JOBS, RunSettings(run_id="again"), Pool("serial"), lambda job, outcome: got.append(outcome), in_order=True)
    return got


def test_two_runs_of_a_delegating_case_give_identical_traces_history_file_names_included():
    first, second = _run(), _run()
    assert len(first) == len(second) == len(JOBS)
    for job, a, b in zip(JOBS, first, second):
        files = list(a.trace.final["history_files"])
        assert len(files) >= 2, (job.case.id, files)  # one per agent: the parent's and at least one subagent's
        assert files == list(b.trace.final["history_files"]), job.case.id  # the same names: none from uuid4
        assert comparable(a.trace) == comparable(b.trace), job.case.id
        assert {k: s.value for k, s in a.scores.items()} == {k: s.value for k, s in b.scores.items()}


def test_session_names_come_from_the_first_user_message_and_a_repeat_is_counted():
    """The agent's name is the hash of its first user message (as before subagents were named); a fork, whose first
    message is its parent's, or a second task of the same text gets a name of its own, the same in every run."""
    from langchain_core.messages import HumanMessage

    state = {"messages": [HumanMessage("Review the archive.")]}
    one, two = da.StableSessions(), da.StableSessions()
    names = [one.name(state), one.name(state), one.name({"messages": [HumanMessage("Delegated batch 1.")]})]
    assert names == [two.name(state), two.name(state), two.name({"messages": [HumanMessage("Delegated batch 1.")]})]
    assert len(set(names)) == 3 and all(da.history_naming(f"/conversation_history/{n}.md") == "session" for n in names)
    parent = one.middleware().before_agent({"messages": [HumanMessage("Another case.")]}, None)
    assert parent == {da.SESSION_KEY: da.StableSessions().name({"messages": [HumanMessage("Another case.")]})}
    assert one.middleware().before_agent({**state, da.SESSION_KEY: "session_kept"}, None) is None  # an id in state stays
