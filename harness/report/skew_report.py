"""The token-counter skew report: what `harness.analysis.token_skew.skew` measured, as token_skew.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from harness.report._document import Document


def write_skew(result: dict[str, Any], out_dir: str | Path) -> Path:
    """token_skew.md in ``out_dir``: the worst approximate/exact ratio per content type and the calls that passed the
    window before the trigger fired (`harness.analysis.token_skew.skew`'s result)."""
    doc = Document("Token-counter skew")
    doc.text(
        f"Exact counts from: **{result['source']}** (where no provider reported usage: the messages in that count, "
        "the system prompt and tool schemas at the approximate count). Ratio = approximate / exact: below 1 the counter "
        "deepagents uses to trigger compaction underestimates the request."
    )
    doc.heading("Worst ratio per content type")
    doc.table(result["types"])
    doc.heading("Calls whose exact size passed the window before the trigger fired")
    doc.table(result["late"] if not result["late"].empty else pd.DataFrame([{"calls": "none"}]))
    md, _ = doc.write(Path(out_dir), stem="token_skew")
    return md
