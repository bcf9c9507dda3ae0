"""Every import format replays (issue 33, "Done when"): a session the harness made offline, in each format `harness
import` reads, imported through the command with its probes generated, then replayed as the session eval under three
arms behind the full-context control.

One source for every format: the shipped probe case ``recorded-billing-migration`` (the billing-migration recording
`harness generate` wrote, then runbook pages fetched until the agent summarizes) run offline under ``forced-20``:
exported by `harness export` (openai, atif), the same messages converted by LangChain (langchain: ``messages_to_dict``;
anthropic: ``ChatAnthropic``'s own request body, each deepagents summary a ``compaction`` block) and written as
mini-swe-agent-1 text actions; the same case run with a ``SqliteSaver`` (langgraph) and traced by LangChain's tracer to
the recording stand-in (langsmith, read by run id). The shared real session (mini-swe-agent 1.1, ../shared/sessions/)
is replayed beside them when it is here. Every session is one row of one dataset and the three arms one experiment
(`harness experiment run`), so each session's control runs once for its three arms.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import convert_to_messages
from langchain_core.messages.utils import count_tokens_approximately

from harness import _deepagents_adapter as da
from harness.cli.main import main
from harness.errors import EXIT_OK
from harness.runs.results import read_cells, read_rows
from harness.scenarios.schema import load_scenarios
from harness.sessions import read_session
from harness.suites.replay import forget_controls
from harness.trace.schema import load_trace
from tests._sessions import SHARED_MISSING, SHARED_SESSION

pytestmark = pytest.mark.slow  # runs the case three times on the real agent, then an experiment of 24 cells

ROOT = Path(__file__).resolve().parents[2]
CASE = "recorded-billing-migration"
ARMS = ("deepagents-summarization", "langchain-summarization", "sliding-window")
FORMATS = ("openai", "anthropic", "langchain", "atif", "mini-swe-agent-1", "mini-swe-agent", "langgraph", "langsmith")
"""The sessions replayed, by their case id: each format once; mini-swe-agent twice (the text format written here, the
tool-call format of the shared real session)."""
SAME_MESSAGES = ("openai", "anthropic", "langchain", "atif")
"""The formats the export's own messages are written in: each imports to the openai import's case."""
KEY = "test-key-not-a-secret"


def _case():
    (case,) = [s for s in load_scenarios([ROOT / "datasets" / "recorded.jsonl"]) if s.id == CASE]
    return case


def _exported(folder: Path) -> tuple[dict[str, Path], int]:
    """The case run through `harness run` and exported by `harness export` as OpenAI JSONL and as ATIF; and the number
    of summaries the run made."""
    assert main(["run", "--datasets", str(ROOT / "datasets" / "recorded.jsonl"), "--cases", CASE, "--out", str(folder),
                 "--run-id", "made"]) == EXIT_OK  # fmt: skip
    (row,) = read_rows(folder / "made" / "results.jsonl")
    summaries = sum(e["type"] == "summary" for e in load_trace(folder / "made" / row["trace"]).events)
    out = {}
    for fmt in ("openai", "atif"):
        assert main(["export", str(folder / "made"), "--format", fmt, "--out", str(folder / fmt)]) == EXIT_OK
        (out[fmt],) = (folder / fmt).rglob("*.jsonl" if fmt == "openai" else "trajectory.json")
    return out, summaries


def _lc_messages(exported: Path) -> list:
    """The exported conversation as LangChain messages, each deepagents summary marked as deepagents marks it."""
    from langchain_core.messages import convert_to_messages

    messages = list(convert_to_messages([json.loads(line) for line in exported.read_text().splitlines()]))
    for m in messages:
        if da.reads_as_summary(m):
            m.additional_kwargs["lc_source"] = da.SUMMARY_SOURCE
    return messages


def _anthropic(messages: list, path: Path) -> Path:
    """The request body LangChain's Anthropic model would send, each deepagents summary a ``compaction`` block (where
    Anthropic's context management puts its summary: an assistant turn's content)."""
    from langchain_anthropic import ChatAnthropic
    from langchain_core.messages import AIMessage

    converted = [
        AIMessage(content=[{"type": "compaction", "content": da.summary_body(m.text)}]) if da.reads_as_summary(m) else m
        for m in messages
    ]
    body = ChatAnthropic(model="claude-sonnet-4-5", api_key="not-a-key")._get_request_payload(converted)  # type: ignore[call-arg]
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def _mini_swe_agent_text(exported: Path, path: Path) -> tuple[Path, int]:
    """The exported session written as a mini-swe-agent-1 trajectory (each tool call one bash block, its result the
    next user message with its return code); the summaries are not messages in that format, so the cut is by index, at
    the first compaction. Returns (file, cut)."""
    session = read_session("openai", str(exported))
    messages: list[dict[str, Any]] = []
    for m in session.messages:
        if m["role"] == "assistant" and m.get("tool_calls"):
            (call,) = m["tool_calls"]
            args = " ".join(f"--{k} {shlex.quote(str(v))}" for k, v in json.loads(call["function"]["arguments"]).items())
            action = f"```bash\n{call['function']['name']} {args}\n```"
            messages.append({"role": "assistant", "content": f"{m['content']}\n\n{action}".strip()})
        elif m["role"] == "tool":
            messages.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{m['content']}\n</output>"})
        else:
            messages.append({"role": m["role"], "content": m["content"]})
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1", "messages": messages}), encoding="utf-8")
    return path, session.compactions[0].at


def _langgraph(case, config, models, folder: Path) -> Path:
    """The case run on the real agent with LangGraph's SQLite checkpointer: the thread ``billing``."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from harness.agent.runner import run_case

    db = folder / "checkpoints.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        trace = run_case(case, config, models, checkpointer=SqliteSaver(conn), thread_id="billing")
    finally:
        conn.close()
    assert trace.final["error"] is None
    return db


