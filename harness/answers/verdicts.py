"""The one rule per probe kind: an answer judged against the case's expected answer (`judge_value`, `judge_path`,
`judge_decision`, `judge_paths`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.answers.decisions import read_decision
from harness.answers.paths import read_paths
from harness.answers.reading import read_value
from harness.answers.values import normal, same_value
from harness.session_format import bare_path


@dataclass(frozen=True)
class Verdict:
    """An answer judged against the case's expected answer: ``correct``; ``stale`` (it committed to an earlier value
    of the chain); what it gave (``answered``: the value, or the paths) and set aside (``rejected``); ``how``."""

    correct: bool
    stale: bool
    answered: str | tuple[str, ...] | None
    rejected: tuple[str, ...]
    how: str


def judge_value(
    answer: str, key: str, expected: str, earlier: Sequence[str] = (), others: Iterable[str] = (), ignore: Iterable[str] = ()
) -> Verdict:
    """A recall, continuation or needle answer: right when it commits to ``expected`` (written however), stale when
    it commits to one of ``earlier``. ``others``: the case's other values (look-alikes), ``ignore``: context values."""
    reading = read_value(answer, key, [expected, *earlier, *others], ignore=ignore)
    correct = same_value(reading.value, expected)
    stale = not correct and any(same_value(reading.value, v) for v in earlier)
    return Verdict(correct, stale, reading.value, reading.rejected, reading.how)


def judge_decision(
    answer: str, key: str, expected: str, earlier: Sequence[str] = (), others: Iterable[str] = (), ignore: Iterable[str] = ()
) -> Verdict:
    """A decision answer: right when it decided ``expected`` and named as rejected exactly the earlier choices
    (``earlier``; none when there were none): every one of them, and nothing else."""
    reading = read_decision(answer, key, [expected, *earlier, *others], ignore=ignore)
    decided = same_value(reading.value, expected)
    named = {normal(v) for v in reading.rejected}
    want = {normal(v) for v in earlier if not same_value(v, expected)}
    stale = not decided and any(same_value(reading.value, v) for v in earlier)
    if not decided:
        how = reading.how
    elif reading.conflict:
        how = f"decided {reading.value!r}, but the answer {reading.conflict}"
    elif named != want:
        missing = [v for v in earlier if normal(v) in want - named]
        extra = [v for v in reading.rejected if normal(v) not in want]
        how = (
            "rejected "
            + (", ".join(reading.rejected) or "none")
            + f" where the earlier choices were {', '.join(earlier) or 'none'}"
        )
        how += (f" (missing: {', '.join(missing)})" if missing else "") + (
            f" (not an earlier choice: {', '.join(extra)})" if extra else ""
        )
    else:
        how = f"decided {reading.value!r}; rejected {', '.join(reading.rejected) or 'none'}"
    return Verdict(decided and named == want and not reading.conflict, stale, reading.value, reading.rejected, how)


def judge_paths(answer: str, expected: Iterable[str]) -> Verdict:
    """An artifact answer: right when the paths it names as created or changed are exactly ``expected``."""
    reading = read_paths(answer)
    want = set(expected)
    return Verdict(set(reading.paths) == want, False, reading.paths, reading.excluded, reading.how)


def judge_path(answer: str, expected: Iterable[str]) -> Verdict:
    """A session's path or artifact answer (one file asked for): right when it names a path and every path it names
    is one of ``expected``, each compared as one tree's file name (``./a/b``, ``a/b`` and ``/a/b`` alike), so a
    hedge between two files is not right."""
    reading = read_paths(answer)
    named = tuple(dict.fromkeys((*reading.paths, *reading.excluded)))
    forms = {bare_path(e) for e in expected}
    other = [p for p in named if bare_path(p) not in forms]
    if not named:
        how = "names no path"
    elif other:
        how = f"names {', '.join(other)}, not the file asked for"
    else:
        how = f"names {', '.join(named)}"
    return Verdict(bool(named) and not other, False, named, (), how)
