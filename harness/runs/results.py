"""Result rows: one JSON line per case in ``results.jsonl``, appended as cases finish; the module that writes and
reads them (their types: `harness.rows`).

A row is plain JSON: the ids, the config, the models, every score, event counts, token totals, wall time and the
trace's file name. It is checked against its type (`ResultRow`, `CellRow`) as it is written and as it is read (an
error names the file, line and field), and `read_rows` upgrades a row of any earlier schema (`upgrade_row`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from harness._version import package_versions
from harness.compaction.config import DEFAULT_STRATEGY
from harness.errors import HarnessError
from harness.rows import ROW_SCHEMA_VERSION, CellRow, ExperimentMeta, ResultRow, read_experiment_meta, validate
from harness.scenarios.schema import Scenario
from harness.scoring.cache_use import cache_metrics
from harness.scoring.cost import case_cost, cost_metrics
from harness.scoring.metrics import case_metrics, provider_retry_metrics
from harness.scoring.scorers import ERROR, FAIL, GATING, INVALID, KNOWN_UPSTREAM, PASS, VALIDITY, Score, fact_records, outcome
from harness.scoring.scorers.session import session_record
from harness.suites.registry import SUITES
from harness.trace.schema import EVENT_TYPES, Trace

if TYPE_CHECKING:  # pandas is imported by read_results when called: a run's first case does not wait for it
    import pandas as pd

RowT = TypeVar("RowT", ResultRow, CellRow)


def eval_version(name: str) -> int | None:
    """The registry's version of eval ``name`` (`EvalSuite.version`), None for a name the registry does not know."""
    suite = SUITES.get(name)
    return suite.version if suite is not None else None


def known_upstream_of(name: str) -> dict[str, str]:
    """Eval ``name``'s declared known upstream failures (`EvalSuite.known_upstream`: check -> issue URL); none for a
    name the registry does not know."""
    suite = SUITES.get(name)
    return dict(suite.known_upstream) if suite is not None else {}


def row_eval_version(row: Mapping[str, Any]) -> int | None:
    """The eval version a row was scored under: rows written before versions existed were scored under version 1
    (every eval started at 1 when versions were introduced, 2026-11-26); a row that ran as no eval (``eval`` null, an
    ad-hoc run) has none."""
    if "eval" in row and row["eval"] is None:
        return None
    return int(row.get("eval_version") or 1)


def result_row(
    trace: Trace,
    scores: list[Score],
    *,
    trace_file: str,
    scenario: Scenario | None = None,
    scorers: str = "default",
    eval_name: str | None = None,
) -> ResultRow:
    """One case's row. ``scorers`` names the scorer set that produced ``scores`` (``harness score`` re-applies it);
    ``eval_name`` the registry entry the case ran as (None: it ran as no eval, an ad-hoc run: ``eval`` and
    ``eval_version`` are null and no known upstream failure is declared)."""
    agent = trace.agent_calls()
    summ = trace.summarizer_calls()
    declared = known_upstream_of(eval_name) if eval_name is not None else {}
    result, decided_by = outcome(scores, trace.error, declared)
    counts = Counter(e["type"] for e in trace.events)
    usage_in = [c["usage"].get("input_tokens") for c in trace.calls if c.get("usage")]
    cost = case_cost(trace)
    row: ResultRow = {
        "schema_version": ROW_SCHEMA_VERSION,
        "run_id": trace.run_id,
        "case_id": trace.case_id,
        "kind": trace.kind,
        "eval": eval_name,
        "eval_version": eval_version(eval_name) if eval_name is not None else None,
        "trial": trace.trial,
        "seed": trace.seed,
        "arm": trace.config.get("name"),  # the compared configuration: a variant, or variant@strategy in a grid
        "strategy": trace.config.get("strategy", DEFAULT_STRATEGY),
        "config": trace.config,
        "agent_model": trace.agent_model,
        "summary_model": trace.summary_model,
        "simulated": trace.simulated,
        "scorers": scorers,
        "outcome": result,
        "outcome_keys": decided_by,
        "scores": {s.key: s.value for s in scores},
        "passed": {s.key: bool(s.value) for s in scores if s.role in GATING},
        "validity": [s.key for s in scores if s.role == VALIDITY],
        "known_upstream": {s.key: declared[s.key] for s in scores if s.key in declared and s.role in GATING},
        "answers": trace.final.get("answers", []),
        "case": {"haystack_tokens": scenario.haystack_tokens, "needle_depth": scenario.needle_depth} if scenario else {},
        "metrics": {
            **case_metrics(trace, scores, trace.kind, cost),
            **cost_metrics(cost),
            **cache_metrics(trace),
            **provider_retry_metrics(trace),
        },
        "explanations": {s.key: s.explanation for s in scores},
        "events": {k: counts.get(k, 0) for k in EVENT_TYPES},
        "tokens": {
            "agent_input": sum(c["approx_tokens"] for c in agent),
            "summarizer_input": sum(c["approx_tokens"] for c in summ),
            "peak_context": max((c["approx_tokens"] for c in agent), default=0),
            "provider_input": sum(usage_in) if usage_in else None,
            "counter": "approximate (count_tokens_approximately)",
        },
        "calls": {"agent": len(agent), "summarizer": len(summ)},
        "cost": cost,
        "wall_time_s": trace.wall_time_s,
        "error": trace.error,  # {type, status, message...} of the failure, None when the case ran through
        "trace": trace_file,
        "packages": package_versions(),  # the versions that ran (the row is written in the process that ran the case)
    }
    if scenario is not None and (scenario.facts or scenario.needles) and (scenario.kind == "probe" or scorers == "retention"):
        row["facts"] = fact_records(trace, scenario)  # per fact: retention through the rounds and its question
    if scenario is not None and scenario.kind == "session" and scenario.probes:
        row["session"] = session_record(trace, scenario)  # the window, each compaction, the control, each probe
    return row