def _import_langsmith(case, config, models, out: Path) -> None:
    """The case traced to the recording stand-in by LangChain's tracer, its first turn's root run imported by id through
    `harness import langsmith RUN_ID` (the key and endpoint pointing at the stand-in)."""
    from langchain_core.tracers.langchain import wait_for_all_tracers
    from langsmith import Client
    from langsmith import utils as ls_utils
    from langsmith.run_helpers import tracing_context

    from harness.agent.runner import run_case
    from harness.langsmith import session as langsmith_session
    from tests._fake_langsmith import FakeLangSmith

    with FakeLangSmith() as fake, pytest.MonkeyPatch.context() as patch:
        client = Client(api_url=fake.url, api_key=KEY)
        with tracing_context(enabled=True, client=client, project_name="every-format"):
            run_case(case, config, models)
        wait_for_all_tracers()
        client.flush()
        roots = [r for r in fake.recorder.runs.values() if r.get("run_type") and not r.get("parent_run_id")]
        first = min(roots, key=lambda r: r["start_time"])  # one root run a user turn: the first turn compacted
        patch.setenv("LANGSMITH_ENDPOINT", fake.url)
        patch.setenv("LANGSMITH_API_KEY", KEY)
        patch.setattr(langsmith_session, "_CONNECTED", {})
        ls_utils.get_env_var.cache_clear()
        try:
            assert main(["import", "langsmith", str(first["id"]), "--out", str(out), "--id", "langsmith"]) == EXIT_OK
        finally:
            ls_utils.get_env_var.cache_clear()


