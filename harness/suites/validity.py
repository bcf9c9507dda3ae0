"""Eval validity: every eval fails under the fault it guards, and passes when healthy.

For each eval (its cases, its config and the hard checks it asserts) and each seeded
fault, the eval's cases run with the fault injected; the fault is *detected* when any
check the eval asserts fails. Each eval must detect the faults it guards (the matrix's
expected cells) and pass on the healthy configuration over many seeds (no false alarms).
``harness validity`` writes ``validity.json`` and ``report.md`` with the detection
matrix (eval x fault); ``pytest -m validity`` asserts it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from harness.compaction.variants import make_config
from harness.suites.faults import DropToolResult, FaultyBackend, FaultySummarizer, LoseSubagentResult, UnrecognizedOverflow
from harness.agent.models import ModelChoice, choose_models
from harness.reference import ReferenceAgentModel, ReferenceSummarizerModel
from harness.agent.runner import run_case
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import score_case


@dataclass(frozen=True)
class EvalSpec:
    name: str
    cases: tuple[str, ...]
    required: tuple[str, ...]
    preset: str = "forced-20"
    suite: str = "default"
    hard_limit: int | None = None  # the simulated provider's input limit (overflow)
    vary_documents: bool = False  # healthy seeds regenerate the case's documents (nothing else in the run is random)


COMMON = ("run_completed", "structure_ok", "summaries_ok")
GOAL_KEPT = ("goal_no_clarification", "goal_no_premature_completion", "goal_all_steps_done")
# The one list of what each eval asserts: the pytest evals (evals/test_*.py, through
# CaseResult.require_eval) and this matrix both read it, so the matrix proves the evals themselves.
EVALS = {
    "needle": EvalSpec("needle", ("needle-h24k-d000", "needle-h32k-d025"),
                       (*COMMON, "compressed", "needle_summarized_away", "needle_correct", "needle_via_history")),
    "chain": EvalSpec("chain", ("chain-s2-d000", "chain-s4-d025"),
                      (*COMMON, "compressed", "chain_length_reached", "needle_summarized_away", "needle_correct", "needle_via_history")),
    "goal": EvalSpec("goal", ("goal-ledgers-12", "goal-ledgers-16"),
                     (*COMMON, "compressed", "goal_continued_after_summary", *GOAL_KEPT, "goal_preserved")),
    "eviction": EvalSpec("eviction", ("needle-h24k-d000", "needle-h32k-d025"),
                         ("run_completed", "structure_ok", "evicted", "needle_correct", "needle_via_eviction_file"),
                         preset="eviction", suite="eviction"),
    "overflow": EvalSpec("overflow", ("goal-ledgers-24",),
                         ("run_completed", "structure_ok", "overflowed", "overflow_recovered", *GOAL_KEPT),
                         preset="deepagents-85", suite="overflow", hard_limit=36_000),
    "subagent": EvalSpec("subagent", ("delegate-2x8",), ("run_completed", "structure_ok", "subagent_compressed",
                                                          "subagent_results_returned", *GOAL_KEPT), suite="subagent"),
    "truncation": EvalSpec("truncation", ("truncation-report-06", "truncation-edits-08"),
                           ("run_completed", "structure_ok", "args_clipped", "reread_after_clipping", "file_intact",
                            "goal_no_clarification", "goal_no_premature_completion"), preset="truncation", vary_documents=True),
    "faults": EvalSpec("faults", ("goal-ledgers-12",), COMMON),
}


class ClaimsEverythingDone(ReferenceSummarizerModel):
    """A summarizer that records every step as done: the agent then stops early."""

    model_name: str = "claims-done-summarizer"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs: Any):  # noqa: ANN001
        result = super()._generate(messages, stop, run_manager, **kwargs)
        msg = result.generations[0].message
        msg.content = msg.content + "\n" + "\n".join(f"- Step {n} done: (claimed)" for n in range(1, 200))
        return result


@dataclass(frozen=True)
class Fault:
    name: str
    guards: tuple[str, ...]  # the evals that must detect it ("all": every eval)
    description: str
    summarizer: Callable[[], Any] | None = None
    backend: Callable[[], Any] | None = None
    middleware: Callable[[], tuple] | None = None
    agent_options: dict[str, Any] | None = None  # the reference agent with these options (on top of the eval's)


FAULTS = {
    f.name: f
    for f in (
        Fault("history-unreadable", ("needle", "chain"), "read_file on /conversation_history/ is refused",
              backend=lambda: FaultyBackend(unreadable="/conversation_history/")),
        Fault("offload-disabled", ("needle", "chain"), "writing the history file fails, so summaries name no path",
              backend=lambda: FaultyBackend(unwritable="/conversation_history/")),
        Fault("task-dropped", ("goal",), "the summary drops the user's request",
              summarizer=lambda: ReferenceSummarizerModel(intent_loss=1.0)),
        Fault("false-completion", ("goal",), "the summary claims every step is done",
              summarizer=lambda: ClaimsEverythingDone()),
        Fault("eviction-unreadable", ("eviction",), "read_file on /large_tool_results/ is refused",
              backend=lambda: FaultyBackend(unreadable="/large_tool_results/")),
        Fault("summarizer-raises", ("faults",), "the summarizer raises on every call",
              summarizer=lambda: FaultySummarizer(fault="raise")),
        Fault("summarizer-empty", ("faults",), "the summarizer returns empty text",
              summarizer=lambda: FaultySummarizer(fault="empty")),
        Fault("clipped-args-trusted", ("truncation",), "the agent takes a clipped write_file argument for the file's text",
              agent_options={"trusts_clipped_args": True}),
        Fault("written-file-unreadable", ("truncation",), "read_file on /reports/ is refused, so a clipped file cannot be read back",
              backend=lambda: FaultyBackend(unreadable="/reports/")),
        Fault("overflow-unrecognized", ("overflow",), "the provider's overflow error carries no known marker, so no fallback",
              middleware=lambda: (UnrecognizedOverflow(),)),
        Fault("subagent-result-lost", ("subagent",), "the subagent's report never reaches the parent",
              middleware=lambda: (LoseSubagentResult(),)),
        Fault("tool-result-dropped", ("all",), "compaction drops a tool result from the request",
              middleware=lambda: (DropToolResult(),)),
    )
}


def expected(eval_name: str, fault: Fault) -> bool:
    return eval_name in fault.guards or "all" in fault.guards


def _run(spec: EvalSpec, scenario, seed: int, fault: Fault | None) -> dict[str, Any]:
    config = make_config(spec.preset)
    models: ModelChoice = choose_models(None, None, window=config.window, seed=seed)
    options = dict(fault.agent_options or {}) if fault is not None else {}
    if spec.hard_limit is not None or options:
        agent = ReferenceAgentModel(profile={"max_input_tokens": config.window}, hard_input_limit=spec.hard_limit, **options)
        models = replace(models, agent=agent, agent_name=f"fault:{fault.name}" if options else models.agent_name)
    kwargs: dict[str, Any] = {}
    if fault is not None:
        if fault.summarizer:
            models = replace(models, summarizer=fault.summarizer(), summarizer_name=f"fault:{fault.name}")
        if fault.backend:
            kwargs["backend"] = fault.backend()
        if fault.middleware:
            kwargs["middleware"] = fault.middleware()
    with _quiet() if fault is not None else contextlib.nullcontext():
        trace = run_case(scenario, config, models, seed=seed, **kwargs)
    scores = {s.key: s for s in score_case(trace, scenario, spec.suite)}
    failed = [k for k in spec.required if k in scores and not scores[k].value]
    return {"eval": spec.name, "case_id": scenario.id, "seed": seed, "fault": fault.name if fault else None,
            "failed": failed, "explanations": {k: scores[k].explanation for k in failed}}


def _case(spec: EvalSpec, scenarios: dict, case_id: str, seed: int):  # noqa: ANN202
    if not spec.vary_documents or seed == 0:
        return scenarios[case_id]
    from harness.scenarios.generate import regenerate_truncation_case
    from harness.scenarios.schema import _scenario

    return _scenario(regenerate_truncation_case(case_id, seed), f"harness.scenarios.generate.regenerate_truncation_case (seed {seed})")


@contextlib.contextmanager
def _quiet():
    """deepagents logs and warns about the failures a fault injects (history not offloaded, ...): expected here.

    What the run did is in its trace and scores; the console stays readable.
    """
    logger = logging.getLogger("deepagents")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)


@dataclass
class ValidityResult:
    matrix: pd.DataFrame  # rows: eval, columns: fault, values: detected (bool)
    expected_misses: list[str]
    false_alarms: list[str]
    runs: list[dict[str, Any]] = field(default_factory=list)
    healthy_seeds: int = 0

    @property
    def ok(self) -> bool:
        return not self.expected_misses and not self.false_alarms


def run_validity(*, seeds: int = 10, progress: Callable[[str], None] = print) -> ValidityResult:
    from harness.scenarios.generate import delegation_scenario
    from harness.scenarios.schema import _scenario

    scenarios = {s.id: s for s in load_scenarios(all_scenario_files())}
    delegated = _scenario(delegation_scenario(2, 8, seed=7), "generated by harness.scenarios.generate.delegation_scenario")
    scenarios[delegated.id] = delegated
    runs: list[dict[str, Any]] = []
    started = time.perf_counter()
    for spec in EVALS.values():
        for seed in range(seeds):
            for case in spec.cases:
                runs.append(_run(spec, _case(spec, scenarios, case, seed), seed, None))
        progress(f"validity: {spec.name} healthy over {seeds} seeds ({time.perf_counter() - started:.0f}s)")
    for fault in FAULTS.values():
        for spec in EVALS.values():
            for case in spec.cases:
                runs.append(_run(spec, scenarios[case], 0, fault))
        progress(f"validity: fault {fault.name} ({time.perf_counter() - started:.0f}s)")
    matrix = pd.DataFrame(index=list(EVALS), columns=list(FAULTS), dtype=object)
    misses = []
    for fault in FAULTS.values():
        for name in EVALS:
            detected = any(r["failed"] for r in runs if r["eval"] == name and r["fault"] == fault.name)
            matrix.loc[name, fault.name] = detected
            if expected(name, fault) and not detected:
                misses.append(f"{name} did not detect {fault.name}")
    alarms = [f"{r['eval']} failed a healthy run ({r['case_id']}, seed {r['seed']}): {r['explanations']}"
              for r in runs if r["fault"] is None and r["failed"]]
    return ValidityResult(matrix, misses, alarms, runs, seeds)


def matrix_table(result: ValidityResult) -> pd.DataFrame:
    """eval x fault: 'DETECTED' where an eval fails under a fault it guards, 'missed' where it should have, '-' elsewhere."""
    rows = []
    for name in result.matrix.index:
        row = {"eval": name}
        for fault in result.matrix.columns:
            hit = bool(result.matrix.loc[name, fault])
            exp = expected(name, FAULTS[fault])
            row[fault] = ("DETECTED" if hit else "missed") if exp else ("detected" if hit else "-")
        healthy = [r for r in result.runs if r["eval"] == name and r["fault"] is None]
        row["healthy runs passed"] = f"{sum(not r['failed'] for r in healthy)}/{len(healthy)}"
        rows.append(row)
    return pd.DataFrame(rows)


def write_validity(result: ValidityResult, out_dir: str | Path) -> Path:
    """validity.json (every run, the matrix, what was expected) and its report."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"created_at": datetime.now(UTC).isoformat(timespec="seconds"), "healthy_seeds": result.healthy_seeds,
               "matrix": {e: {f: bool(result.matrix.loc[e, f]) for f in result.matrix.columns} for e in result.matrix.index},
               "expected_misses": result.expected_misses, "false_alarms": result.false_alarms, "runs": result.runs}
    (out / "validity.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    return render_validity(out)


def load_validity(out_dir: str | Path) -> ValidityResult:
    data = json.loads((Path(out_dir) / "validity.json").read_text(encoding="utf-8"))
    matrix = pd.DataFrame(data["matrix"]).T.astype(object)
    return ValidityResult(matrix, data["expected_misses"], data["false_alarms"], data["runs"], data["healthy_seeds"])


def render_validity(out_dir: str | Path) -> Path:
    """report.md / report.html with the detection matrix, from validity.json (``harness report`` calls this)."""
    from harness.report._document import Document

    out = Path(out_dir)
    result = load_validity(out)
    doc = Document("Eval validity: detection matrix")
    doc.text("Each eval runs its cases with each seeded fault. DETECTED: the eval failed under a fault it guards (as it "
             "must); missed: it passed under a fault it guards (a blind spot); detected / -: faults it does not guard. "
             f"The last column: healthy runs over {result.healthy_seeds} seeds that passed every check the eval asserts "
             "(anything below all is a false alarm). Simulated: offline reference models.")
    doc.table(matrix_table(result))
    doc.heading("Faults")
    doc.bullets([f"`{f.name}` (guards {', '.join(f.guards)}): {f.description}" for f in FAULTS.values()])
    doc.heading("Evals")
    doc.bullets([f"`{e.name}`: cases {', '.join(e.cases)}; preset {e.preset}; asserts {', '.join(e.required)}" for e in EVALS.values()])
    if result.expected_misses or result.false_alarms:
        doc.heading("Problems")
        doc.bullets([*result.expected_misses, *result.false_alarms])
    md, _ = doc.write(out)
    return md