# The only fields of a row that differ between two offline runs of the same command and seed.
VOLATILE_ROW_FIELDS = ("run_id", "wall_time_s")
SCENARIOS_FILE = "scenarios.jsonl"  # in a run directory: the scenarios it used that are in no dataset file

# Validity keys of rows written before scores had a validity kind (their keys never change).
LEGACY_VALIDITY_KEYS = (
    "compressed",  # renamed "compacted" when compaction strategies came (old rows keep it)
    "needle_summarized_away",
    "chain_length_reached",
    "evicted",
    "overflowed",
    "args_clipped",
    "subagent_compressed",
)


def row_outcome(row: Mapping[str, Any]) -> tuple[str, list[str]]:
    """(PASS | FAIL | INVALID | ERROR | KNOWN_UPSTREAM, the keys or cause that decided it) for a results row, old rows included."""
    if "outcome" in row:
        return row["outcome"], list(row.get("outcome_keys", []))
    validity = set(row.get("validity", LEGACY_VALIDITY_KEYS))
    failed = [k for k, ok in row["passed"].items() if not ok]
    if "run_completed" in failed:
        return FAIL, [k for k in failed if k not in validity]
    invalid = [k for k in failed if k in validity]
    if invalid:
        return INVALID, invalid
    return (FAIL, failed) if failed else (PASS, [])


VALID = (PASS, FAIL)  # outcomes that count in rates (KNOWN_UPSTREAM, like INVALID and ERROR, counts in none)


UPSTREAM_REASON = "known upstream failure"
"""How a pytest xfail reason for a known upstream failure starts (the terminal summary finds them by it)."""


def upstream_verdict(row: ResultRow) -> tuple[str, str] | None:
    """What pytest makes of ``row`` beyond its checks: ``("xfail", reason)`` for a KNOWN_UPSTREAM case (the reason
    names every failed check and its link), ``("fixed", message)`` for a case that passed a declared known upstream
    check (a strict xfail's XPASS: someone must look, and drop the declaration), None otherwise."""
    result, keys = row_outcome(row)
    declared = row.get("known_upstream") or {}
    if result == KNOWN_UPSTREAM:
        return "xfail", f"{UPSTREAM_REASON}: " + "; ".join(f"{k} ({declared.get(k, 'no link')})" for k in keys)
    fixed = [k for k in declared if (row.get("passed") or {}).get(k)]
    if fixed and result == PASS:
        return "fixed", (
            f"[XPASS(strict)] {row['case_id']}: declared {UPSTREAM_REASON} passed (upstream fixed?): "
            + "; ".join(f"{k} ({declared[k]})" for k in fixed)
            + ". Check the issue, then remove the check from the eval's known_upstream."
        )
    return None


