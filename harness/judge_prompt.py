"""The judge's rubrics: what `harness.scoring.judge` sends and what the stand-in judge reads.

One grammar shared by the two sides, as `harness.task_format` is between the tasks and the
reference agent: each rubric's prompt names the rubric and puts the question, the agent's answer
and the reference between tags; a live judge reads it as prose, the stand-in
(`harness.reference.judge`) by `parse_judge_prompt`. The three fields are openevals' ``inputs``,
``outputs`` and ``reference_outputs``.

Four rubrics, one per probe kind (`RUBRIC_OF_PROBE`), each asking for a true/false score:

- ``current_value`` (recall): the answer gives the expected current value, not a stale one;
- ``continuation``: the answer says where the work stands now (the current status, not an earlier
  one) and carries on, rather than asking for clarification or declaring the work finished;
- ``decision``: the answer gives the decided value as the decision and accounts for every rejected
  alternative as rejected;
- ``artifacts``: the answer names every file created or changed and no other.

The last three grade free text beyond a value (continuation quality, decision rationale, artifact
descriptions); each has a deterministic counterpart on the cases where both apply
(`harness.scoring.calibration`), which is what calibrates the judge.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError

_FRAME = """You are grading one answer an AI agent gave to a question about its own conversation, after parts of \
that conversation were compacted. {criterion} Give your reasoning, then the score (true or false).

<rubric>{name}</rubric>
<question>
{{inputs}}
</question>
<answer>
{{outputs}}
</answer>
<reference>
{{reference_outputs}}
</reference>
"""


@dataclass(frozen=True)
class Rubric:
    """One dimension the judge grades: its name (in the prompt and judge.json) and its criterion (prose)."""

    name: str
    criterion: str

    @property
    def prompt(self) -> str:
        """The openevals prompt template: ``{inputs}``, ``{outputs}`` and ``{reference_outputs}`` left to fill."""
        return _FRAME.format(name=self.name, criterion=self.criterion)


RUBRICS: dict[str, Rubric] = {
    r.name: r
    for r in (
        Rubric(
            "current_value",
            "The question asks for a fact stated earlier, which may have been updated since: the reference gives the "
            "expected current value and the stale values that must not be given as the current one. Does the answer "
            "give the expected value as the current one? The score is true when it does. It is false when the answer "
            "gives a stale value as current, gives another value, says the expected value is not the current one, or "
            "gives no value.",
        ),
        Rubric(
            "continuation",
            "The question asks where the work stands. The reference gives the current status (expected) and earlier "
            "statuses (stale). Does the answer describe the current state of the work, naming the expected status as "
            "where it stands now, in a way that carries the work on? The score is true when it does. It is false when "
            "the answer gives an earlier status as the current one, gives another status, asks the user what to do "
            "instead of saying where the work stands, says the work is finished, or says nothing about the status.",
        ),
        Rubric(
            "decision",
            "The question asks what was decided and which earlier choices were rejected. The reference gives the "
            "decided value and the rejected ones. Does the answer give the decided value as the decision and account "
            "for every rejected value as rejected? The score is true when it does both. It is false when the answer "
            "gives a rejected value as the decision, gives another value, gives no decision, or leaves out or "
            "misplaces a rejected alternative (names it as the decision, or omits it when the reference lists it).",
        ),
        Rubric(
            "artifacts",
            "The question asks which files the agent created or changed. The reference lists each file with what "
            "was done to it (written, edited). Does the answer name every listed file and no file that is not "
            "listed as created or changed? The score is true when the files match exactly, whatever the wording. It "
            "is false when a listed file is missing, when a file that was only read or never touched is given as "
            "created or changed, or when the answer names no file.",
        ),
    )
}
PROPOSAL_TAG = "<task>propose-probes</task>"
"""Heads the request that asks a judge model to propose a session's probes (`harness.sessions.propose.PROMPT`): the
stand-in judge (`harness.reference.judge`) knows that request by it and proposes nothing (it grades, it does not read
sessions), so `harness import --propose-probes` against `harness serve` runs end to end and says so."""

DEFAULT_MIN_KAPPA = 0.6


def check_threshold(min_kappa: float) -> None:
    """A kappa threshold is a number in (0, 1] (`harness judge calibrate --min-kappa`: said before the judge is built)."""
    if not 0 < min_kappa <= 1:
        raise ConfigError(f"--min-kappa {min_kappa}: give a kappa threshold above 0 and at most 1 (default {DEFAULT_MIN_KAPPA})")


RUBRIC_OF_PROBE = {"recall": "current_value", "continuation": "continuation", "decision": "decision", "artifact": "artifacts"}

_BLOCKS = re.compile(
    r"<rubric>(?P<rubric>[a-z_]+)</rubric>\n<question>\n.*\n</question>\n"
    r"<answer>\n(?P<answer>.*)\n</answer>\n<reference>\n(?P<reference>.*)\n</reference>",
    re.DOTALL,
)
_REFERENCE_FIELDS: dict[str, dict[str, type]] = {
    "current_value": {"expected": str, "stale": list},
    "continuation": {"expected": str, "stale": list},
    "decision": {"decided": str, "rejected": list},
    "artifacts": {"files": list},
}


@dataclass(frozen=True)
class JudgePrompt:
    """What a filled-in rubric prompt asks about: the rubric's name, the answer and the reference."""

    rubric: str
    answer: str
    reference: dict[str, Any]


def value_reference(expected: str, stale: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The ``reference_outputs`` of a current_value or continuation judgement (openevals writes it as JSON)."""
    return {"expected": expected, "stale": list(stale)}


def decision_reference(decided: str, rejected: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The ``reference_outputs`` of a decision judgement."""
    return {"decided": decided, "rejected": list(rejected)}


def artifacts_reference(files: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> dict[str, Any]:
    """The ``reference_outputs`` of an artifacts judgement: each file's path and what was done to it."""
    return {"files": [{"path": path, "action": action} for path, action in files]}


def parse_judge_prompt(text: str) -> JudgePrompt | None:
    """The rubric, answer and reference of a filled-in rubric prompt, or None when ``text`` is not one (an unknown
    rubric, a reference that is not JSON or lacks one of the rubric's fields)."""
    match = _BLOCKS.search(text)
    if match is None or match.group("rubric") not in _REFERENCE_FIELDS:
        return None
    try:
        ref = json.loads(match.group("reference"))
    except json.JSONDecodeError:
        return None
    fields = _REFERENCE_FIELDS[match.group("rubric")]
    if not isinstance(ref, dict) or not all(isinstance(ref.get(k), t) for k, t in fields.items()):
        return None
    return JudgePrompt(match.group("rubric"), match.group("answer"), ref)
