"""The judge's rubric prompt: what `harness.scoring.judge` sends and what the stand-in judge reads.

One grammar shared by the two sides, as `harness.task_format` is between the tasks and the
reference agent: the prompt puts the question, the agent's answer and the reference (the
expected current value and the stale values that must not be given as current) between
tags; a live judge reads it as prose, the stand-in (`harness.reference.judge`) by
`parse_judge_prompt`. The three fields are openevals' ``inputs``, ``outputs`` and
``reference_outputs``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

JUDGE_PROMPT = """You are grading one answer an AI agent gave to a question about a fact stated earlier in its \
conversation. The fact may have been updated since it was first stated: the reference gives the expected current \
value and the stale values that must not be given as the current one.

Does the answer give the expected value as the current one? The score is true when it does. It is false when the \
answer gives a stale value as current, gives another value, says the expected value is not the current one, or gives \
no value. Give your reasoning, then the score (true or false).

<question>
{inputs}
</question>
<answer>
{outputs}
</answer>
<reference>
{reference_outputs}
</reference>
"""

_BLOCKS = re.compile(r"<answer>\n(?P<answer>.*)\n</answer>\n<reference>\n(?P<reference>.*)\n</reference>", re.DOTALL)


@dataclass(frozen=True)
class JudgePrompt:
    """What a filled-in `JUDGE_PROMPT` asks about: the answer, the expected value, the stale ones."""

    answer: str
    expected: str
    stale: tuple[str, ...]


def reference_outputs(expected: str, stale: list[str] | tuple[str, ...]) -> dict[str, object]:
    """The ``reference_outputs`` of one judgement (openevals writes a dict into the prompt as JSON)."""
    return {"expected": expected, "stale": list(stale)}


def parse_judge_prompt(text: str) -> JudgePrompt | None:
    """The answer and the reference of a filled-in `JUDGE_PROMPT`, or None when ``text`` is not one."""
    match = _BLOCKS.search(text)
    if match is None:
        return None
    try:
        ref = json.loads(match.group("reference"))
    except json.JSONDecodeError:
        return None
    if not isinstance(ref, dict) or not isinstance(ref.get("expected"), str):
        return None
    return JudgePrompt(match.group("answer"), ref["expected"], tuple(str(s) for s in ref.get("stale") or ()))