@pytest.fixture(scope="module")
def imported(tmp_path_factory, config, models) -> dict[str, Any]:
    """Every format imported into one dataset (`harness import`, probes generated): {"dataset", "skipped": {format:
    why}, "summaries": how many the run made}."""
    folder = tmp_path_factory.mktemp("every-format")
    out = folder / "cases"
    exported, summaries = _exported(folder / "runs")
    case = _case()
    lc = _lc_messages(exported["openai"])
    from langchain_core.messages import messages_to_dict

    text_traj, at = _mini_swe_agent_text(exported["openai"], folder / "billing.traj.json")
    state = folder / "state.json"
    state.write_text(json.dumps(messages_to_dict(lc)), encoding="utf-8")
    sources: dict[str, list[str]] = {
        "openai": ["openai", str(exported["openai"])],
        "anthropic": ["anthropic", str(_anthropic(lc, folder / "anthropic.json"))],
        "langchain": ["langchain", str(state)],
        "atif": ["atif", str(exported["atif"])],
        "mini-swe-agent-1": ["mini-swe-agent", str(text_traj), "--cut", str(at)],
        "langgraph": ["langgraph", str(_langgraph(case, config, models, folder)), "--thread", "billing"],
    }
    skipped = {}
    if SHARED_SESSION.is_file():
        sources["mini-swe-agent"] = ["mini-swe-agent", str(SHARED_SESSION), "--cut", "100"]  # as harness bench does
    else:
        skipped["mini-swe-agent"] = SHARED_MISSING
    for fmt, (reader, source, *options) in sources.items():
        assert main(["import", reader, source, "--out", str(out), "--id", fmt, *options]) == EXIT_OK, fmt
    _import_langsmith(case, config, models, out)
    return {"dataset": out / "sessions.jsonl", "skipped": skipped, "summaries": summaries}


@pytest.fixture(scope="module")
def replayed(imported, tmp_path_factory) -> dict[str, Any]:
    """Every imported session under the three arms as one experiment: {"cases": {id: Scenario}, "rows": {id: [row per
    arm]}, "table": the table as text, "summaries"}."""
    folder = tmp_path_factory.mktemp("replay")
    spec = folder / "every-format.yaml"
    spec.write_text(
        "name: every-format\nvariants: [deepagents-default]\n"
        f"strategies: [{', '.join(ARMS)}]\nthresholds: [20%]\nevals: [session]\n"
        f"scenarios: {{datasets: [{imported['dataset']}]}}\n"
    )
    forget_controls()
    args = ["experiment", "run", str(spec), "--out", str(folder), "--workers", "1", "--no-langsmith"]
    assert main(args) == EXIT_OK
    rows: dict[str, list[dict[str, Any]]] = {}
    for row in read_cells(folder / "every-format" / "cells.jsonl"):
        rows.setdefault(row["case_id"], []).append(row)
    cases = {c.id: c for c in load_scenarios([imported["dataset"]])}
    return {
        "cases": cases,
        "rows": rows,
        "table": table(cases, rows, imported["skipped"]),
        "summaries": imported["summaries"],
    }


def _counts(row: dict[str, Any]) -> str:
    """An arm's probes that count, by where each ended; the others counted as invalid."""
    probes = row["session"]["probes"]
    buckets = Counter(p["bucket"] for p in probes if p["valid"])
    invalid = sum(not p["valid"] for p in probes)
    parts = [f"{buckets[b]} {b}" for b in ("retained", "recovered", "right_unsourced", "stale", "lost") if buckets[b]]
    return ", ".join(parts + ([f"{invalid} invalid"] if invalid else [])) or "none"


