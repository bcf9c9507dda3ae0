"""`trace.comparable`: a trace without what may differ between two offline runs of one case and seed (ids and times),
and nothing more (tests/runs/test_reproducible.py and test_reproducible_subagents.py compare runs with it)."""

import json
import re
from pathlib import Path

from harness.trace.schema import Trace, comparable, load_trace

V1 = Path(__file__).resolve().parents[1] / "data" / "trace_v1_needle.json.gz"  # harness run, 2026-11-22, schema 1


def test_comparable_keeps_history_file_names_and_drops_only_offload_times():
    """Offline every history file is named from the case (a subagent's too), so two runs whose names differ are not the
    same trace; deepagents' ``## Summarized at <time>`` headings are wall-clock and may differ."""
    trace = load_trace(V1)
    text = json.dumps(trace.to_dict())
    (name,) = set(re.findall(r"session_[0-9a-f]{32}", text))
    for part in ("final", "messages"):  # the file's name in the final state, and in the summary message that names it
        renamed = trace.to_dict()
        renamed[part] = json.loads(json.dumps(renamed[part]).replace(name, "session_" + "0" * 32))
        assert renamed[part] != trace.to_dict()[part] and comparable(Trace.from_dict(renamed)) != comparable(trace), part
    retimed = re.sub(r"## Summarized at [0-9T:.+-]+", "## Summarized at 2030-01-01T00:00:00.000001+00:00", text)
    assert retimed != text and comparable(Trace.from_dict(json.loads(retimed))) == comparable(trace)
