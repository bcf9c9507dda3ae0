"""Deterministic generator of the shipped scenario files (``harness generate``).

Needle scenarios (Kamradt style): a haystack of archive documents the agent fetches
one by one, over a grid of haystack size (approximate tokens) x needle depth (the
needle document's position in the haystack, 0 = first, 1 = last). One document states
the needle ("the <key> is <value>"), another a distractor with a similar key. After
the task, a follow-up question asks for the needle.

Goal scenarios: long multi-step tasks over seed files in the agent's filesystem (read
a ledger, write a note on it, ...), long enough to span several summaries at the
forced thresholds, ending with a TASK COMPLETE reply.

Truncation scenarios: a report built section by section in one file, each section added
by rewriting the whole file. The rewrites grow past deepagents' 2,000-character argument
limit, so older ones are clipped in the request; adding the next section then needs the
file's text, which only the file still holds in full.

The needle-in-a-haystack grid (``harness generate needle``, and the shipped
``niah/grid.jsonl``): haystack length x needle depth, the needle inserted at the requested
share of the haystack's text at a sentence boundary.

Probe families (``harness generate probes``, and the shipped ``probes.jsonl``): see
`harness.scenarios.probes`.

Everything is a function of the seed; running it twice writes identical files.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from harness.scenarios.conversation import SHIPPED_RECORDING, load_conversation, recorded_probe_row
from harness.scenarios.haystack import CODEWORDS as _CODEWORDS
from harness.scenarios.haystack import COMPANIES as _COMPANIES
from harness.scenarios.haystack import PLACES as _PLACES
from harness.scenarios.haystack import SHIPPED_SEED
from harness.scenarios.haystack import THINGS as _THINGS
from harness.scenarios.haystack import document as _document
from harness.scenarios.haystack import ledger as _ledger
from harness.scenarios.haystack import prose_line as _prose_line
from harness.scenarios.probes import probe_rows
from harness.scenarios.schema import DATASETS_DIR, DEFAULT_FILES, MECHANISM_FILES
from harness.scenarios.session_case import SESSION_RECORDING, session_messages, session_row
from harness.task_format import (
    FINDING_PREFIX,
    LONG_IDS_REQUEST,
    TODOS_REQUEST,
    Step,
    needle_sentence,
    note_steps,
    render_question,
    render_task,
)

NEEDLE_SIZES = (24_000, 32_000, 40_000, 48_000)
NEEDLE_DEPTHS = (0.0, 0.1, 0.25, 0.4, 0.5)
DOC_TOKENS = 2_000
GOAL_LEDGER_COUNTS = (12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
# Haystack sizes giving about 1, 2, 4 and 8 summaries before the question at forced-20
# (measured: one summary per ~8k tokens after the first at ~12k).
CHAIN_SIZES = {1: 12_000, 2: 18_000, 4: 34_000, 8: 68_000}
CHAIN_DEPTHS = (0.0, 0.25)
# The shipped Kamradt grid (datasets/niah/grid.jsonl): lengths x depths, many cells invalid under the
# forced presets on purpose (too short to summarize, or the needle kept in view) so reports show them.
NIAH_LENGTHS = (4_000, 8_000, 16_000, 32_000)
NIAH_DEPTHS = (0.0, 0.25, 0.5, 0.75, 1.0)
REPORT_SECTIONS = (6, 8, 10, 12, 16)
EDIT_SECTIONS = (6, 8, 10)
REPORT_DOC_TOKENS = 600
EDIT_EXTRA_FINDINGS = 16  # more "Finding:" lines per document in the edit_file cases


def needle_scenario(haystack_tokens: int, depth: float, seed: int) -> dict:
    rng = random.Random(f"needle:{haystack_tokens}:{depth}:{seed}")
    company = rng.choice(_COMPANIES)
    n_docs = max(2, haystack_tokens // DOC_TOKENS)
    thing, holder = rng.choice(_THINGS)
    place, other_place = rng.sample(_PLACES, 2)
    key = f"{thing} for the {place} {holder}"
    distractor_key = f"{thing} for the {other_place} {holder}"
    value = f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}"
    distractor_value = f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}"
    needle_index = int(depth * (n_docs - 1))
    distractor_index = (needle_index + n_docs // 2) % n_docs
    doc_ids = [f"DOC-{i + 1:03d}" for i in range(n_docs)]
    documents = []
    for i, doc_id in enumerate(doc_ids):
        inserts = {}
        if i == needle_index:
            inserts[rng.randint(10, 60)] = needle_sentence(key, value)
        if i == distractor_index:
            inserts[rng.randint(10, 60)] = needle_sentence(distractor_key, distractor_value)
        documents.append({"id": doc_id, "text": _document(rng, doc_id, company, DOC_TOKENS, inserts)})
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(doc_ids)]
    steps.append(Step(len(steps) + 1, "reply"))
    intro = (
        f"You are reviewing the {company} document archive before it is migrated. "
        "Read every document carefully; I will have questions about their contents afterwards."
    )
    return {
        "id": f"needle-h{haystack_tokens // 1000:02d}k-d{round(depth * 100):03d}",
        "kind": "needle",
        "description": f"Needle at depth {depth:.2f} of a {n_docs}-document (~{haystack_tokens} token) haystack; question asked after the task.",
        "task": render_task(intro, steps),
        "followups": [render_question(key)],
        "documents": documents,
        "needles": [{"key": key, "answer": value, "doc": doc_ids[needle_index], "depth": depth, "turn": 1}],
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps],
        "haystack_tokens": haystack_tokens,
        "needle_depth": depth,
    }


# -- the needle-in-a-haystack grid (harness generate needle) --------------------------------
def niah_depths(steps: int, spacing: str = "linear") -> list[float]:
    """Kamradt's depth grid: ``steps`` depths from 0 to 1, evenly spaced or on a sigmoid (denser at both ends)."""
    if steps < 1:
        raise ValueError("the number of depths must be at least 1")
    if steps == 1:
        return [0.5]
    xs = [i / (steps - 1) for i in range(steps)]
    if spacing == "linear":
        return [round(x, 3) for x in xs]
    if spacing == "sigmoid":
        lo, hi = (1 / (1 + math.exp(5)), 1 / (1 + math.exp(-5)))
        return [round((1 / (1 + math.exp(-10 * (x - 0.5))) - lo) / (hi - lo), 3) for x in xs]
    raise ValueError(f"depth spacing must be linear or sigmoid, got {spacing!r}")


