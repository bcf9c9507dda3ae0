"""``harness bench --only replay``: the shared real session replayed offline under the six built-in strategies that run
without a provider, as the session eval (each arm behind the full-context control), and the time it took.

The session is ../shared/sessions/ beside the repository (mini-swe-agent, 130 messages; never copied into it): its
messages up to the cut, ``extra`` fields dropped. The offline reference agent answers only facts stated as "the <key>
is <value>", which a real SWE session does not state; so one such sentence is added to the task message (message 1,
"the task id is ASTROPY-12907") and asked as the probe. The figure is the wall time of the whole replay (the control
once, then each arm; one process), with each arm's outcome and the compactions it made.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

SHARED_SESSION = Path(__file__).resolve().parents[2] / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
CUT = 120  # messages before the cut: the session's end, short of its last steps and the exit record
ADDED = "For the record, the task id is ASTROPY-12907."
PROBE = {
    "id": "task-id",
    "question": "Question: What is the task id? Reply with the value only.",
    "expected": ["ASTROPY-12907"],
    "type": "value",
    "message": 1,
    "origin": "user",
}


def replay_strategies() -> list[str]:
    """The built-in strategies that run offline: every one but the provider-native ones and ``custom``."""
    from harness.compaction.strategies.names import BUILTIN, PROVIDER_NATIVE

    return [name for name in BUILTIN if name not in PROVIDER_NATIVE and name != "custom"]


def shared_session_case(folder: Path, path: Path = SHARED_SESSION, cut: int = CUT) -> Path:
    """The shared session as a session dataset in ``folder`` (its conversation file and row); the row's path."""
    from langchain_core.messages.utils import count_tokens_approximately

    from harness.scenarios.conversation import to_messages

    data = json.loads(path.read_text(encoding="utf-8"))
    messages = []
    for m in data["messages"]:
        if m.get("role") not in ("system", "user", "assistant", "tool"):
            continue  # mini-swe-agent's exit record is not a message
        kept = {k: v for k, v in m.items() if k != "extra"}
        if kept.get("role") == "assistant" and kept.get("content") is None:
            kept["content"] = ""
        messages.append(kept)
    total = len(messages)
    prefix = messages[:cut]
    prefix[1] = {**prefix[1], "content": f"{prefix[1]['content']}\n\n{ADDED}"}
    while prefix[-1].get("role") == "assistant" and prefix[-1].get("tool_calls"):
        prefix.pop()  # a cut never leaves a tool call unanswered
    (folder / "astropy-12907.jsonl").write_text("".join(json.dumps(m) + "\n" for m in prefix), encoding="utf-8")
    row = {
        "id": "session-astropy-12907",
        "kind": "session",
        "description": "mini-swe-agent solving astropy__astropy-12907 (DeepSeek), replayed from its cut",
        "task": "Carry on with the task where you left off.",
        "conversation": "astropy-12907.jsonl",
        "session": {
            "format": "mini-swe-agent",
            "source": path.name,
            "messages": total,
            "tokens": count_tokens_approximately(to_messages(messages)),
            "cut": len(prefix),
            "cut_by": "index",
        },
        "probes": [PROBE],
    }
    dataset = folder / "sessions.jsonl"
    dataset.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return dataset


def replay_bench(path: Path = SHARED_SESSION) -> dict[str, Any]:
    """The shared session replayed under every offline strategy as the session eval: wall time and each arm's row."""
    if not path.is_file():
        return {"skipped": f"the shared session is absent ({path.name} beside the repository, ../shared/sessions/)"}
    from harness.scenarios.schema import load_scenarios
    from harness.scoring.scorers import outcome
    from harness.suites.execute import Settings, run_eval_case
    from harness.suites.replay import forget_controls

    arms = []
    with tempfile.TemporaryDirectory() as tmp:
        (case,) = load_scenarios([shared_session_case(Path(tmp), path)])
        forget_controls()
        started = time.perf_counter()
        for strategy in replay_strategies():
            began = time.perf_counter()
            result = run_eval_case("session", case, Settings.offline(strategy=strategy), run_id="bench-replay")
            trace = result.trace
            assert trace is not None
            verdict, keys = outcome(list(result.scores.values()), trace.error)
            arms.append(
                {
                    "strategy": strategy,
                    "outcome": verdict,
                    "decided_by": keys,
                    "window": trace.config.get("window"),
                    "compactions": [f"{e['type']} {e['tokens_before']}->{e['tokens_after']}" for e in trace.compactions()],
                    "control_answer": (trace.final.get("control") or {}).get("answers"),
                    "answers": trace.final.get("answers"),
                    "wall_s": round(time.perf_counter() - began, 2),
                }
            )
        wall = time.perf_counter() - started
    return {
        "session": path.name,
        "messages": case.session.messages if case.session else None,
        "cut": len(case.conversation),
        "wall_s": round(wall, 2),
        "arms": arms,
    }


def render_replay(replay: dict[str, Any]) -> list[str]:
    """The bench table's rows for the replay part."""
    if "skipped" in replay:
        return [f"| replay of the shared session | skipped: {replay['skipped']} |"]
    outcomes = ", ".join(f"{a['strategy']} {a['outcome']}" for a in replay["arms"])
    return [
        f"| replay: the shared session ({replay['messages']} messages, cut at {replay['cut']}) under "
        f"{len(replay['arms'])} strategies + the control, offline, one process | **{replay['wall_s']} s** ({outcomes}) |"
    ]
