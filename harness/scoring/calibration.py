"""Calibrating the judge against the deterministic checks: ``harness judge calibrate RUN_DIR`` writes judge.json.

Every probe question a run's probe rows answered is judged under its kind's rubric (`harness.judge_prompt`:
``current_value`` for recall, ``continuation``, ``decision``, ``artifacts``) and compared with the deterministic
verdict on the same answer, read as the probe checks read it (`harness.scoring.scorers.probes.read_answer`): the
value given is the latest one (recall, continuation); the decided value is the latest one and every earlier one is
named as rejected (decision); the paths named are exactly the files created or changed (artifact). The three free-
text rubrics ask for more than their deterministic counterparts (whether the answer carries the work on, accounts
for each alternative, describes each file), so agreement is measured where both apply and only there.

Agreement is Cohen's kappa with n and a seeded bootstrap 95 % interval (`harness.stats`), over all
judgements and per rubric. A judge is flagged when its overall kappa is below the threshold (default 0.6,
"substantial" on Landis and Koch's scale) or undefined, or when any rubric's defined kappa is below it (a rubric
whose sample has one class of deterministic verdict has an undefined kappa: shown, not flagged on its own); judge
scores are never printed without that kappa. judge.json also records the judge's tokens per judgement and in total,
and their cost at list prices (`datasets/model_prices.yaml`; null when the judge model has no price). The expected
and stale values come from the facts of the scenarios the run used (found as ``harness score`` finds them); the
answers from the run's rows (``answers[turn]``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.judge_prompt import DEFAULT_MIN_KAPPA as DEFAULT_MIN_KAPPA
from harness.judge_prompt import RUBRIC_OF_PROBE, RUBRICS, artifacts_reference, decision_reference, value_reference
from harness.judge_prompt import check_threshold as check_threshold
from harness.scenarios.schema import Question, Scenario
from harness.scoring.cost import price_for, price_table, usage_cost
from harness.scoring.judge import ERROR, JudgeChoice, judge_answer, make_judge
from harness.scoring.scorers.facts import TrackedFact, asked_questions, tracked_facts
from harness.scoring.scorers.probes import expected_member, read_answer
from harness.stats import bootstrap_kappa, cohen_kappa

JUDGE_FILE = "judge.json"


@dataclass(frozen=True)
class ProbeItem:
    """One probe question's answer: the rubric it is judged under, the rubric's reference (what the answer should
    say) and the deterministic verdict on it."""

    id: str  # arm/case/trial/turn, unique in a run
    probe: str
    rubric: str
    question: str
    answer: str
    reference: dict[str, Any] = field(hash=False)
    deterministic: bool


def _item(item_id: str, q: Question, facts: list[TrackedFact], question: str, answer: str, others: list[str]) -> ProbeItem:
    judged = read_answer(q, facts, answer, others)
    rubric = RUBRIC_OF_PROBE[q.probe]
    if q.probe == "artifact":
        reference = artifacts_reference([(f.key, f.values[expected_member(f, q.turn)]) for f in facts])
    elif q.probe == "decision":
        reference = decision_reference(str(judged.expected), judged.earlier)
    else:
        reference = value_reference(str(judged.expected), judged.earlier)
    return ProbeItem(item_id, q.probe, rubric, question, answer, reference, judged.correct)


def probe_items(rows: Sequence[Mapping[str, Any]], scenarios: dict[str, Scenario]) -> list[ProbeItem]:
    """The probe questions of a run's probe rows that have an answer, sorted by id (a stable order whatever order the
    workers finished in). Raises HarnessError when a row's case is in none of the scenario files."""
    items = []
    for row in rows:
        if row.get("kind") != "probe":
            continue
        scenario = scenarios.get(row["case_id"])
        if scenario is None:
            raise HarnessError(f"case {row['case_id']!r} is not in the scenario files; pass --datasets")
        answers = row.get("answers") or []
        tracked = {f.id: f for f in tracked_facts(scenario)}
        arm = f"{row.get('arm', '')}{'@' + str(row['threshold']) if row.get('threshold') else ''}"
        for q in asked_questions(scenario):
            if q.turn >= len(answers) or not answers[q.turn]:
                continue
            item_id = f"{arm}/{row['case_id']}/t{row.get('trial', 0)}/turn{q.turn}"
            others = [v for f in tracked.values() if f.id not in q.facts and f.type != "artifact" for v in f.values]
            items.append(_item(item_id, q, [tracked[x] for x in q.facts], scenario.turns[q.turn], answers[q.turn], others))
    return sorted(items, key=lambda i: i.id)


def agreement_summary(judgements: list[dict[str, Any]], min_kappa: float) -> dict[str, Any]:
    """n, agreement, kappa, its interval and the flag over the judgements that have a verdict (ERROR left out)."""
    judged = [j for j in judgements if j["judge"] != ERROR]
    judge = [j["judge"] for j in judged]
    det = [j["deterministic"] for j in judged]
    kappa = cohen_kappa(judge, det)
    interval = bootstrap_kappa(judge, det)
    reason = None
    if not judged:
        reason = "no judgement has a verdict: kappa undefined"
    elif len(set(det)) == 1:
        reason = f"the deterministic verdicts are all {str(det[0]).lower()}: a sample with both classes is needed, " + (
            "kappa undefined" if kappa is None else f"kappa is {kappa:.2f} whatever the judge does"
        )
    elif kappa is None:
        reason = "kappa undefined"
    elif kappa < min_kappa:
        reason = f"kappa {kappa:.2f} is below the threshold {min_kappa:g}"
    return {
        "n": len(judged),
        "errors": len(judgements) - len(judged),
        "agreement": round(sum(a == b for a, b in zip(judge, det)) / len(judged), 4) if judged else None,
        "kappa": None if kappa is None else round(kappa, 4),
        "interval": None if interval is None else [round(interval[0], 4), round(interval[1], 4)],
        "threshold": min_kappa,
        "flagged": reason is not None,
        "flag_reason": reason,
    }