def table(cases: dict[str, Any], rows: dict[str, list[dict[str, Any]]], skipped: dict[str, str]) -> str:
    """format | messages | tokens | cut | probes | control right | per arm: outcome (where each probe that counts ended)."""
    head = ["format", "messages", "tokens", "cut", "probes", "control right", *ARMS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for fmt in FORMATS:
        if fmt in skipped:
            lines.append(f"| {fmt} | skipped: {skipped[fmt]} |")
            continue
        case, by_arm = cases[fmt], {r["arm"]: r for r in rows.get(fmt, [])}
        info = case.session
        types = Counter(p.type for p in case.probes)
        control = next(iter(by_arm.values()))["session"]["control"] if by_arm else {}
        cells = [f"{by_arm[a]['outcome']} ({_counts(by_arm[a])})" if a in by_arm else "not run" for a in ARMS]
        lines.append(
            f"| {fmt} | {info.messages} | {info.tokens:,} | {info.cut} by {info.cut_by} | {len(case.probes)} ("
            + ", ".join(f"{n} {t}" for t, n in sorted(types.items()))
            + f") | {control.get('right')}/{control.get('n')} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_session_imported_from_each_format_replays_under_three_arms_with_the_control_as_gold(
    fmt: str, imported, replayed
) -> None:
    if fmt in imported["skipped"]:
        pytest.skip(imported["skipped"][fmt])
    shown = f"\n{replayed['table']}\n"
    case, openai = replayed["cases"][fmt], replayed["cases"]["openai"]
    info = case.session
    assert info is not None and info.format == fmt.removesuffix("-1"), shown
    assert openai.session is not None
    # what was imported: the session's length, its approximate tokens, the cut and by what
    if fmt in SAME_MESSAGES:  # the exported messages in another format: the same session, cut at the same place
        assert (info.messages, info.tokens, info.cut, info.cut_by, info.compactions) == (
            openai.session.messages,
            openai.session.tokens,
            openai.session.cut,
            openai.session.cut_by,
            openai.session.compactions,
        ), shown
        assert case.conversation == openai.conversation and case.probes == openai.probes, shown
    if fmt == "openai":  # every summary the run made is a compaction; the cut is just before the first
        assert len(info.compactions) == replayed["summaries"] >= 2 and info.cut == info.compactions[0], shown
        before = count_tokens_approximately(convert_to_messages(list(openai.conversation)))
        assert info.cut_by == "compaction" and 8_000 < before < info.tokens, shown
    elif fmt == "mini-swe-agent-1":  # no compaction in that format: cut by index where the export compacted
        assert (info.messages, info.cut, info.cut_by) == (openai.session.messages, openai.session.cut, "index"), shown
        assert abs(info.tokens - openai.session.tokens) < 0.01 * openai.session.tokens, shown  # bash blocks for calls
    elif fmt == "langgraph":  # the same run's state: the recorded system message is the agent's system prompt there
        assert info.messages == openai.session.messages - 1 and info.cut_by == "compaction", shown
        assert info.compactions == tuple(at - 1 for at in openai.session.compactions) and info.cut == info.compactions[0]
        assert list(case.conversation) == list(openai.conversation[1:]), shown
    elif fmt == "langsmith":  # the largest LLM call before the first summary: the session ends where it compacted
        assert (info.cut, info.cut_by, info.compactions) == (info.messages, "compaction", (info.messages,)), shown
        assert case.conversation[0] == openai.conversation[0] and info.messages < openai.session.messages, shown
        assert list(case.conversation) == list(openai.conversation[: info.cut]), shown
    elif fmt == "mini-swe-agent":  # the shared real session, as harness bench imports it
        assert (info.messages, info.cut, info.cut_by) == (129, 100, "index") and info.tokens > 25_000, shown
    # the probes: generated, from before the cut
    assert len(case.conversation) == info.cut and case.probes, shown
    assert {p.origin for p in case.probes} == {"generated"} and all(p.message < info.cut for p in case.probes), shown
    # replayed: every arm compacted at the first call after the cut, behind one control that answered some probe right
    rows = replayed["rows"][fmt]
    assert sorted(r["arm"] for r in rows) == sorted(ARMS), shown
    controls = {json.dumps(r["session"]["control"], sort_keys=True) for r in rows}
    assert len(controls) == 1, shown  # the same gold for every arm
    for row in rows:
        assert row["passed"]["compacted_at_cut"], (row["arm"], row["explanations"]["compacted_at_cut"], shown)
        assert row["session"]["control"]["right"] >= 1 and row["session"]["control"]["error"] is None, shown
        probes = row["session"]["probes"]
        assert [p["id"] for p in probes] == [p.id for p in case.probes], shown  # every probe's verdict recorded
        assert all(p["verdict"] in ("right", "stale", "lost") and p["control"]["verdict"] for p in probes), shown
        assert any(p["valid"] for p in probes) and row["outcome"] in ("PASS", "FAIL"), shown
        for p in probes:  # a probe counts only where the control answered it right; one that does not says why
            assert p["control"]["verdict"] == "right" if p["valid"] else bool(p["why"]), (row["arm"], p, shown)


def test_the_table_has_a_row_per_format(replayed) -> None:
    """The table every assertion above shows on failure (and ``pytest -s`` prints): one row per format."""
    print(replayed["table"])
    assert all(f"| {fmt} |" in replayed["table"] for fmt in FORMATS)
