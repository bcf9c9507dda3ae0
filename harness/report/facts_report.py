"""What a compaction loses, by kind: the report section drawn from the rows' per-fact records (``row["facts"]``).

Three tables and one chart, per arm (and threshold, in an experiment):

- by fact type: how many facts left view, the share retained (its latest value in the request right after the
  compaction that removed its statement) and kept through every later round, and, over the facts a valid question
  asked, the share answered right beside the share still findable by keyword in a summary or the history file;
- survival per type per summary round, with the cliff round (the first round whose survival falls under the
  threshold), as a table and a chart;
- probe scores per kind (recall, artifact, continuation, decision): valid questions, answered right, stale answers,
  and the way the answer came back.

Rows that ended in ERROR measured nothing and are left out; a question that was not valid (its fact still in view)
counts in no rate. Every rate prints its n.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.report._document import Document
from harness.rows import ResultRow
from harness.scoring.scorers import ERROR
from harness.scoring.scorers.facts import CLIFF_THRESHOLD, cliff_round
from harness.task_format import FACT_TYPES, PROBES

VIA = ("summary", "history", "recall")
_QUESTION_FIELDS = ("turn", "probe", "valid", "correct", "stale", "via", "expected", "answered")


def fact_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per fact record of every non-ERROR result row: arm, threshold, case, trial and the record's fields
    (``question`` flattened to ``q_*`` columns)."""
    out = []
    for row in rows:
        if row.get("outcome") == ERROR:
            continue
        for rec in row.get("facts") or ():
            question = rec.get("question") or {}
            out.append(
                {
                    "arm": row.get("arm"),
                    "threshold": str(row["threshold"]) if row.get("threshold") is not None else None,
                    "case_id": row.get("case_id"),
                    "trial": row.get("trial"),
                    **{k: v for k, v in rec.items() if k != "question"},
                    "asked": bool(question),
                    **{f"q_{k}": question.get(k) for k in _QUESTION_FIELDS},
                }
            )
    return pd.DataFrame(out)


def _groups(frame: pd.DataFrame) -> list[str]:
    return ["arm", "threshold"] if frame["threshold"].notna().any() else ["arm"]


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({k / n:.0%})" if n else "-"


def _ordered_types(frame: pd.DataFrame) -> list[str]:
    present = set(frame["type"])
    return [t for t in FACT_TYPES if t in present] + sorted(present - set(FACT_TYPES))


def loss_by_type(frame: pd.DataFrame) -> pd.DataFrame:
    """Per arm (threshold) and fact type: left view, retained, kept through every round, asked, answered right,
    findable by keyword, and the gap (findable minus answered, in points)."""
    table = []
    for keys, part in frame.groupby(_groups(frame), dropna=False, sort=False):
        for kind in _ordered_types(part):
            facts = part[part["type"] == kind]
            left = facts[facts["left_view_round"].notna()]
            asked = facts[facts["asked"] & (facts["q_valid"] == True)]  # noqa: E712
            answered = int((asked["q_correct"] == True).sum()) if len(asked) else 0  # noqa: E712
            findable = int((asked["findable"] == True).sum()) if len(asked) else 0  # noqa: E712
            gap = f"{(findable - answered) / len(asked):+.0%}" if len(asked) else "-"
            table.append(
                {
                    **dict(zip(_groups(frame), keys if isinstance(keys, tuple) else (keys,), strict=True)),
                    "fact type": kind,
                    "facts": len(facts),
                    "left view": len(left),
                    "retained": _share(int((left["retained"] == True).sum()), len(left)),  # noqa: E712
                    "kept every round": _share(int((left["survived"] == True).sum()), len(left)),  # noqa: E712
                    "asked (valid)": len(asked),
                    "answered right": _share(answered, len(asked)),
                    "findable by keyword": _share(findable, len(asked)),
                    "findable - answered": gap,
                }
            )
    return pd.DataFrame(table)


def survival_rounds(frame: pd.DataFrame) -> dict[tuple, dict[str, list[tuple[int, int]]]]:
    """{(arm[, threshold]): {type: [(kept, out of view) per round]}}: after round r, of the facts whose statement had
    left view by then, how many had been kept at every round since (the scorer's survival,
    `harness.scoring.scorers.facts`, counted over every case of the arm)."""
    out: dict[tuple, dict[str, list[tuple[int, int]]]] = {}
    for keys, part in frame.groupby(_groups(frame), dropna=False, sort=False):
        key = keys if isinstance(keys, tuple) else (keys,)
        per_type: dict[str, list[tuple[int, int]]] = {}
        for kind in _ordered_types(part):
            rounds = [r for r in part[part["type"] == kind]["rounds"] if isinstance(r, list)]
            depth = max((len(r) for r in rounds), default=0)
            counts = []
            for i in range(depth):
                out_of_view = [r[: i + 1] for r in rounds if i < len(r) and r[i] is not None]
                counts.append((sum(all(v is not False for v in r) for r in out_of_view), len(out_of_view)))
            per_type[kind] = counts
        out[key] = per_type
    return out


def cliff(counts: list[tuple[int, int]], threshold: float = CLIFF_THRESHOLD) -> int | None:
    """The cliff round of per-round counts: `cliff_round` over their shares (a round with nothing out of view has
    none)."""
    return cliff_round([k / n if n else None for k, n in counts], threshold)


