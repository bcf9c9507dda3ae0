"""The redo eval's cases: a document review cut part-way, its finished steps in a recorded prefix, carried on from the cut.

``redo-docs-<N>-cut-<M>``: the agent reviews N archive documents, fetching each (fetch_document) and writing a one-line
note on it (write_file under /notes/), then replies. The recorded prefix (the case's ``conversation``) is the session
up to the cut: the user's request with the whole plan, the calls and results of the first M documents' steps and the
agent's line saying how far it got. The case's task is the turn after the cut: the user asks it to carry on and
repeats the plan for reference. Its expected steps are the ones left after the cut, so an agent that carries on does
only those, and every call that repeats a step of the prefix is work done twice.

The prefix is the state just before a compaction: the redo eval runs the case from it twice, on a window whose
trigger fires at the first call after the cut and behind the full-context control (`harness.suites.replay`), and
compares what each does next. Its notes are written in the form the offline reference agent writes them, so a note
redone after compaction is the same call (same tool, same arguments), as a redone step of a real agent's is.
Generated in memory (`harness.scenarios.generate.generated_case`), seed 7.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from harness.scenarios.haystack import COMPANIES, document
from harness.task_format import Step, note_steps, render_task

DOC_TOKENS = 1_500


def redo_case_id(documents: int, cut: int) -> str:
    return f"redo-docs-{documents:02d}-cut-{cut:02d}"


def _steps(doc_ids: list[str]) -> list[Step]:
    return note_steps("fetch_document", doc_ids, lambda doc: f"/notes/{doc.lower()}.md")


def note(doc_id: str, text: str) -> str:
    """The one-line note on a document, as the reference agent writes it from the fetched text."""
    first = next(line.strip() for line in text.splitlines() if line.strip())
    return f"Note on {doc_id}: {first[:160]}\n"


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def prefix_messages(request: str, steps: list[Step], texts: dict[str, str], done: int) -> list[dict[str, Any]]:
    """The recorded session up to the cut (OpenAI format): ``request``, one call and its result per step of the first
    ``done`` steps, and the agent's line on how far it got."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": request}]
    for step in steps[:done]:
        call_id = f"call_redo_{step.number}"
        if step.tool == "fetch_document":
            call, result = _call(call_id, "fetch_document", {"doc_id": step.target}), texts[step.target]
        else:
            args = {"file_path": step.target, "content": note(step.source, texts[step.source])}
            call, result = _call(call_id, "write_file", args), f"Updated file {step.target}"
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    messages.append({"role": "assistant", "content": f"Steps 1 to {done} are done; I will carry on with step {done + 1}."})
    return messages


def redo_row(documents: int, cut: int, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The case's row (its task is the turn after the cut) and its recorded prefix: ``cut`` of ``documents``
    documents fetched and noted before the cut."""
    if not 1 <= cut < documents:
        raise ValueError(f"the cut ({cut}) must leave at least one of the {documents} documents to do")
    rng = random.Random(f"redo:{documents}:{cut}:{seed}")
    company = rng.choice(COMPANIES)
    doc_ids = [f"DOC-{i + 1:03d}" for i in range(documents)]
    texts = {d: document(rng, d, company, DOC_TOKENS, {}) for d in doc_ids}
    steps = _steps(doc_ids)
    done = 2 * cut
    request = render_task(f"You are reviewing the {company} document archive. Leave a one-line note on every document.", steps)
    task = render_task("Carry on with the archive review where we left off. The whole plan again, for reference:", steps)
    row = {
        "id": redo_case_id(documents, cut),
        "kind": "goal",
        "description": f"A {len(steps)}-step review of {documents} documents cut after {done} steps (recorded prefix); "
        "the agent carries on from the cut, where the redo eval compacts.",
        "task": task,
        "documents": [{"id": d, "text": texts[d]} for d in doc_ids],
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps[done:]],
    }
    return row, prefix_messages(request, steps, texts, done)


def redo_scenario(documents: int, cut: int, seed: int):  # noqa: ANN201 - a Scenario (schema imports nothing from here)
    """The case as the harness runs it: the row with its recorded prefix in ``conversation`` (kept in memory: a
    re-scored run reads the prefix's calls from the trace, `harness.suites.replay.prefix_calls`)."""
    from harness.scenarios.schema import _scenario

    row, prefix = redo_row(documents, cut, seed)
    scenario = _scenario(row, f"generated by harness.scenarios.redo.redo_row ({documents} documents, cut after {cut})")
    return replace(scenario, conversation=tuple(prefix))
