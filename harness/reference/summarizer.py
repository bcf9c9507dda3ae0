"""The reference summarizer: extractive, shaped by the prompt's headings, seeded loss.

Input is exactly what deepagents sends a summarization model: one prompt in which the
messages to summarize are rendered as ``<message type="...">`` XML. Output depends on
that prompt and on (seed, loss rates) only:

- Headings in the prompt's instructions (``## SESSION INTENT``, ``COMPLETED WORK:``...)
  become the sections of the summary, filled by kind: intent (the user's requests,
  quoted verbatim), progress ("Step N done" and history-page lines), artifacts (paths),
  next steps, current state. A heading of a kind it cannot fill gets "None".
- A prompt with no headings gets a flat list of progress lines and no intent: the
  cost of an unstructured summary prompt shows up as goal drift.
- An earlier summary among the messages is carried forward (anchored), so chained
  summaries keep the intent and accumulate progress.
- Each progress line is dropped with probability ``detail_loss``, and the whole intent
  with probability ``intent_loss``, from a generator seeded by (seed, prompt without the
  history file's session id and offload times): trials with different seeds differ, the
  same seed reproduces, run after run.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from dataclasses import dataclass, field

from harness.agent import _deepagents_adapter as da
from harness.task_format import Step, parse_steps

_MESSAGE = re.compile(r'<message type="(\w+)">(.*?)</message>', re.DOTALL)
_TOOL_CALL = re.compile(r'<tool_call id="[^"]*" name="([^"]+)">(.*?)</tool_call>', re.DOTALL)
_CONTENT = re.compile(r"<content>(.*?)</content>", re.DOTALL)
_HEADING = re.compile(r"^(?:#{1,4}\s+(.+?)|([A-Z][A-Z0-9 /&,\-]{3,}[A-Z]):?)\s*$")
_ARG = re.compile(r'"(doc_id|file_path)":\s*"([^"]+)"')

SECTION_KINDS = {
    # checked in this order; first keyword found in the heading wins
    "next": ("next", "remaining", "todo", "to do", "plan"),
    "intent": ("intent", "goal", "objective", "request", "task"),
    "artifacts": ("artifact", "file", "resource"),
    "state": ("current state", "state", "status"),
    "decisions": ("decision", "constraint"),
    "progress": ("summary", "progress", "completed", "done", "work", "history", "action", "context"),
}


@dataclass
class Extract:
    original_request: str | None = None
    latest_request: str | None = None
    carried: list[str] = field(default_factory=list)  # progress lines from an earlier summary
    carried_plan: str | None = None  # steps an earlier summary listed, when it did not quote the request
    progress: list[str] = field(default_factory=list)  # progress lines from the new messages
    artifacts: list[str] = field(default_factory=list)
    last_action: str | None = None


def summarize(prompt: str, *, seed: int = 0, detail_loss: float = 0.15, intent_loss: float = 0.0) -> str:
    instructions, messages = _split_prompt(prompt)
    headings = [h for h in (_heading(line) for line in instructions.splitlines()) if h]
    extract = _extract(messages)
    # Seeded by the prompt without deepagents' run-specific history id and offload times, so the
    # same case and seed drop the same lines on every run.
    rng = random.Random(f"{seed}:{hashlib.sha256(da.run_stable_text(prompt).encode()).hexdigest()}")
    # An anchored prompt asks to keep the earlier summary's items: only new lines can be lost.
    carried = extract.carried if _anchors(instructions) else [ln for ln in extract.carried if rng.random() >= detail_loss]
    progress = carried + [line for line in extract.progress if rng.random() >= detail_loss]
    keep_intent = rng.random() >= intent_loss
    if not headings:
        body = progress or ["No notable progress recorded."]
        return "Summary of earlier work:\n" + "\n".join(body)
    out = []
    for heading in headings:
        kind = _kind(heading)
        out.append(f"## {heading}")
        out.append(_section(kind, extract, progress, keep_intent))
        out.append("")
    return "\n".join(out).strip()


def _split_prompt(prompt: str) -> tuple[str, list[tuple[str, str]]]:
    first = prompt.find('<message type="')
    last = prompt.rfind("</message>")
    if first < 0 or last < 0:
        return prompt, []
    instructions = prompt[:first] + prompt[last + len("</message>") :]
    return instructions, [(kind, body) for kind, body in _MESSAGE.findall(prompt[first : last + len("</message>")])]


_ANCHOR_WORDS = ("earlier summary", "previous summary", "word for word", "update it", "persistent")


def _anchors(instructions: str) -> bool:
    low = instructions.lower()
    return sum(w in low for w in _ANCHOR_WORDS) >= 2


def _heading(line: str) -> str | None:
    match = _HEADING.match(line.strip())
    if not match:
        return None
    text = (match.group(1) or match.group(2) or "").strip().rstrip(":")
    return text if _kind(text) != "unknown" else None


def _kind(heading: str) -> str:
    low = heading.lower()
    for kind, words in SECTION_KINDS.items():
        if any(w in low for w in words):
            return kind
    return "unknown"


def _extract(messages: list[tuple[str, str]]) -> Extract:
    ext = Extract()
    plan: list[Step] = []
    for kind, raw in messages:
        if kind == "human":
            text = html.unescape(raw)
            if text.startswith(da.SUMMARY_OPENINGS):
                _carry(ext, da.summary_body(text))
            else:
                if ext.original_request is None:
                    ext.original_request = text
                ext.latest_request = text
        if not plan:
            plan = parse_steps(_plan_source(ext))
    pending: list[tuple[str, str]] = []
    for kind, raw in messages:
        if kind == "ai":
            pending = [(name, html.unescape(args)) for name, args in _TOOL_CALL.findall(raw)]
            content = _CONTENT.search(raw)
            if content and not pending and content.group(1).strip():
                ext.last_action = "replied: " + html.unescape(content.group(1)).strip()[:200]
        elif kind == "tool" and pending:
            name, args = pending.pop(0)
            _record(ext, name, args, html.unescape(raw), plan)
    if ext.latest_request == ext.original_request:
        ext.latest_request = None
    return ext


def _record(ext: Extract, name: str, args: str, result: str, plan) -> None:
    target = dict(_ARG.findall(args))
    path = target.get("doc_id") or target.get("file_path") or ""
    failed = result.lstrip().lower().startswith("error")
    header = da.read_page_header(result)
    if name == "read_file" and header is not None and path.startswith((da.HISTORY_PREFIX, da.LARGE_RESULTS_PREFIX)):
        line = f"- read_file {path} lines {header.first_line}-{header.last_line} of {header.total_lines}"
    else:
        first = next((ln.strip() for ln in result.splitlines() if ln.strip() and not ln.startswith("@@")), "")
        number = next((s.number for s in plan if s.tool == name and s.target == path), None)
        label = f"Step {number} done" if number and not failed else ("failed" if failed else "done")
        line = f"- {label}: {name} {path}" + (f' (begins "{first[:80]}")' if first and name != "write_file" else "")
    ext.progress.append(line)
    ext.last_action = line[2:]
    if path and name in ("write_file", "edit_file", "read_file") and path not in ext.artifacts:
        ext.artifacts.append(path)


def _carry(ext: Extract, previous: str) -> None:
    """Fold an earlier summary (one of ours, or any text) into this extract."""
    original = _quoted(previous, "Original request:")
    latest = _quoted(previous, "Latest request:")
    if original and ext.original_request is None:
        ext.original_request = original
    if latest:
        ext.latest_request = latest
    if original is None:
        steps = parse_steps(previous)
        if steps:
            ext.carried_plan = "\n".join(s.render() for s in steps)
    for line in previous.splitlines():
        if line.startswith("- ") and (" done" in line or "read_file " in line or "failed" in line):
            ext.carried.append(line)
        elif line.startswith("- /") and line[2:] not in ext.artifacts:
            ext.artifacts.append(line[2:])


def _plan_source(ext: Extract) -> str:
    return ext.original_request or ext.carried_plan or ""


def _quoted(text: str, label: str) -> str | None:
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == label:
            block = [f[1:].removeprefix(" ") for f in _takewhile_quoted(lines[i + 1 :])]
            return "\n".join(block) if block else None
    return None


def _takewhile_quoted(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if not line.startswith(">"):
            break
        out.append(line)
    return out


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


def _section(kind: str, ext: Extract, progress: list[str], keep_intent: bool) -> str:
    if kind == "intent":
        if not keep_intent or not ext.original_request:
            return "None"
        parts = ["Original request:", _quote(ext.original_request)]
        if ext.latest_request:
            parts += ["", "Latest request:", _quote(ext.latest_request)]
        return "\n".join(parts)
    if kind == "progress":
        return "\n".join(progress) if progress else "None"
    if kind == "artifacts":
        return "\n".join(f"- {p}" for p in ext.artifacts) if ext.artifacts else "None"
    if kind == "next":
        # The remaining steps of the request, copied with their numbers.
        steps = parse_steps(_plan_source(ext)) if keep_intent else []
        done = [int(n) for n in re.findall(r"Step (\d+) done", "\n".join(progress))]
        remaining = [s for s in steps if s.number > max(done, default=0)]
        if not remaining:
            return "None"
        return f"Continue with step {remaining[0].number}. Remaining steps:\n" + _quote("\n".join(s.render() for s in remaining))
    if kind == "state":
        return ext.last_action or "None"
    return "None"