def niah_lengths(minimum: int, maximum: int, steps: int) -> list[int]:
    """``steps`` haystack lengths from ``minimum`` to ``maximum`` tokens, evenly spaced, rounded to 100 tokens."""
    if steps < 1 or minimum < 1 or maximum < minimum:
        raise ValueError("lengths need 0 < min <= max and at least 1 step")
    if steps == 1:
        return [minimum]
    return list(dict.fromkeys(round((minimum + (maximum - minimum) * i / (steps - 1)) / 100) * 100 for i in range(steps)))


def niah_scenario(length: int, depth: float, seed: int, *, needles: int = 1, distractors: int = 1) -> dict:
    """One cell of a needle-in-a-haystack grid: a ``length``-token haystack of archive documents with the
    needle inserted at ``depth`` of the haystack's text, at a sentence boundary (0 = before the first
    sentence, 1 = after the last). With ``needles`` > 1 the others follow evenly between ``depth`` and
    the end, each asked in its own question; ``distractors`` sentences state look-alike keys elsewhere.
    """
    if not 0.0 <= depth <= 1.0:
        raise ValueError(f"depth must be within [0, 1], got {depth}")
    rng = random.Random(f"niah:{length}:{depth}:{seed}:{needles}:{distractors}")
    company = rng.choice(_COMPANIES)
    n_docs = max(2, round(length / DOC_TOKENS))
    doc_ids = [f"DOC-{i + 1:03d}" for i in range(n_docs)]
    docs = [_document(rng, doc_id, company, length // n_docs, {}).split("\n") for doc_id in doc_ids]
    # Sentence boundaries: before line j (j >= 1, after the header) of doc i, or at the end of doc i.
    bounds, offset = [], 0
    for i, lines in enumerate(docs):
        offset += len(lines[0]) + 1
        for j in range(1, len(lines) + 1):
            bounds.append((offset, i, j))
            if j < len(lines):
                offset += len(lines[j]) + 1
    total = offset
    # Needles ask about different things when there are enough of them, so none is another's distractor.
    pool = rng.sample(_THINGS, min(needles, len(_THINGS))) + rng.sample(_THINGS * 8, max(0, needles - len(_THINGS)))
    combos = [(t, h, rng.choice(_PLACES)) for t, h in pool]
    if len(set(combos)) < needles:
        raise ValueError(f"at most {len(_THINGS) * len(_PLACES)} distinct needles")
    depths = [depth + k * (1 - depth) / needles for k in range(needles)]
    inserts: dict[tuple[int, int], list[str]] = {}
    facts: list[dict[str, Any]] = []
    for k, ((thing, holder, place), at) in enumerate(zip(combos, depths)):
        pos, i, j = max((b for b in bounds if b[0] <= at * total), default=bounds[0])
        key, value = f"{thing} for the {place} {holder}", f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}"
        inserts.setdefault((i, j), []).append(needle_sentence(key, value))
        facts.append(
            {
                "key": key,
                "answer": value,
                "doc": doc_ids[i],
                "depth": round(at, 4),
                "turn": k + 1,
                "offset": round(pos / total, 4),
            }
        )
    taken = set(inserts)
    for _ in range(distractors):
        thing, holder, place = combos[rng.randrange(needles)]
        other = rng.choice([p for p in _PLACES if p != place])
        free = [b for b in bounds if (b[1], b[2]) not in taken]
        _, i, j = rng.choice(free)
        taken.add((i, j))
        inserts.setdefault((i, j), []).append(
            needle_sentence(f"{thing} for the {other} {holder}", f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}")
        )
    documents = []
    for i, (doc_id, lines) in enumerate(zip(doc_ids, docs)):
        out = list(lines)
        for j in sorted((j for (d, j) in inserts if d == i), reverse=True):
            out[j:j] = inserts[(i, j)]
        documents.append({"id": doc_id, "text": "\n".join(out)})
    steps = [Step(i + 1, "fetch_document", d) for i, d in enumerate(doc_ids)]
    steps.append(Step(len(steps) + 1, "reply"))
    intro = (
        f"You are reviewing the {company} document archive before it is migrated. "
        "Read every document carefully; I will have questions about their contents afterwards."
    )
    where = ", ".join(f"{f['offset']:.1%}" for f in facts)
    return {
        "id": f"niah-l{length:05d}-d{round(depth * 1000):04d}" + (f"-n{needles}" if needles > 1 else ""),
        "kind": "needle",
        "description": f"NIAH cell: {needles} needle(s) at {where} of a {n_docs}-document (~{length} token) haystack "
        f"(requested depth {depth:g}), {distractors} distractor(s); question(s) after the task.",
        "task": render_task(intro, steps),
        "followups": [render_question(f["key"]) for f in facts],
        "documents": documents,
        "needles": [{k: v for k, v in f.items() if k != "offset"} for f in facts],
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in steps],
        "haystack_tokens": length,
        "needle_depth": depth,
    }


