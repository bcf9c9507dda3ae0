"""The whole cost per arm: tokens by role and kind, dollars, compression against the `none` arm, cost per success.

Read from the rows' ``cost`` (`harness.scoring.cost.case_cost`). Every run that ran counts (PASS, FAIL, INVALID and
ERROR all cost what their calls cost); per-task figures are means over those runs. A figure any run did not report
is n/a for the arm, never a partial sum: a missing cache field is unknown, not zero. Rows written before the cost
record existed have none and count as unknown.

- `role_table`: per arm, threshold and role (agent, summarizer, subagent, tool, compaction, and their total), the
  calls and the four token kinds per task, and USD per task (a row written before a role existed has none: unknown).
- `strategy_cost_table`: per arm and threshold, runs and PASS, tokens sent per task (and whose count), the
  compression ratio (tokens sent with the arm over the `none` arm's on the same case, threshold and trial, mean of
  the per-case ratios with the number of pairs, when the experiment has a `none` arm), USD per task, the cache-read
  share of input, and cost per successful task (every run's dollars over the PASS count, with that n).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.runs.results import row_outcome
from harness.scoring.cost import KINDS, ROLES
from harness.scoring.scorers import PASS

ROLE_ROWS = (*ROLES, "total")
NONE_STRATEGY = "none"


def _record(row: Mapping[str, Any], role: str) -> Mapping[str, Any] | None:
    cost = row.get("cost")
    if not isinstance(cost, Mapping):
        return None
    return cost.get("total") if role == "total" else (cost.get("roles") or {}).get(role)


def _mean(values: Sequence[Any]) -> float | None:
    """The mean per task, or None when there is no run or any run's figure is unknown."""
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)


def _groups(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[Mapping[str, Any]]]:
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((str(row.get("arm")), str(row.get("threshold") or "-")), []).append(row)
    return groups


def role_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Per arm, threshold and role: runs, calls per task, each token kind per task and USD per task (None: unknown)."""
    out = []
    for (arm, threshold), group in _groups(rows).items():
        for role in ROLE_ROWS:
            records = [_record(r, role) for r in group]
            item: dict[str, Any] = {"arm": arm, "threshold": threshold, "role": role, "runs": len(group)}
            if role != "total":
                item["calls"] = _mean([(rec or {}).get("calls") if rec is not None else None for rec in records])
            for kind in (*KINDS, "usd"):
                item[kind] = _mean([rec.get(kind) if rec is not None else None for rec in records])
            out.append(item)
    return pd.DataFrame(out)


def compression_ratios(rows: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], list[float]]:
    """Per (arm, threshold): tokens sent over the `none` arm's on each shared (case, threshold, trial), where both
    counts come from the same source (provider or approximate). Empty when the rows have no `none` arm."""
    sent = {}
    for row in rows:
        rec = (row.get("cost") or {}).get("sent") if isinstance(row.get("cost"), Mapping) else None
        if rec and rec.get("tokens") is not None:
            sent[id(row)] = (rec["tokens"], rec.get("source"))
    control = {_pair_key(r): sent[id(r)] for r in rows if r.get("strategy") == NONE_STRATEGY and id(r) in sent}
    ratios: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        base = control.get(_pair_key(row))
        if id(row) not in sent or base is None or base[1] != sent[id(row)][1] or not base[0]:
            continue
        ratios.setdefault((str(row.get("arm")), str(row.get("threshold") or "-")), []).append(sent[id(row)][0] / base[0])
    return ratios


def _pair_key(row: Mapping[str, Any]) -> tuple:
    """What a row shares with its `none` control: the case, eval, threshold and trial, and every part of its arm but
    the strategy (the variant of ``variant@strategy``, a version arm's ``+package==version``), so ``v1@sum`` pairs with
    ``v1@none``, never with ``v2@none``."""
    arm, strategy = str(row.get("arm") or ""), str(row.get("strategy") or "")
    rest = arm.replace(f"@{strategy}", "@", 1) if f"@{strategy}" in arm else arm.replace(strategy, "", 1)
    return (row["case_id"], row.get("eval"), str(row.get("threshold") or "-"), row.get("trial", 0), rest)


def strategy_cost_table(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Per arm and threshold: runs, PASS, tokens sent per task and their source, compression vs `none` (mean ratio,
    pairs), USD per task, cache-read share of input, USD per successful task and the PASS count it divides by."""
    ratios = compression_ratios(rows)
    has_control = any(r.get("strategy") == NONE_STRATEGY for r in rows)
    out = []
    for (arm, threshold), group in _groups(rows).items():
        passes = sum(1 for r in group if row_outcome(dict(r))[0] == PASS)
        totals = [_record(r, "total") for r in group]
        usd = [t.get("usd") if t is not None else None for t in totals]
        total_usd = None if not usd or any(u is None for u in usd) else sum(float(u) for u in usd if u is not None)
        sent = [(r.get("cost") or {}).get("sent") or {} for r in group]
        sources = sorted({str(s["source"]) for s in sent if s.get("source")})
        inputs = [t.get("input") if t is not None else None for t in totals]
        reads = [t.get("cache_read") if t is not None else None for t in totals]
        mine = ratios.get((arm, threshold), [])
        out.append(
            {
                "arm": arm,
                "threshold": threshold,
                "runs": len(group),
                "PASS": passes,
                "tokens sent per task": _mean([s.get("tokens") for s in sent]),
                "counted by": "/".join(sources) or None,
                "vs none": (sum(mine) / len(mine) if mine else None) if has_control else None,
                "pairs": len(mine) if has_control else None,
                "USD per task": _mean(usd),
                "cache read share": _share(reads, inputs),
                "USD per PASS": total_usd / passes if total_usd is not None and passes else None,
            }
        )
    return pd.DataFrame(out)


def _share(parts: Sequence[Any], wholes: Sequence[Any]) -> float | None:
    if not wholes or any(v is None for v in (*parts, *wholes)) or not sum(wholes):
        return None
    return sum(parts) / sum(wholes)


def simulated_prices(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Role -> the list model whose price a reference model was given, over every row with simulated prices."""
    out: dict[str, str] = {}
    for row in rows:
        cost = row.get("cost")
        if isinstance(cost, Mapping) and cost.get("simulated_prices"):
            out.update({k: v for k, v in (cost.get("priced_as") or {}).items() if v})
    return out
