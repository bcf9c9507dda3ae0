"""The "Known upstream failures" section of run and experiment reports: each declared known upstream check a case
scored (`harness.runs.results.upstream_findings`), with its issue link and evidence, apart from FAIL, INVALID and
ERROR; a declared check that passed is listed as "upstream fixed?"."""

from __future__ import annotations

from collections.abc import Sequence

from harness.report._document import Document
from harness.rows import ResultRow
from harness.runs.results import upstream_findings

HEADING = "Known upstream failures"


def upstream_lines(rows: Sequence[ResultRow]) -> list[str]:
    """One bullet per finding: case (arm, trial), check, link, and its evidence or "upstream fixed?"."""
    lines = []
    for f in upstream_findings(rows):
        where = f"**{f['case_id']}** [{f['arm']}] (trial {f['trial']}, {f['eval']})"
        if f["fixed"]:
            lines.append(f"{where}: `{f['check']}` passed: **upstream fixed?** ({f['url']}); check and drop the declaration")
        else:
            lines.append(f"{where}: `{f['check']}` fails as declared, {f['url']}: {f['evidence']}")
    return lines


def add_upstream_section(doc: Document, rows: Sequence[ResultRow]) -> None:
    """The section, when any row scored a declared known upstream check (nothing otherwise)."""
    lines = upstream_lines(rows)
    if not lines:
        return
    doc.heading(HEADING)
    doc.text(
        "Checks the installed deepagents fails for any model, declared with their issue in the eval's registry entry "
        "(`known_upstream`). A case whose failed checks are all declared is KNOWN_UPSTREAM: never a PASS or a FAIL, "
        "counted in no rate (like INVALID). A declared check that passed means the upstream issue may be fixed."
    )
    doc.bullets(lines)
