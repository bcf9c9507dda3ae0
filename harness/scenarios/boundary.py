"""The boundary eval's cases, generated in memory: the message structure across a compaction's cut.

- ``boundary-parallel``: six documents of about 1,500 tokens fetched one by one, then four of about 1,000 fetched as
  parallel tool calls in one assistant message, then two more. Under the default preset (forced-20 on a 64,000-token
  window: trigger 12,800 approximate tokens, keep 3,200) the trigger is first passed right after the parallel
  results, both as deepagents counts (system prompt and tools included) and as LangChain's own middleware counts (the
  messages alone), and the keep budget (three results fit, four do not) puts the cut between them: LangChain's
  ``_find_safe_cutoff_point`` must move it back to the assistant message that made the calls, or a result is left
  whose call was summarized away (langchain#38352).
- ``boundary-system``: the same kind of task, with the case's instructions as a system message at the head of the
  message state (``system_in_state``), as an agent made with no system prompt has them (deer-flow#5454): a cut that
  slices the state by index summarizes it away with everything else.
"""

from __future__ import annotations

import random
from typing import Any

from harness.scenarios.haystack import COMPANIES, document
from harness.task_format import Step, render_task

BOUNDARY_CASES = ("boundary-parallel", "boundary-system")
DOC_TOKENS = 1_500  # the documents fetched one by one: six of them stay under the trigger with the ~2,700-token overhead
PARALLEL_DOC_TOKENS = 1_000  # three parallel results fit the forced-20 keep (3,200 tokens), four do not
SEQUENTIAL_BEFORE = 6
PARALLEL = 4
SEQUENTIAL_AFTER = 2
SYSTEM_PROMPT = (
    "You are the records clerk of the {company} archive. House rule: quote document ids exactly as they are written, "
    "and never reply before every step of the task is done."
)


def boundary_scenario(case_id: str, seed: int) -> dict[str, Any]:
    """The row of ``case_id`` (one of `BOUNDARY_CASES`), a function of ``seed``."""
    if case_id not in BOUNDARY_CASES:
        raise ValueError(f"no boundary case {case_id!r}; known: {', '.join(BOUNDARY_CASES)}")
    rng = random.Random(f"{case_id}:{seed}")
    company = rng.choice(COMPANIES)
    parallel = case_id == "boundary-parallel"
    n_docs = SEQUENTIAL_BEFORE + PARALLEL + SEQUENTIAL_AFTER
    ids = [f"DOC-{i + 1:03d}" for i in range(n_docs)]
    sizes = [PARALLEL_DOC_TOKENS if SEQUENTIAL_BEFORE <= i < SEQUENTIAL_BEFORE + PARALLEL else DOC_TOKENS for i in range(n_docs)]
    documents = [{"id": d, "text": document(rng, d, company, n, {})} for d, n in zip(ids, sizes)]
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(ids[:SEQUENTIAL_BEFORE])]
    middle = ids[SEQUENTIAL_BEFORE : SEQUENTIAL_BEFORE + PARALLEL]
    if parallel:
        steps.append(Step(len(steps) + 1, "fetch_document", ",".join(middle), mode="parallel"))
    else:
        steps += [Step(len(steps) + 1 + i, "fetch_document", d) for i, d in enumerate(middle)]
    steps += [Step(len(steps) + 1 + i, "fetch_document", d) for i, d in enumerate(ids[SEQUENTIAL_BEFORE + PARALLEL :])]
    steps.append(Step(len(steps) + 1, "reply"))
    row: dict[str, Any] = {
        "id": case_id,
        "kind": "goal",
        "description": (
            f"{n_docs} documents fetched, {PARALLEL} of them as parallel calls in one message where the cut falls"
            if parallel
            else f"{n_docs} documents fetched, the case's instructions a system message at the head of the state"
        ),
        "task": render_task(f"You are reviewing the {company} archive. Fetch every document listed.", steps),
        "documents": documents,
        "expected_steps": [{"tool": "fetch_document", "target": d} for d in ids],
    }
    if not parallel:
        row["system_prompt"] = SYSTEM_PROMPT.format(company=company)
        row["system_in_state"] = True
    return row
