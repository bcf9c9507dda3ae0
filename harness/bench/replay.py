"""``harness bench --only replay``: the shared real session replayed offline under the six built-in strategies that run
without a provider, as the session eval (each arm behind the full-context control), and the time it took.

The session is ../shared/sessions/ beside the repository (mini-swe-agent, 130 messages; never copied into it), imported
as a user would (`harness import mini-swe-agent FILE --cut 100`: its probes generated from the messages before the
cut). The figure is the wall time of the whole replay (the control once, then each arm; one process), with each arm's
outcome, the compactions it made and its probes' verdicts by type.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

SHARED_SESSION = Path(__file__).resolve().parents[2] / ".." / "shared" / "sessions" / "mini-swe-agent-astropy-12907.traj.json"
CUT = "100"  # messages before the cut: the session has no recorded compaction; 100 of its 129 leaves 29 after it


def replay_strategies() -> list[str]:
    """The built-in strategies that run offline: every one but the provider-native ones and ``custom``."""
    from harness.compaction.strategies.names import BUILTIN, PROVIDER_NATIVE

    return [name for name in BUILTIN if name not in PROVIDER_NATIVE and name != "custom"]


def shared_session_case(folder: Path, path: Path = SHARED_SESSION, cut: str = CUT) -> Path:
    """The shared session imported as a session case in ``folder`` (`harness import mini-swe-agent`, cut at ``cut``,
    its probes generated from the messages before the cut); the dataset's path."""
    from harness.sessions.importer import import_session

    return import_session("mini-swe-agent", str(path), folder, case_id="session-astropy-12907", cut=cut).row_file


def replay_bench(path: Path = SHARED_SESSION) -> dict[str, Any]:
    """The shared session replayed under every offline strategy as the session eval: wall time and each arm's row."""
    if not path.is_file():
        return {"skipped": f"the shared session is absent ({path.name} beside the repository, ../shared/sessions/)"}
    from harness.scenarios.schema import load_scenarios
    from harness.scoring.scorers import outcome
    from harness.scoring.scorers.session import probe_records
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
                    "probes": [
                        {"type": r["type"], "control": r["control"]["verdict"], "bucket": r["bucket"], "counts": r["valid"]}
                        for r in probe_records(trace, case)
                    ],
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