def niah_grid(
    lengths: list[int], depths: list[float], seed: int = SHIPPED_SEED, *, needles: int = 1, distractors: int = 1
) -> list[dict]:
    """Every (length, depth) cell, lengths outer."""
    return [
        niah_scenario(length, depth, seed, needles=needles, distractors=distractors) for length in lengths for depth in depths
    ]


def _read_and_note_steps(paths: list[str]) -> list[Step]:
    """Read each file, write a one-line note on it under /notes/, then reply."""
    return note_steps("read_file", paths, lambda path: f"/notes/{path.rsplit('/', 1)[1].rsplit('.', 1)[0]}.md")


def _goal_row(
    case_id: str, description: str, intro: str, steps: list[Step], *, files: list | None = None, documents: list | None = None
) -> dict:
    row: dict[str, Any] = {"id": case_id, "kind": "goal", "description": description, "task": render_task(intro, steps)}
    if files is not None:
        row["files"] = files
    if documents is not None:
        row["documents"] = documents
    row["expected_steps"] = [{"tool": s.tool, "target": s.target} for s in steps]
    return row


def goal_scenario(n_ledgers: int, seed: int) -> dict:
    rng = random.Random(f"goal:{n_ledgers}:{seed}")
    company = rng.choice(_COMPANIES)
    names = [f"ledger_{i + 1:02d}" for i in range(n_ledgers)]
    files = [{"path": f"/ledgers/{n}.md", "content": _ledger(rng, n, company, 80)} for n in names]
    steps = _read_and_note_steps([f["path"] for f in files])
    intro = (
        f"You are auditing the {company} ledgers for the warehouse migration. "
        "Go through every ledger and leave a short note on each one."
    )
    return _goal_row(
        f"goal-ledgers-{n_ledgers:02d}",
        f"{len(steps)}-step audit over {n_ledgers} ledger files (~{n_ledgers * 1500} tokens read); must keep going across summaries.",
        intro,
        steps,
        files=files,
    )


