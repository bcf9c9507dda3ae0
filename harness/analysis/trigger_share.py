"""Where compaction really fired, per content type: the estimate eval's rows as one table (approximate against
exact tokens at the first compaction, their ratio, the declared share of the window and the share by the exact
count), read from the rows' measures (`harness.scoring.scorers.estimate`). `harness tokens RUN_DIR` prints it and the
run report shows it (`harness.report.estimate_report`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.trace import exact_tokens

EVAL = "estimate"


def count_said(agent_model: str | None) -> str:
    """Which exact count a row's figures used (`harness.trace.exact_tokens.label`, the agent model's encoding)."""
    return exact_tokens.label(exact_tokens.encoding_for_model(agent_model))


def _share(value: Any) -> str:  # noqa: ANN401 - a row's score value
    return f"{value:.1%}" if isinstance(value, (int, float)) else "none"


def estimate_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One line per estimate row (ERROR rows measured nothing and are left out): content type, strategy, trial,
    approximate and exact tokens where compaction fired, approximate / exact, declared and exact share, outcome and the
    exact count it used."""
    out = []
    for row in rows:
        if row.get("eval") != EVAL or row.get("outcome") == "ERROR":
            continue
        scores = row.get("scores") or {}
        trigger = [t for t in (row.get("config") or {}).get("trigger") or [] if t and t[0] == "fraction"]
        out.append(
            {
                "content": str(row.get("case_id", "")).removeprefix("estimate-"),
                "strategy": row.get("strategy"),
                "trial": row.get("trial"),
                "approx": scores.get("estimate_approx_tokens"),
                "exact": scores.get("estimate_exact_tokens"),
                "approx / exact": scores.get("estimate_ratio"),
                "declared": _share(min(float(t[1]) for t in trigger)) if trigger else "none",
                "fired at (exact)": _share(scores.get("trigger_share_exact")),
                "outcome": row.get("outcome"),
                "exact count": count_said(row.get("agent_model")),
            }
        )
    return pd.DataFrame(out)
