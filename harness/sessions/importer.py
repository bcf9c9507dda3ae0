"""`harness import`: a recorded session read, redacted, checked, cut, given its probes, and written as a ``session`` case.

It writes two files in the output directory: ``<id>.jsonl``, the conversation (the messages before the cut, OpenAI
chat format), and one row appended to ``sessions.jsonl`` (kind ``session``: where it came from and was cut, its
probes, `CONTINUE_TASK`). Every problem of the input is raised before a write; then ``sessions.jsonl`` with the row
appended (the earlier rows byte for byte) is loaded through the scenario loader, as a run will load it, before it
replaces the old file: on an error the new conversation file is removed and the earlier cases are intact. An id
already in ``sessions.jsonl``, or a conversation file already there, is refused, never overwritten. Every text is
redacted (`harness.redact`) before anything is written.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import ConfigError, DatasetError, ProviderFailed
from harness.scenarios.model import ID_PATTERN, SessionProbe
from harness.sessions import read_session
from harness.sessions.check import SessionSize, check_session
from harness.sessions.cut import Cut, choose_cut
from harness.sessions.model import CONTINUE_TASK, DEFAULT_STEPS, Compaction, Session
from harness.sessions.probes import generated_probes, read_probes

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

SESSIONS_FILE = "sessions.jsonl"


@dataclass(frozen=True)
class Imported:
    """What `import_session` wrote: the case id, the files, the session's size, the cut and the probes."""

    case_id: str
    row_file: Path
    conversation_file: Path
    session: Session
    size: SessionSize
    cut: Cut
    probes: tuple[SessionProbe, ...]
    proposed: int = 0  # of ``probes``, those the judge model proposed (`harness.sessions.propose`)
    left_out: tuple[str, ...] = ()  # the judge's proposals left out, each with why
    offline: str | None = None  # why an offline run skips the case (`_offline_reason`), or None


def import_session(
    fmt: str,
    source: str,
    out_dir: str | Path,
    *,
    case_id: str | None = None,
    cut: str | None = None,
    probes: str | None = None,
    options: dict[str, Any] | None = None,
    steps: int = DEFAULT_STEPS,
    propose: BaseChatModel | None = None,
) -> Imported:
    """Read ``source`` as ``fmt`` (``options``: the reader's own, e.g. a thread id), cut it (``cut``:
    `harness.sessions.cut.choose_cut`), take its probes from the file ``probes`` (else the generator) and write the case
    into ``out_dir`` (``steps``: the model calls a live agent continues for after the cut; ``propose``: a judge model
    whose proposed probes, `harness.sessions.propose`, are added after them); every problem is raised before a write."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out_dir}: is a file, not a directory")
    case_id = case_id or default_id(source)
    if not re.match(ID_PATTERN, case_id):
        raise ConfigError(f"--id {case_id!r}: use lowercase letters, digits, '-', '_' or '.' (starting with a letter or digit)")
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        raise ConfigError(f"--steps {steps!r}: a number of model calls, 0 or more (0: the probes alone)")
    rows_path, conversation_path = out / SESSIONS_FILE, out / f"{case_id}.jsonl"
    earlier = _earlier_rows(rows_path)
    if any(row.get("id") == case_id for row in earlier):
        raise ConfigError(f"--id {case_id}: already a case in {rows_path} (give another --id; nothing was overwritten)")
    if conversation_path.exists():
        raise ConfigError(f"--id {case_id}: {conversation_path} already exists (give another --id; nothing was overwritten)")
    session = redacted(read_session(fmt, source, **(options or {})))
    size = check_session(session)
    chosen = choose_cut(session, size, cut)
    unfound: ConfigError | None = None
    try:
        found = read_probes(probes, chosen.at) if probes else generated_probes(session.messages[: chosen.at])
    except ConfigError as exc:
        if probes or propose is None:
            raise
        found, unfound = [], exc  # none generated: the judge's may be all there is
    proposed: list[SessionProbe] = []
    left_out: list[str] = []
    if propose is not None:
        from harness.sessions.propose import propose_probes

        try:
            proposed, left_out = propose_probes(session.messages[: chosen.at], propose)
        except Exception as exc:  # noqa: BLE001 - the provider's error, said (redacted by the CLI) and exit 4
            raise ProviderFailed(
                f"--propose-probes: the judge model failed ({type(exc).__name__}: {(str(exc) or '?').splitlines()[0][:200]}); "
                "nothing was written"
            ) from None
    if unfound is not None and not proposed:
        raise ConfigError(f"{unfound}; the judge model proposed none either ({len(left_out)} left out)")
    every = (*found, *proposed)
    offline = _offline_reason(every)
    row = session_row(case_id, session, size, chosen, list(every), steps)
    _write_validated(out, row, session.messages[: chosen.at], rows_path, conversation_path)
    return Imported(case_id, rows_path, conversation_path, session, size, chosen, every, len(proposed), tuple(left_out), offline)


def _offline_reason(probes: tuple[SessionProbe, ...]) -> str | None:
    """Why an offline run will skip the case, in the words it skips it with (`harness.agent.models.probes_problem`
    on the default agent, the reference one), or None: probes in prose (a user's file, a judge's proposals) need a
    live model. The reference agent's own rule (`harness.reference.policy.cannot_follow`, what its model's
    ``cannot_follow`` says) is read without building the model, which would import LangChain's model stack into an
    import that has no other use for it (0.55 s and more against 0.17 s, on the loaded 2-core machine, 2026-11-29). A
    test holds the warning to the run's reason. The case is valid either way and written the same."""
    from harness.reference.policy import cannot_follow
    from harness.session_format import free_text_probes_reason

    outside = [(p.id, p.question) for p in probes if cannot_follow(p.question)]
    return free_text_probes_reason(outside, len(probes)) if outside else None