def survival_table(survival: dict[tuple, dict[str, list[tuple[int, int]]]], groups: list[str], threshold: float) -> pd.DataFrame:
    depth = max((len(c) for per in survival.values() for c in per.values()), default=0)
    table = []
    for key, per_type in survival.items():
        for kind, counts in per_type.items():
            item: dict[str, Any] = dict(zip(groups, key, strict=True))
            item["fact type"] = kind
            for i in range(depth):
                item[f"round {i + 1}"] = _share(*counts[i]) if i < len(counts) else "-"
            found = cliff(counts, threshold)
            item["cliff round"] = found if found is not None else "none"
            table.append(item)
    return pd.DataFrame(table)


def probe_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per arm (threshold) and probe kind: questions asked, valid, answered right, stale answers, and the way back."""
    asked = frame[frame["asked"]]
    table: list[dict[str, Any]] = []
    if asked.empty:
        return pd.DataFrame(table)
    for keys, part in asked.groupby(_groups(frame), dropna=False, sort=False):
        for probe in [p for p in PROBES if p in set(part["q_probe"])]:
            q = part[part["q_probe"] == probe]
            valid = q[q["q_valid"] == True]  # noqa: E712
            table.append(
                {
                    **dict(zip(_groups(frame), keys if isinstance(keys, tuple) else (keys,), strict=True)),
                    "probe": probe,
                    "asked": len(q),
                    "valid": len(valid),
                    "answered right": _share(int((valid["q_correct"] == True).sum()), len(valid)),  # noqa: E712
                    "stale answers": int((valid["q_stale"] == True).sum()),  # noqa: E712
                    **{f"via {v}": int((valid["q_via"] == v).sum()) for v in VIA},
                }
            )
    return pd.DataFrame(table)


def plot_survival(survival: dict[tuple, dict[str, list[tuple[int, int]]]], threshold: float, source: str):  # noqa: ANN201
    """One panel per arm: survival per fact type by round, the cliff threshold dashed."""
    from matplotlib.ticker import MaxNLocator

    from harness.report.plots import line_style, subplots

    panels = [(k, v) for k, v in survival.items() if any(v.values())]
    if not panels:
        return None
    fig, axes = subplots(1, len(panels), figsize=(min(4.2 * len(panels), 14), 3.4), squeeze=False)
    for ax, (key, per_type) in zip(axes[0], panels, strict=False):
        kinds = list(per_type)
        for i, kind in enumerate(kinds):
            counts = per_type[kind]
            xs = [r + 1 for r, (_, n) in enumerate(counts) if n]
            ys = [k / n for k, n in counts if n]
            color, style, width = line_style(i, len(kinds))
            ax.plot(xs, ys, marker="o", ms=4, lw=width, ls=style, color=color, label=kind)
        ax.axhline(threshold, color="red", lw=0.8, ls="--", label=f"cliff threshold {threshold:g}")
        ax.set_ylim(-0.05, 1.05)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("compaction round")
        ax.set_ylabel("retained (of facts out of view)")
        ax.set_title(" @ ".join(str(k) for k in key if k is not None), fontsize=8)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7, frameon=False)
    if source:
        fig.suptitle(source, fontsize=8)
    fig.tight_layout()
    return fig


def add_facts_section(doc: Document, rows: Sequence[ResultRow], out_dir: Path, source: str, threshold: float) -> bool:
    """The section in a run or experiment report; False (nothing added) when no row has fact records."""
    frame = fact_frame(rows)
    if frame.empty:
        return False
    from harness.report.plots import save

    groups = _groups(frame)
    doc.heading("What a compaction loses, by kind")
    doc.text(
        "Per fact type: facts whose statement left view (compacted away), the share **retained** (its latest value in "
        "the request right after that compaction: the summary or the kept messages) and **kept every round** since; "
        "over the facts a valid question asked, the share **answered right** (the latest value, read from the answer, "
        "never a stale one) beside the share **findable by keyword** (the value in a summary, or its statement "
        "offloaded to the history file). ERROR runs are left out; an invalid question counts in no rate."
    )
    doc.table(loss_by_type(frame))
    survival = survival_rounds(frame)
    doc.heading("Survival per fact type and round", level=3)
    doc.text(
        f"After compaction round r, of the facts whose statement had left view by then: how many still had their latest "
        f"value in the request (k/n). The cliff round is the first round under {threshold:.0%} ('none': never)."
    )
    doc.table(survival_table(survival, groups, threshold))
    fig = plot_survival(survival, threshold, source)
    if fig is not None:
        doc.image(save(fig, Path(out_dir) / "fact_survival.png"), "fact survival per type and compaction round")
    probes = probe_table(frame)
    if not probes.empty:
        doc.heading("Probe scores per kind", level=3)
        doc.text(
            "Valid questions only (each question's facts out of view when it was asked). 'via' is where the right "
            "answer came from: the summary in view, a page of the history file, or a cleared tool called again."
        )
        doc.table(probes)
    return True


def judge_section(doc: Document, run_dir: Path) -> None:
    """The judge's calibration (judge.json, from `harness judge calibrate`, in a run or experiment directory): kappa with
    n and interval overall and per rubric, a FLAG line when it is below the threshold or undefined, the judge's tokens
    and cost. Nothing when it was not calibrated."""
    from harness.scoring.calibration import load_judge_file, rubric_rows, summary_line, usage_line

    result = load_judge_file(run_dir)
    if result is None:
        return
    doc.heading("Judge")
    doc.text(
        summary_line(result) + ". Agreement with the deterministic verdicts on the same answers, each probe kind "
        "under its rubric (harness/judge_prompt.py)."
    )
    rows = rubric_rows(result)
    if rows:
        doc.table(pd.DataFrame(rows))
    doc.text(usage_line(result) + ".")
    if result["flagged"]:
        doc.note(f"**FLAG:** {result['flag_reason']}; the judge's scores are not to be trusted on their own.")
