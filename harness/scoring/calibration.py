"""Calibrating the judge against the deterministic checks: ``harness judge calibrate RUN_DIR`` writes judge.json.

On every probe question whose expected answer is a value (recall, continuation and decision probes; artifact
probes are sets and are left out), two verdicts are compared: the deterministic one (the value
`harness.task_format.extract_value` reads from the answer, or the decided value of a decision answer, equals the
fact's latest value) and the judge's (`harness.scoring.judge`). Their agreement is Cohen's kappa with n and a
seeded bootstrap 95 % interval (`harness.analysis.stats`). A judge whose kappa is below the threshold (default
0.6, "substantial" on Landis and Koch's scale), or whose kappa is undefined, is flagged; judge scores are never
printed without that kappa. The expected and stale values come from the facts of the scenarios the run used
(found as ``harness score`` finds them); the answers from the run's rows (``answers[turn]``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.analysis.stats import bootstrap_kappa, cohen_kappa
from harness.errors import ConfigError, HarnessError
from harness.scenarios.schema import Fact, Scenario
from harness.scoring.judge import ERROR, JudgeChoice, judge_answer, make_judge
from harness.task_format import extract_value, parse_decision_answer

DEFAULT_MIN_KAPPA = 0.6
JUDGE_FILE = "judge.json"
VALUE_PROBES = ("recall", "continuation", "decision")


@dataclass(frozen=True)
class ProbeItem:
    """One probe question's answer, with what it should say: the fact's latest value and its stale ones."""

    id: str  # arm/case/trial/turn, unique in a run
    probe: str
    question: str
    answer: str
    key: str
    expected: str
    stale: tuple[str, ...]

    def deterministic(self) -> bool:
        """The deterministic verdict: the value the answer gives (read, never a substring) is the latest one."""
        candidates = (*self.stale, self.expected)
        if self.probe == "decision":
            given = parse_decision_answer(self.answer, self.key, candidates)[0]
        else:
            given = extract_value(self.answer, self.key, candidates)
        return given == self.expected


def _full_chain(scenario: Scenario, fact: Fact) -> list[Fact]:
    """Every statement of ``fact``'s key in its update chain, first to latest, wherever in the chain ``fact`` is."""
    first = fact
    while (earlier := next((f for f in scenario.facts if f.superseded_by == first.id), None)) is not None:
        first = earlier
    return scenario.chain(first)


def probe_items(rows: list[dict[str, Any]], scenarios: dict[str, Scenario]) -> list[ProbeItem]:
    """The value-probe questions of a run's probe rows that have an answer, sorted by id (a stable order whatever
    order the workers finished in). Raises HarnessError when a row's case is in none of the scenario files."""
    items = []
    for row in rows:
        if row.get("kind") != "probe":
            continue
        scenario = scenarios.get(row["case_id"])
        if scenario is None:
            raise HarnessError(f"case {row['case_id']!r} is not in the scenario files; pass --datasets")
        answers = row.get("answers") or []
        for q in scenario.questions:
            if q.probe not in VALUE_PROBES or q.turn >= len(answers) or not answers[q.turn]:
                continue
            chain = _full_chain(scenario, scenario.fact(q.facts[0]))
            items.append(
                ProbeItem(
                    id=f"{row.get('arm', '')}{'@' + str(row['threshold']) if row.get('threshold') else ''}/{row['case_id']}"
                    f"/t{row.get('trial', 0)}/turn{q.turn}",
                    probe=q.probe,
                    question=scenario.turns[q.turn],
                    answer=answers[q.turn],
                    key=chain[-1].key,
                    expected=chain[-1].value,
                    stale=tuple(dict.fromkeys(f.value for f in chain[:-1] if f.value != chain[-1].value)),
                )
            )
    return sorted(items, key=lambda i: i.id)


def check_threshold(min_kappa: float) -> None:
    """A kappa threshold is a number in (0, 1]."""
    if not 0 < min_kappa <= 1:
        raise ConfigError(f"--min-kappa {min_kappa}: give a kappa threshold above 0 and at most 1 (default {DEFAULT_MIN_KAPPA})")


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


def calibrate(items: list[ProbeItem], choice: JudgeChoice, min_kappa: float = DEFAULT_MIN_KAPPA) -> dict[str, Any]:
    """Judge every item and compare with the deterministic verdicts: judge.json's content."""
    evaluator = make_judge(choice)
    judgements = []
    for item in items:
        verdict = judge_answer(evaluator, item.question, item.answer, item.expected, item.stale)
        judgements.append(
            {
                "id": item.id,
                "probe": item.probe,
                "answer": item.answer,
                "expected": item.expected,
                "stale": list(item.stale),
                "deterministic": item.deterministic(),
                **verdict,
            }
        )
    return {
        "judge_model": choice.name,
        "simulated": choice.simulated,
        **({"endpoint": choice.endpoint} if choice.endpoint else {}),
        **agreement_summary(judgements, min_kappa),
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