def default_id(source: str) -> str:
    """A case id from the source's file name: lower case, its JSON suffixes off, other characters as '-'."""
    name = Path(source).name.lower()
    for suffix in (".jsonl", ".json", ".traj", ".yaml"):
        name = name.removesuffix(suffix)
    return re.sub(r"[^a-z0-9_.\-]+", "-", name).strip("-._") or "session"


def session_row(
    case_id: str, session: Session, size: SessionSize, cut: Cut, probes: list[SessionProbe], steps: int = DEFAULT_STEPS
) -> dict[str, Any]:
    """The ``session`` case's row (`harness.scenarios.model.ScenarioRow`)."""
    info = {
        "format": session.format,
        "source": session.source,
        "messages": size.messages,
        "tokens": size.tokens,
        "cut": cut.at,
        "cut_by": cut.by,
        "compactions": [c.at for c in session.compactions],
        "steps": steps,
    }
    if not info["compactions"]:
        del info["compactions"]
    return {
        "id": case_id,
        "kind": "session",
        "description": f"{session.format} session {Path(session.source).name}: the first {cut.at} of {size.messages} messages "
        f"(cut by {cut.by}), then {len(probes)} probe(s)",
        "task": CONTINUE_TASK,
        "conversation": f"{case_id}.jsonl",
        "session": info,
        "probes": [_probe_row(p) for p in probes],
    }


def _probe_row(probe: SessionProbe) -> dict[str, Any]:
    row = {**asdict(probe), "expected": list(probe.expected), "stale": list(probe.stale)}
    if not row["stale"]:
        del row["stale"]
    return row


def redacted(session: Session) -> Session:
    """``session`` with every string in its messages, compactions, files, todos and source redacted."""
    from harness.redact import redact, redact_json, secret_values

    secrets = secret_values()  # read once: the environment scan is most of the cost of redacting one short text
    return replace(
        session,
        source=redact(session.source, secrets),
        messages=tuple(redact_json(m, secrets) for m in session.messages),
        compactions=tuple(
            Compaction(c.at, c.kind, redact(c.summary, secrets) if c.summary else c.summary) for c in session.compactions
        ),
        files=tuple((redact(p, secrets), redact(t, secrets)) for p, t in session.files),
        todos=tuple(redact_json(t, secrets) for t in session.todos),
    )


def _earlier_rows(path: Path) -> list[dict[str, Any]]:
    """The rows already in ``sessions.jsonl`` (none when it does not exist); a line that is not a JSON object is refused."""
    if not path.exists():
        return []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(str(path), n, None, f"invalid JSON ({exc.msg}): fix or move the file first") from None
        if not isinstance(row, dict):
            raise DatasetError(str(path), n, None, "a row is a JSON object: fix or move the file first")
        rows.append(row)
    return rows


def _write_validated(
    out: Path, row: dict[str, Any], conversation: tuple[dict[str, Any], ...], rows_path: Path, conversation_path: Path
) -> None:
    """Write the conversation and ``sessions.jsonl`` with the row appended (the earlier rows byte for byte, through a
    temporary file), after the whole file loads through the scenario loader (as a run will load it, every earlier
    case too); on an error the new conversation file and any directory made for it are removed, the earlier files
    untouched, and the DatasetError names ``rows_path``."""
    from harness.scenarios.schema import load_scenarios

    made = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    rows = rows_path.with_name(f".{rows_path.name}.import-tmp")
    before = rows_path.read_text(encoding="utf-8") if rows_path.exists() else ""
    try:
        _write_lines(conversation_path, list(conversation))  # checked absent: it is the new case's own file
        rows.write_text(
            before + ("\n" if before and not before.endswith("\n") else "") + json.dumps(row, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        try:
            load_scenarios([rows])
        except DatasetError as exc:
            raise DatasetError(str(rows_path), exc.row, exc.field, exc.problem, case_id=exc.case_id) from None
        rows.replace(rows_path)
    except BaseException:
        rows.unlink(missing_ok=True)
        conversation_path.unlink(missing_ok=True)
        if made:
            shutil.rmtree(out, ignore_errors=True)
        raise


def _write_lines(path: Path, values: list[dict[str, Any]]) -> Path:
    """``values`` as JSON lines in ``path`` (the caller renames it into place); returns ``path``."""
    with path.open("w", encoding="utf-8") as fh:
        for value in values:
            fh.write(json.dumps(value, ensure_ascii=False) + "\n")
    return path