def metrics_scenario(n_files: int, seed: int) -> dict:
    """A goal task over JSON files of numbers and hex ids: content the approximate counter underestimates.

    Used in memory by the token-skew eval (not shipped as a dataset file).
    """
    rng = random.Random(f"metrics:{n_files}:{seed}")
    names = [f"batch_{i + 1:02d}" for i in range(n_files)]
    files = []
    for name in names:
        records = [
            f'{{"id": "{rng.getrandbits(48):012x}", "value": {rng.randint(0, 10**7)}.{rng.randint(0, 999):03d}, '
            f'"ts": {1_790_000_000 + rng.randint(0, 10**7)}, "count": {rng.randint(0, 99999)}}}'
            for _ in range(80)
        ]
        files.append({"path": f"/metrics/{name}.json", "content": "[\n" + ",\n".join(records) + "\n]"})
    steps = _read_and_note_steps([f["path"] for f in files])
    return _goal_row(
        f"metrics-{n_files:02d}",
        f"{len(steps)}-step audit over {n_files} numeric JSON files (ids, values, timestamps).",
        "You are checking the telemetry export. Note what each batch file holds.",
        steps,
        files=files,
    )


def delegation_scenario(batches: int, batch_size: int, seed: int) -> dict:
    """A parent task that delegates batches of documents to the general-purpose subagent (used in memory)."""
    base = needle_scenario(batches * batch_size * DOC_TOKENS, 0.0, seed)
    ids = [d["id"] for d in base["documents"]]
    steps = [Step(i + 1, "task", f"{ids[i * batch_size]}..{ids[(i + 1) * batch_size - 1]}") for i in range(batches)]
    steps.append(Step(len(steps) + 1, "reply"))
    return _goal_row(
        f"delegate-{batches}x{batch_size}",
        f"Delegates {batches} batches of {batch_size} documents to a subagent; each batch compresses inside the subagent.",
        "You coordinate the archive review. Hand each batch to a subagent and collect the reports.",
        steps,
        documents=base["documents"],
    )


def parent_scenario(own: int, delegated: int, seed: int) -> dict:
    """A parent that fetches ``own`` documents itself, then delegates ``delegated`` more to the general-purpose
    subagent in one task, then replies (the parent eval, used in memory): under the ``parent`` preset its summary
    falls on the call the task's report arrives, and the delegated work outgrows the subagent's smaller window."""
    base = needle_scenario((own + delegated) * DOC_TOKENS, 0.0, seed)
    ids = [d["id"] for d in base["documents"]]
    steps = [Step(i + 1, "fetch_document", ids[i]) for i in range(own)]
    steps.append(Step(own + 1, "task", f"{ids[own]}..{ids[own + delegated - 1]}"))
    steps.append(Step(own + 2, "reply"))
    return _goal_row(
        f"parent-{own}x{delegated}",
        f"Fetches {own} documents, then delegates {delegated} more to a subagent; the parent compacts as the report "
        "arrives, the subagent's work outgrows its own smaller window.",
        "You coordinate the archive review. Read the first documents yourself, hand the rest to a subagent and collect "
        "its report.",
        steps,
        documents=base["documents"],
    )


def chain_scenario(summaries: int, depth: float, seed: int) -> dict:
    """A needle planted early that must survive, or be recoverable after, ``summaries`` chained summaries."""
    row = needle_scenario(CHAIN_SIZES[summaries], depth, seed)
    row.update(
        id=f"chain-s{summaries}-d{round(depth * 100):03d}",
        kind="chain",
        min_summaries=summaries,
        description=f"Needle at depth {depth:.2f}, question after at least {summaries} chained summar{'y' if summaries == 1 else 'ies'} "
        f"(~{CHAIN_SIZES[summaries]} token haystack at forced-20).",
    )
    return row