def _flag_rubrics(overall: dict[str, Any], by_rubric: dict[str, dict[str, Any]], min_kappa: float) -> dict[str, Any]:
    """The overall summary, flagged also when a rubric's defined kappa is below ``min_kappa``."""
    low = [f"{name} {r['kappa']:.2f}" for name, r in by_rubric.items() if r["kappa"] is not None and r["kappa"] < min_kappa]
    if low and not overall["flagged"]:
        overall = {
            **overall,
            "flagged": True,
            "flag_reason": f"a rubric's kappa is below the threshold {min_kappa:g}: " + ", ".join(low),
        }
    return overall


def judge_usage(judgements: list[dict[str, Any]], model: str) -> dict[str, Any]:
    """The judge's calls in total: judgements, input and output tokens, and their cost at list prices (None when
    ``model`` has no price in `datasets/model_prices.yaml`)."""
    tokens = {k: sum(j["usage"][k] for j in judgements) for k in ("input_tokens", "output_tokens")}
    price = price_for(model)
    cost = None if price is None else round(usage_cost(price, tokens["input_tokens"], tokens["output_tokens"]), 6)
    return {"judgements": len(judgements), **tokens, "cost_usd": cost, "prices_as_of": price_table().get("as_of")}


def calibrate(items: list[ProbeItem], choice: JudgeChoice, min_kappa: float = DEFAULT_MIN_KAPPA) -> dict[str, Any]:
    """Judge every item under its rubric and compare with the deterministic verdicts: judge.json's content."""
    evaluators = {name: make_judge(choice, name) for name in sorted({i.rubric for i in items})}
    judgements = []
    for item in items:
        verdict = judge_answer(evaluators[item.rubric], item.question, item.answer, item.reference)
        judgements.append(
            {
                "id": item.id,
                "probe": item.probe,
                "rubric": item.rubric,
                "answer": item.answer,
                "reference": item.reference,
                "deterministic": item.deterministic,
                **verdict,
            }
        )
    by_rubric = {
        name: agreement_summary([j for j in judgements if j["rubric"] == name], min_kappa)
        for name in RUBRICS
        if any(j["rubric"] == name for j in judgements)
    }
    return {
        "judge_model": choice.name,
        "simulated": choice.simulated,
        **({"endpoint": choice.endpoint} if choice.endpoint else {}),
        **_flag_rubrics(agreement_summary(judgements, min_kappa), by_rubric, min_kappa),
        "by_rubric": by_rubric,
        "usage": judge_usage(judgements, choice.name),
        "judgements": judgements,
    }


def load_judge_file(run_dir: Path) -> dict[str, Any] | None:
    """RUN_DIR/judge.json, or None when the run has not been calibrated."""
    path = run_dir / JUDGE_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def summary_line(result: dict[str, Any]) -> str:
    """Kappa, n and interval in one line: the only way judge results are shown."""
    kappa = "undefined" if result["kappa"] is None else f"{result['kappa']:.2f}"
    interval = "no interval" if result["interval"] is None else "95 % bootstrap [{:.2f}, {:.2f}]".format(*result["interval"])
    agreement = "n/a" if result["agreement"] is None else f"{result['agreement']:.0%}"
    errors = f", {result['errors']} ERROR (left out)" if result["errors"] else ""
    return (
        f"judge `{result['judge_model']}`{' (simulated)' if result['simulated'] else ''}: Cohen's kappa {kappa} "
        f"({interval}), n={result['n']}{errors}, agreement {agreement}, threshold {result['threshold']:g}"
    )


def rubric_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """judge.json's agreement per rubric as table rows (rubric, n, agreement, kappa, interval, flag)."""
    rows = []
    for name, r in (result.get("by_rubric") or {}).items():
        below = r["kappa"] is not None and r["kappa"] < r["threshold"]
        rows.append(
            {
                "rubric": name,
                "n": r["n"],
                "ERROR": r["errors"],
                "agreement": "n/a" if r["agreement"] is None else f"{r['agreement']:.0%}",
                "kappa": "undefined" if r["kappa"] is None else f"{r['kappa']:.2f}",
                "95 % interval": "none" if r["interval"] is None else "[{:.2f}, {:.2f}]".format(*r["interval"]),
                "flag": "below threshold" if below else (r["flag_reason"] or "") if r["kappa"] is None else "",
            }
        )
    return rows


def usage_line(result: dict[str, Any]) -> str:
    """The judge's tokens and cost in one line."""
    usage = result.get("usage")
    if not usage:
        return "judge tokens: not recorded (judge.json from an earlier harness)"
    cost = (
        "n/a: no price for this model"
        if usage["cost_usd"] is None
        else f"${usage['cost_usd']:.4f} (prices as of {usage['prices_as_of']})"
    )
    return (
        f"judge calls: {usage['judgements']} judgements, {usage['input_tokens']:,} input and "
        f"{usage['output_tokens']:,} output tokens, cost {cost}"
    )