def upstream_findings(rows: Sequence[ResultRow]) -> list[dict[str, Any]]:
    """Every declared known upstream check a row scored (`EvalSuite.known_upstream`), one record each: the case, arm,
    trial, check, issue link, whether it still fails (``fixed``: False) or passed ("upstream fixed?", ``fixed``:
    True), and the evidence (the check's explanation and the row's ``upstream_evidence`` metrics when present).
    A row of a case that errored or was invalid adds nothing: it did not test the check."""
    found = []
    for row in rows:
        result = row_outcome(row)[0]
        if result in (ERROR, INVALID):
            continue
        for key, url in (row.get("known_upstream") or {}).items():
            if key not in row.get("passed", {}):
                continue
            found.append(
                {
                    "case_id": row["case_id"],
                    "arm": row.get("arm"),
                    "trial": row.get("trial", 0),
                    "eval": row.get("eval") or row.get("kind"),
                    "check": key,
                    "url": url,
                    "fixed": bool(row["passed"][key]),
                    "outcome": result,
                    "evidence": (row.get("explanations") or {}).get(key, ""),
                }
            )
    return found


def is_valid(row: Mapping[str, Any]) -> bool:
    """The run tested what it claims (PASS or FAIL), so it counts in rates."""
    return row_outcome(row)[0] in VALID


def is_error(row: Mapping[str, Any]) -> bool:
    """The case ended in ERROR (a provider or harness error): it counts in no rate."""
    return row_outcome(row)[0] == ERROR


def error_causes(rows: Sequence[ResultRow]) -> Counter:
    """How many rows ended in ERROR, by cause (``agent: HTTP 503 InternalServerError``)."""
    return Counter(", ".join(row_outcome(r)[1]) or "unknown" for r in rows if is_error(r))


def outcome_line(rows: Sequence[ResultRow]) -> str:
    """'38 case runs: 36 PASS, 1 FAIL, 1 INVALID; 36/37 valid runs passed every check', plus ERROR causes."""
    counts = Counter(row_outcome(r)[0] for r in rows)
    valid = sum(counts[k] for k in VALID)
    parts = ", ".join(f"{counts[k]} {k}" for k in (PASS, FAIL, INVALID, ERROR, KNOWN_UPSTREAM) if counts[k])
    line = f"{len(rows)} case runs: {parts or 'none'}; {counts[PASS]}/{valid} valid runs passed every check"
    if counts[ERROR]:
        causes = "; ".join(f"{n} x {cause}" for cause, n in error_causes(rows).most_common())
        line += f" ({counts[ERROR]} ERROR, counted in no rate: {causes})"
    return line


def retries_line(rows: Sequence[ResultRow]) -> str | None:
    """'provider SDK retries: 2 in 1 of 3 cases, 0.8 s of backoff' (`harness.agent.sdk_retries`: the OpenAI and
    Anthropic SDKs' retries inside the client, which no call record shows), or '... none in 3 cases'; then the
    recorded model calls that failed after them ('; 1 failed model call in 1 case, re-sent or ended the case'); and the
    cases that have no count (a trace written before they were counted). None when no row has a count (no live
    model: an offline run's report has no such line)."""
    metrics = [r.get("metrics") or {} for r in rows]
    counted = [m["provider_retries"] for m in metrics if m.get("provider_retries") is not None]
    if not counted:
        return None
    total, hit = sum(counted), sum(1 for n in counted if n)
    waited = sum(m.get("provider_retry_backoff_s") or 0.0 for m in metrics)
    line = (
        f"provider SDK retries: {total} in {hit} of {_cases(len(counted))}, {waited:.1f} s of backoff"
        if total
        else f"provider SDK retries: none in {_cases(len(counted))}"
    )
    failed = [m.get("failed_model_calls") or 0 for m in metrics]
    if sum(failed):
        calls = sum(failed)
        line += f"; {calls} failed model call{'s' if calls != 1 else ''} in {_cases(sum(1 for n in failed if n))}, re-sent or ended the case"
    missing = len(rows) - len(counted)
    return line + (f" ({_cases(missing)} without a count)" if missing else "")


def _cases(n: int) -> str:
    return f"{n} case{'s' if n != 1 else ''}"