def report_scenario(n_sections: int, seed: int, *, via: str = "write") -> dict:
    """A report built one section per document in a single file.

    ``via="write"``: every section after the first rewrites the whole file with write_file.
    ``via="edit"``: every section after the first is appended with edit_file after the
    file's last line; the documents carry more findings, so each appended section passes
    the 2,000-character argument limit itself.
    """
    rng = random.Random(f"report:{n_sections}:{seed}" if via == "write" else f"report-{via}:{n_sections}:{seed}")
    company = rng.choice(_COMPANIES)
    path = "/reports/inspection.md"
    doc_ids = [f"DOC-{i + 1:03d}" for i in range(n_sections)]
    documents, values = [], []
    for doc_id in doc_ids:
        value = f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}"
        values.append(value)
        inserts = {rng.randint(2, 12): f"{FINDING_PREFIX} the inspection reference for {doc_id} is {value}."}
        if via == "edit":
            for at in range(13, 13 + EDIT_EXTRA_FINDINGS):
                inserts[at] = f"{FINDING_PREFIX} {_prose_line(rng)}"
        documents.append({"id": doc_id, "text": _document(rng, doc_id, company, REPORT_DOC_TOKENS, inserts)})
    steps: list[Step] = []
    for i, doc_id in enumerate(doc_ids):
        steps.append(Step(len(steps) + 1, "fetch_document", doc_id))
        if i == 0:
            steps.append(Step(len(steps) + 1, "write_file", path, doc_id, "section"))
        elif via == "write":
            steps.append(Step(len(steps) + 1, "write_file", path, doc_id, "add"))
        else:
            steps.append(Step(len(steps) + 1, "edit_file", path, doc_id, "append"))
    steps.append(Step(len(steps) + 1, "reply"))
    how = (
        "Each time, rewrite the whole file with write_file"
        if via == "write"
        else "Add each later section with edit_file, right after the file's last line"
    )
    intro = (
        f"You are writing the {company} inspection report in {path}. Build it one section per document: a section "
        f"starts with '## <document id>', records the document's '{FINDING_PREFIX}' lines and its opening lines, and "
        f"ends with 'End of section <document id>.'. {how}, and never lose a section already written."
    )
    if via == "write":
        case_id = f"truncation-report-{n_sections:02d}"
        description = (
            f"{n_sections}-section report rewritten whole {n_sections} times; old rewrites pass the 2,000-character "
            "argument limit and are clipped, so adding a section needs the file read back."
        )
    else:
        case_id = f"truncation-edits-{n_sections:02d}"
        description = (
            f"{n_sections}-section report appended with edit_file; each appended section passes the 2,000-character "
            "limit and is clipped once old, so the next append needs the file's last line read back."
        )
    row = _goal_row(case_id, description, intro, steps, documents=documents)
    row["kind"] = "truncation"
    row["expected_files"] = [{"path": path, "contains": values}]
    return row


def regenerate_truncation_case(case_id: str, seed: int) -> dict:
    """The shipped truncation case ``case_id`` with other documents: ``seed`` 0 gives the shipped row.

    The validity suite runs each healthy truncation case over seeds; the offline agent and
    summarizer have nothing random in these runs, so the seed varies the documents instead.
    """
    prefix, _, count = case_id.rpartition("-")
    via = {"truncation-report": "write", "truncation-edits": "edit"}.get(prefix)
    if via is None or not count.isdigit():
        raise ValueError(f"{case_id!r} is not a truncation case id (truncation-report-NN or truncation-edits-NN)")
    return report_scenario(int(count), SHIPPED_SEED + seed, via=via)


def generate(out_dir: str | Path, seed: int = SHIPPED_SEED) -> dict[str, int]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    needles = [needle_scenario(size, depth, seed) for size in NEEDLE_SIZES for depth in NEEDLE_DEPTHS]
    goals = [goal_scenario(n, seed) for n in GOAL_LEDGER_COUNTS]
    chains = [chain_scenario(n, depth, seed) for n in CHAIN_SIZES for depth in CHAIN_DEPTHS]
    reports = [report_scenario(n, seed) for n in REPORT_SECTIONS] + [report_scenario(n, seed, via="edit") for n in EDIT_SECTIONS]
    grid = niah_grid(list(NIAH_LENGTHS), list(NIAH_DEPTHS), seed)
    probes = probe_rows(seed)
    recorded = [recorded_probe_row(SHIPPED_RECORDING, DATASETS_DIR, seed)]  # the recording is data: read from datasets/
    recording = load_conversation(DATASETS_DIR / SHIPPED_RECORDING)
    session = session_messages(recording, {d["id"]: d["text"] for d in recorded[0]["documents"]})
    needle_file, goal_file, chain_file, probe_file, recorded_file = DEFAULT_FILES
    truncation_file, sessions_file = MECHANISM_FILES
    files = (
        (needle_file, needles),
        (goal_file, goals),
        (chain_file, chains),
        (probe_file, probes),
        (recorded_file, recorded),
        (truncation_file, reports),
        (sessions_file, [session_row(session)]),
        (SESSION_RECORDING, session),  # the session case's conversation file
        ("niah/grid.jsonl", grid),
    )
    (out / "mechanisms").mkdir(exist_ok=True)
    (out / "niah").mkdir(exist_ok=True)
    (out / "conversations").mkdir(exist_ok=True)
    for name, rows in files:
        with (out / name).open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return {name: len(rows) for name, rows in files}


_GENERATED_SEED = 7


def todos_scenario(n_ledgers: int, seed: int) -> dict:
    """The goal audit over ``n_ledgers`` ledgers with its plan kept in the todo list (`TODOS_REQUEST`): the todos eval
    (deepagents#4161 / #4164). Used in memory."""
    row = goal_scenario(n_ledgers, seed)
    row.update(
        id=f"todos-ledgers-{n_ledgers:02d}",
        task=row["task"] + "\n\n" + TODOS_REQUEST,
        description=row["description"] + " The plan is tracked with write_todos.",
    )
    return row


def pasted_scenario(paste_tokens: int, seed: int) -> dict:
    """Pasted content: a short audit (turn 0), then a pasted document of about ``paste_tokens`` tokens stating a fact
    (turn 1; over the ``pasted`` preset's 1,500-token limit, so deepagents saves it to /conversation_history/ and the
    request shows a notice), a longer audit whose summaries take the paste out of view (turn 2), and the question
    (turn 3). Used in memory by the pasted eval."""
    rng = random.Random(f"pasted:{paste_tokens}:{seed}")
    company = rng.choice(_COMPANIES)
    thing, holder = rng.choice(_THINGS)
    place = rng.choice(_PLACES)
    key = f"{thing} for the {place} {holder}"
    value = f"{rng.randint(1000, 9999)}-{rng.choice(_CODEWORDS)}"
    paste = _document(rng, "PASTED", company, paste_tokens, {rng.randint(20, 40): needle_sentence(key, value)})
    files = [
        {"path": f"/ledgers/ledger_{i + 1:02d}.md", "content": _ledger(rng, f"ledger_{i + 1:02d}", company, 80)}
        for i in range(10)
    ]
    first, later = _read_and_note_steps([f["path"] for f in files[:2]]), _read_and_note_steps([f["path"] for f in files[2:]])
    return {
        "id": f"pasted-{paste_tokens // 1000}k",
        "kind": "needle",
        "description": f"A ~{paste_tokens}-token pasted document states a fact; summaries take it out of view; the question "
        "needs it back from the workspace.",
        "task": render_task(f"You are auditing the {company} ledgers.", first),
        "followups": [
            f"I am pasting the {company} vendor brief below for reference; I will ask about it later.\n\n{paste}",
            render_task("Now audit the remaining ledgers.", later),
            render_question(key),
        ],
        "files": files,
        "needles": [{"key": key, "answer": value, "doc": "PASTED", "depth": 0.0, "turn": 3}],
        "expected_steps": [{"tool": s.tool, "target": s.target} for s in [*first, *later]],
    }


def long_id_scenario(haystack_tokens: int, depth: float, seed: int) -> dict:
    """A needle case whose task asks for tool-call ids of 240 characters, longer than a path component (deepagents#5560:
    the evicted result's file is named from the id). Used in memory by the longid eval."""
    row = needle_scenario(haystack_tokens, depth, seed)
    row.update(
        id="longid-" + row["id"].removeprefix("needle-"),
        task=row["task"] + "\n\n" + LONG_IDS_REQUEST,
        description=row["description"] + " Tool-call ids of 240 characters, asked for in the task.",
    )
    return row