def append_jsonl(path: str | Path, record: Mapping[str, Any]) -> None:
    """Append one JSON line and flush it to disk: a killed run keeps every finished line. For records that are not
    result rows (scenario rows, not-run records); a result row goes through `append_row` (checked first)."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, default=str) + "\n")
        fh.flush()


def append_row(path: str | Path, row: ResultRow) -> None:
    """Append one result row (a cell's too: checked as `CellRow` when it has ``cell_id``) and flush it to disk: a
    killed run keeps every finished case. A row that does not match its type is refused (a HarnessError naming the
    field), never written."""
    validate(CellRow if "cell_id" in row else ResultRow, row, f"{path}, the row to append")
    append_jsonl(path, row)


def _jsonl_lines(path: Path, repair: bool) -> list[tuple[int, Any]]:
    """(line number, JSON value) of each line of an append-only JSONL file. A torn last line (a kill during the write)
    is skipped, and with ``repair`` removed from the file so that appending can continue."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out, good = [], []
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append((i + 1, json.loads(line)))
            good.append(line if line.endswith("\n") else line + "\n")
        except json.JSONDecodeError:
            if i != len(lines) - 1:
                raise HarnessError(f"{path}: line {i + 1} is not valid JSON") from None
            if repair:
                path.write_text("".join(good), encoding="utf-8")
    return out


def torn_last_line(path: str | Path) -> int | None:
    """The number of the last line of an append-only JSONL file when it was cut mid-write (not valid JSON), else None.
    The readers skip such a line (`read_rows`, `read_cells`); whoever reads the file for a user names it
    (`torn_line_note`), so a dropped case is never silent."""
    path = Path(path)
    if not path.exists():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines or not lines[-1].strip():
        return None
    try:
        json.loads(lines[-1])
    except json.JSONDecodeError:
        return len(lines)
    return None


def torn_line_note(path: str | Path, rerun: bool = False) -> str | None:
    """What `harness score` and `harness report` say of ``path``'s torn last line (`torn_last_line`), or None."""
    line = torn_last_line(path)
    if line is None:
        return None
    then = "; `harness experiment run` runs that cell again on resume" if rerun else ""
    return (
        f"{path}: line {line} was cut mid-write (not valid JSON, a run killed while writing it): "
        f"that row is not counted in any figure{then}"
    )


def read_jsonl(path: str | Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """The records of a JSONL file that is not a result file (scenarios.jsonl, not_run.jsonl), as `_jsonl_lines` reads them."""
    return [record for _, record in _jsonl_lines(Path(path), repair)]


def read_rows(path: str | Path, *, repair: bool = False) -> list[ResultRow]:
    """The result rows of results.jsonl (or every row of cells.jsonl) as `_jsonl_lines` reads them, each upgraded
    (`upgrade_row`) and checked against `ResultRow` (a HarnessError names the file, line and field)."""
    path = Path(path)
    return [_checked_row(ResultRow, path, n, raw) for n, raw in _jsonl_lines(path, repair)]


def _checked_row(kind: type[RowT], path: Path, line: int, raw: Any) -> RowT:
    where = f"{path}, line {line}"
    if not isinstance(raw, dict):
        raise HarnessError(f"{where}: expected a JSON object, got {type(raw).__name__}")
    return validate(kind, upgrade_row(raw, where), where)


def upgrade_row(row: Mapping[str, Any], where: str = "row") -> dict[str, Any]:
    """``row`` as schema `ROW_SCHEMA_VERSION` has it, from any earlier schema (see there); not checked against
    `ResultRow` (`read_rows` checks what this returns). Raises HarnessError for a row written by a newer harness (its
    fields cannot be known)."""
    version = row.get("schema_version")
    if isinstance(version, int) and version > ROW_SCHEMA_VERSION:
        raise HarnessError(
            f"{where}: schema_version {version} is newer than this harness reads ({ROW_SCHEMA_VERSION}); upgrade the harness"
        )
    if "variant" in row and "arm" not in row:  # schema 1
        row = {("arm" if k == "variant" else k): v for k, v in row.items()}
    if "scores" not in row:  # not a result row (a hand-made line): only the rename applies
        return dict(row)
    if "outcome" not in row and "passed" in row:
        outcome, keys = row_outcome(row)
        row = {**row, "outcome": outcome, "outcome_keys": keys}
    return {  # a schema-4 row written before known_upstream was recorded lacks it too
        **row,
        "validity": row.get("validity", [k for k in row.get("passed") or {} if k in LEGACY_VALIDITY_KEYS]),
        "strategy": row.get("strategy") or DEFAULT_STRATEGY,  # rows before strategies (2026-11-23) ran deepagents'
        "answers": row.get("answers", []),  # the first day's rows kept no answers
        **({"attempt": row.get("attempt", 1)} if "cell_id" in row else {}),  # cells before re-runs after an ERROR
        "case": row.get("case") or {},  # rows before validity kinds may lack these three
        "metrics": row.get("metrics") or {},
        "packages": row.get("packages") or {},
        "known_upstream": row.get("known_upstream") or {},
        "eval": row["eval"] if "eval" in row else row.get("kind"),  # null: ran as no eval; absent: before rows named it
        "scorers": row.get("scorers", "default"),
        "eval_version": row_eval_version(row),
        "schema_version": ROW_SCHEMA_VERSION,
    }


# Row fields that are not columns of `read_results` as they are: nested, flattened below with a prefix or read from the
# rows themselves (facts: per-fact records of probe and retention rows; known_upstream: {check: URL}, `upstream_findings`).
_NESTED_FIELDS = frozenset(
    "scores passed explanations events tokens calls config answers metrics case validity outcome_keys facts packages "
    "known_upstream".split()
)


def read_results(path: str | Path) -> pd.DataFrame:
    """results.jsonl (or a run directory) as a flat frame: one row per case, scores as columns."""
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        path = path / "results.jsonl"
    rows = read_rows(path)
    flat = []
    for row in rows:
        item = {k: v for k, v in row.items() if k not in _NESTED_FIELDS}
        item["outcome"] = row_outcome(row)[0]
        item.update({f"case.{k}": v for k, v in row.get("case", {}).items()})
        item.update({f"metric.{k}": v for k, v in row.get("metrics", {}).items()})
        item.update({f"score.{k}": v for k, v in row["scores"].items()})
        item.update({f"events.{k}": v for k, v in row_events(row).items()})
        item.update({f"tokens.{k}": v for k, v in row["tokens"].items() if k != "counter"})
        item.update({f"calls.{k}": v for k, v in row["calls"].items()})
        item.update({f"package.{k}": v for k, v in (row.get("packages") or {}).items()})
        flat.append(item)
    return pd.DataFrame(flat)


def read_cells(path: Path, *, repair: bool = False) -> list[CellRow]:
    """The current row of every cell in cells.jsonl, in first-run order, read and checked as `read_rows` reads rows
    (``repair``: a grid resuming or merging). A cell re-run after an ERROR has several rows: the last one counts, with
    ``earlier_attempts`` (the earlier rows stay in the file)."""
    latest: dict[str, CellRow] = {}
    earlier: dict[str, int] = {}
    for n, raw in _jsonl_lines(path, repair):
        row = _checked_row(CellRow, path, n, raw)
        cell = row["cell_id"]
        if cell in latest:
            earlier[cell] = earlier.get(cell, 0) + 1
        latest[cell] = row
    for cell, count in earlier.items():
        latest[cell] = latest[cell].copy()
        latest[cell]["earlier_attempts"] = count
    return list(latest.values())


NOT_RUN_FILE = "not_run.jsonl"
"""In an experiment directory: the eval cells not run (`harness.runs.grid.not_run_record`), one JSON line each."""


def read_not_run(path: str | Path) -> list[dict[str, Any]]:
    """The eval cells an experiment directory lists as not run, each with its reason (none for an older directory)."""
    return read_jsonl(Path(path) / NOT_RUN_FILE)


def read_experiment(path: str | Path) -> tuple[ExperimentMeta, list[CellRow]]:
    """An experiment directory's meta.json (`read_experiment_meta`) and the current row of each of its cells
    (`read_cells`)."""
    path = Path(path)
    return read_experiment_meta(path), read_cells(path / "cells.jsonl")


def row_events(row: Mapping[str, Any]) -> dict[str, int]:
    """The row's event counts by schema-2 type; a row written before schema 2 has the old names (`summarization`...)."""
    from harness.trace.schema import V1_EVENT_TYPES

    return {V1_EVENT_TYPES.get(k, k): v for k, v in (row.get("events") or {}).items()}