def survives_scenario(n_ledgers: int, seed: int) -> dict:
    """The ledger audit over ``n_ledgers`` ledgers, its plan in the todo list, with the AGENTS.md memory file and the
    skill of `harness.scenarios.survives` seeded and the skill read first. Used in memory by the survives eval."""
    from harness.scenarios.survives import LEDGER_LINES, MEMORY_FILE, MEMORY_TEXT, SKILL_FILE, SKILL_TEXT

    rng = random.Random(f"survives:{n_ledgers}:{seed}")
    company = rng.choice(_COMPANIES)
    names = [f"ledger_{i + 1:02d}" for i in range(n_ledgers)]
    ledgers = [{"path": f"/ledgers/{n}.md", "content": _ledger(rng, n, company, LEDGER_LINES)} for n in names]
    steps = _read_and_note_steps([SKILL_FILE, *(f["path"] for f in ledgers)])
    row = _goal_row(
        f"survives-ledgers-{n_ledgers:02d}",
        f"{len(steps)}-step audit over {n_ledgers} ledgers with an AGENTS.md memory, a skill read first and the plan in "
        "the todo list: what is in view after each summary.",
        f"You are auditing the {company} ledgers. Use the ledger-audit skill, then note each ledger.",
        steps,
        files=[{"path": MEMORY_FILE, "content": MEMORY_TEXT}, {"path": SKILL_FILE, "content": SKILL_TEXT}, *ledgers],
    )
    row["task"] += "\n\n" + TODOS_REQUEST
    return row


def generated_case(case_id: str):  # noqa: ANN201 - a Scenario (schema imports nothing from here)
    """A case built in memory rather than shipped, by id: ``delegate-<batches>x<size>`` (subagent),
    ``parent-<own>x<delegated>`` (parent), ``metrics-<files>`` (tokens), ``redo-docs-<N>-cut-<M>`` (redo) and the others below, always with seed 7, as the
    evals and the validity matrix run them."""
    import re

    from harness.errors import ConfigError
    from harness.scenarios.schema import _scenario

    if m := re.fullmatch(r"delegate-(\d+)x(\d+)", case_id):
        row = delegation_scenario(int(m[1]), int(m[2]), seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.delegation_scenario")
    if m := re.fullmatch(r"parent-(\d+)x(\d+)", case_id):
        row = parent_scenario(int(m[1]), int(m[2]), seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.parent_scenario")
    if m := re.fullmatch(r"todos-ledgers-(\d+)", case_id):
        row = todos_scenario(int(m[1]), seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.todos_scenario")
    if m := re.fullmatch(r"pasted-(\d+)k", case_id):
        row = pasted_scenario(int(m[1]) * 1000, seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.pasted_scenario")
    if m := re.fullmatch(r"longid-h(\d+)k-d(\d{3})", case_id):
        row = long_id_scenario(int(m[1]) * 1000, int(m[2]) / 100, seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.long_id_scenario")
    if m := re.fullmatch(r"survives-ledgers-(\d+)", case_id):
        row = survives_scenario(int(m[1]), seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.survives_scenario")
    if m := re.fullmatch(r"estimate-([a-z0-9]+)", case_id):
        from harness.scenarios.estimate import CONTENT_TYPES, estimate_scenario

        if m[1] not in CONTENT_TYPES:
            raise ConfigError(f"no case {case_id!r}: an estimate case is estimate-TYPE, TYPE one of {', '.join(CONTENT_TYPES)}")
        row = estimate_scenario(m[1], seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.estimate.estimate_scenario")
    if m := re.fullmatch(r"metrics-(\d+)", case_id):
        row = metrics_scenario(int(m[1]), seed=_GENERATED_SEED)
        return _scenario(row, "generated by harness.scenarios.generate.metrics_scenario")
    if m := re.fullmatch(r"redo-docs-(\d+)-cut-(\d+)", case_id):
        from harness.scenarios.redo import redo_scenario

        return redo_scenario(int(m[1]), int(m[2]), seed=_GENERATED_SEED)
    from harness.scenarios.boundary import BOUNDARY_CASES, boundary_scenario
    from harness.scenarios.media import MEDIA_CASES, media_scenario

    if case_id in MEDIA_CASES:
        return _scenario(media_scenario(case_id, _GENERATED_SEED), "generated by harness.scenarios.media.media_scenario")
    if case_id in BOUNDARY_CASES:
        return _scenario(boundary_scenario(case_id, _GENERATED_SEED), "generated by harness.scenarios.boundary")
    raise ConfigError(
        f"no case {case_id!r} in the datasets, and it is not a generated case (delegate-BxS, parent-PxB, metrics-N, "
        f"longid-hNk-dDDD, estimate-TYPE, pasted-Nk, redo-docs-N-cut-M, survives-ledgers-N, "
        f"{', '.join((*MEDIA_CASES, *BOUNDARY_CASES))})"
    )
