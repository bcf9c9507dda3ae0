"""How an answer is read: one reading of a free-text answer, used by the checks, the judge's calibration and the
reports.

Models do not answer in the form a question asks for. They write the value in prose, bold it, quote it, put it in a
code span or a JSON object, restate the question first, think out loud before a final answer, hedge, name an old
value beside the new one ("pg-16 (changed from mysql-8)"), say which choice was rejected in a sentence of its own
("Postgres was rejected because of its license."), write "487 kg" for ``487-kg`` or "19:00" for ``19-00``, or refuse.
This module reads all of that the same way, by rules a reviewer can read, and says how it read each answer (`how`).

A value answer (recall, continuation, a needle) is read in three steps:

1. *Mentions*: every place the answer names a value. A value the case knows (the asked fact's chain and the case's
   other values) is found however it is written (case, separators, unit words, a unit left out); any other
   value-shaped token (letters and digits joined by a hyphen or colon, or letters and digits together: ``4457-KESTRL``,
   ``9-OSPREY``), a number with a unit, and whatever a correction introduces ("now it is pdf") is a mention of an
   unknown value, so a near miss or a look-alike of those shapes is not read as the right value.
2. *Polarity*: a mention is *set aside* when its clause says it is not the answer: negated or named as old or
   rejected before it ("not", "no longer", "instead of", "rather than", "replacing", "changed from", "previously",
   "originally", "the old ...", "rejected:") or after it ("was rejected", "(old)", "is no longer ...", "before").
   The cue nearest the mention decides ("replaced by X" and "changed from Y to X" set X forward, not aside), and a
   value listed after one set aside ("rejected: A, B") is set aside with it.
3. *Commitment*: the answer commits to a value when one value is named and not set aside; when several are, the one
   marked as the answer ("Answer: X", "Final answer: X", "so it is X"), then the one marked current ("now X", "the
   latest value is X"), then the one stated for the asked key ("the access code for the north vault is X"). Values
   offered as alternatives ("X or Y", "either X or Y") commit to neither. Otherwise the answer commits to nothing:
   a refusal, only old values, or several candidates.

A decision answer is read the same way: the decided value is the commitment, the rejected values are the values set
aside. A list of files (the artifact probe) is read by clause: paths named where the clause, its line or the heading
above it says they were created or changed count; paths named only as read, or as not changed, do not.

What is *not* read deterministically, and so goes to the judge (`harness.scoring.judge`): whether a continuation
carries the work on, whether a decision's rationale is right, whether a file's description is. These readers decide
only which value, which choices and which paths an answer gives. docs/quality.md reports their accuracy on the
labelled corpus in ``datasets/answers/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

# -- values: how a known value may be written -------------------------------------------------------------------------
_UNITS: dict[str, tuple[str, ...]] = {
    "kg": ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "kilogramme", "kilogrammes"),
    "g": ("g", "gram", "grams"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "t": ("t", "tonne", "tonnes", "ton", "tons"),
    "rows": ("row", "rows"),
    "units": ("unit", "units"),
    "items": ("item", "items"),
    "pallets": ("pallet", "pallets"),
    "days": ("d", "day", "days"),
    "hours": ("h", "hr", "hrs", "hour", "hours"),
    "minutes": ("min", "mins", "minute", "minutes"),
    "seconds": ("s", "sec", "secs", "second", "seconds"),
    "ms": ("ms", "millisecond", "milliseconds"),
    "mb": ("mb", "megabyte", "megabytes"),
    "gb": ("gb", "gigabyte", "gigabytes"),
    "pct": ("pct", "percent", "%"),
    "kb": ("kb", "kilobyte", "kilobytes"),
    "tb": ("tb", "terabyte", "terabytes"),
    "bytes": ("b", "byte", "bytes"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "m": ("m", "metre", "metres", "meter", "meters"),
    "cm": ("cm",),
    "mm": ("mm",),
    "l": ("l", "litre", "litres", "liter", "liters"),
    "ml": ("ml",),
    "oz": ("oz", "ounce", "ounces"),
    "records": ("record", "records"),
    "entries": ("entry", "entries"),
    "lines": ("line", "lines"),
    "pieces": ("piece", "pieces", "pcs"),
    "boxes": ("box", "boxes"),
    "cartons": ("carton", "cartons"),
    "crates": ("crate", "crates"),
    "weeks": ("wk", "wks", "week", "weeks"),
    "months": ("mo", "month", "months"),
    "years": ("yr", "yrs", "year", "years"),
    "usd": ("usd", "dollar", "dollars"),
    "eur": ("eur", "euro", "euros"),
}
_UNIT_OF = {word: unit for unit, words in _UNITS.items() for word in words}
_ANY_UNIT = "|".join(sorted((re.escape(w) for w in _UNIT_OF), key=len, reverse=True))
_SEP = r"[\s\-_:.]{0,2}"  # between the parts of a value as written: "487 kg", "487kg", "19:00", "4457 KESTREL"
_LEFT = r"(?<![A-Za-z0-9/])"
_RIGHT = r"(?![A-Za-z0-9]|[\-_:.–][A-Za-z0-9]|,\d)"  # "4457-KESTREL-2" and "pg-160" are other values


def _parts(value: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+|%", value)


def value_pattern(value: str) -> re.Pattern[str]:
    """How ``value`` may be written in an answer: case aside, its parts joined by a space, hyphen, colon, dot or
    nothing, a unit by any of its names ("487-kg": "487 kg", "487 kilograms"), and a unit left out when the rest is a
    number ("487"), unless another unit follows ("487 lb" is another value)."""
    parts = _parts(value)
    if not parts:
        return re.compile(r"(?!x)x")
    time = re.fullmatch(r"(\d{1,2})[-:.h](\d{2})", value.strip())
    if time and int(time.group(1)) < 24 and int(time.group(2)) < 60:
        return _time_pattern(int(time.group(1)), int(time.group(2)))
    pieces = []
    for part in parts:
        unit = _UNIT_OF.get(part.lower())
        pieces.append("(?:" + "|".join(re.escape(w) for w in _UNITS[unit]) + ")" if unit else re.escape(part))
    unit_last = _UNIT_OF.get(parts[-1].lower()) is not None and len(parts) > 1
    if unit_last and all(p.isdigit() for p in parts[:-1]):
        head = _SEP.join(pieces[:-1])
        body = rf"{head}(?:{_SEP}{pieces[-1]}|(?!{_SEP}(?:{_ANY_UNIT})(?![A-Za-z]))(?!\s*(?:–|-|to|or)\s*\d))"
    else:
        body = _SEP.join(pieces)
    return re.compile(_LEFT + body + _RIGHT, re.IGNORECASE)


def _time_pattern(hour: int, minute: int) -> re.Pattern[str]:
    """A time of day as answers write it: 19:00, 19.00, 19h00, 19-00, 1900 (hours), 7:00 PM, 7 pm (minute 00)."""
    h24 = [f"{hour:02d}", str(hour)]  # the same twice from 10 on
    forms = [rf"(?:{'|'.join(h24)})\s?[:.h\-]\s?{minute:02d}(?!\s?[ap]\.?m\b)", rf"{hour:02d}{minute:02d}(?:\s?h(?:ou)?rs?\b)?"]
    h12, half = (hour % 12 or 12), ("p" if hour >= 12 else "a")
    forms.append(rf"{h12}(?:\s?[:.]\s?{minute:02d})\s?{half}\.?m\.?")
    if minute == 0:
        forms.append(rf"{h12}\s?{half}\.?m\.?")
    return re.compile(_LEFT + "(?:" + "|".join(forms) + ")" + r"(?![A-Za-z0-9]|[\-_:][A-Za-z0-9])", re.IGNORECASE)


def normal(value: str) -> str:
    """A value's comparable form: lower case, unit words by one name, separators dropped ("487 kg" -> "487kg")."""
    return "".join(_UNIT_OF.get(p.lower(), p.lower()) for p in _parts(value))


def same_value(a: str | None, b: str | None) -> bool:
    """``a`` and ``b`` are the same value as an answer may write it ("19:00" and "19-00"; "487 kg" and "487-kg")."""
    return a is not None and b is not None and normal(a) == normal(b)


# Unknown values: letters and digits joined by a hyphen or colon, or letters and digits together; never a path, a
# document id the harness's cases use (DOC-007), or an ordinal word.
_UNKNOWN = re.compile(
    r"(?<![A-Za-z0-9/\-_.])(?:[A-Za-z0-9]+(?:[\-:][A-Za-z0-9]+)+|(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,})(?![A-Za-z0-9/\-_]|\.[A-Za-z0-9])"
)
_NOT_A_VALUE = re.compile(
    r"^(?:DOC-\d+|\d+(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)+|\d+[a-z]?|[A-Za-z]+-?\d{1,2}:\d\d.*)$", re.IGNORECASE
)


def _value_shaped(token: str) -> bool:
    """An unknown token that reads as a value: it has a digit, or is written in capitals with a hyphen (BASALT-OPS)."""
    if re.fullmatch(r"DOC-\d+", token):  # in capitals (the next rule's form); any other case is _NOT_A_VALUE's
        return False
    if re.fullmatch(r"[A-Z0-9]+(?:-[A-Z0-9]+)+", token) and re.search(r"[A-Z]", token):
        return True
    if _NOT_A_VALUE.match(token):  # a time of day ("19:00") is none of its forms, so it reads as a value below
        return False
    return bool(re.search(r"\d", token))


# -- cleaning the text of an answer -----------------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*$", re.MULTILINE)


_THINK = re.compile(r"<(think|thinking|reasoning|scratchpad)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>|\\boxed\{([^{}]*)\}", re.IGNORECASE | re.DOTALL)


def final_part(answer: str) -> str:
    """What an answer gives as its answer: without a reasoning block (``<think>...</think>``), and only the content of
    an ``<answer>`` tag or a ``\\boxed{}`` when it has one."""
    text = _THINK.sub(" ", answer)
    tagged = [a or b for a, b in _ANSWER_TAG.findall(text)]
    return "\n".join(tagged) if tagged else text


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+\|?\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _tables(text: str) -> str:
    """A markdown table with a header row, each row written as "header: cell | header: cell", so a cell is read with
    what its column says of it ("| Decided | Rejected |" over "| xml-ubl | tiff-g4 |")."""
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] | None = None
    for i, line in enumerate(lines):
        if _TABLE_RULE.match(line) and i > 0 and "|" in lines[i - 1]:
            header = _cells(lines[i - 1])
            out[-1] = ""
            continue
        if header is not None and "|" in line:
            cells = _cells(line)
            out.append(" | ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells)))
            continue
        header = None
        out.append(line)
    return "\n".join(out)


_LIST_HEAD = re.compile(r"^\s*(?:[-*+]\s*)?([A-Za-z][\w \-]{0,40}):\s*$")
_LIST_ITEM = re.compile(r"^\s*[-*+•]\s+(.*\S)\s*$")


def _fold_lists(text: str) -> str:
    """A label on a line of its own and the items listed under it ("rejected:" then "  - tiff-g4"; YAML or markdown)
    as one line ("rejected: tiff-g4"), so an item is read with its label."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        head = _LIST_HEAD.match(lines[i])
        items = []
        j = i + 1
        while head and j < len(lines) and (item := _LIST_ITEM.match(lines[j])):
            items.append(item.group(1))
            j += 1
        if head and items:
            out.append(f"{head.group(1)}: {', '.join(items)}")
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def clean(answer: str) -> str:
    """The answer without its markup: code fences, emphasis, code spans, quotes, headings and brackets of JSON keys
    (the words stay where they were, so positions still mean something); tables as "header: cell" rows."""
    text = _tables(_FENCE.sub("", final_part(answer)))
    text = re.sub(r"~~(.+?)~~", r" \1 (struck out) ", text)  # struck through: set aside
    text = re.sub(r"<([A-Za-z_][\w\-]*)([^<>]*)>([^<>]*)</\1>", r"\1: \3 (\2)", text)  # <dock_code site="X">V</dock_code>
    text = re.sub(r"</?[A-Za-z_][\w\-]*[^<>]*>", " ", text)
    text = re.sub(r"[¹²³⁴⁵⁶⁷⁸⁹⁰†‡]|\[\^\d+\]", " ", text)  # footnote marks
    text = _fold_lists(text)
    text = re.sub(r"[*`\"“”«»]|(?<![A-Za-z])['‘’]|['‘’](?![A-Za-z])", " ", text)
    text = re.sub(r"(?m)^\s{0,3}#{1,6}\s*", "", text)
    text = re.sub(r"(?<![A-Za-z0-9])_{1,2}|_{1,2}(?![A-Za-z0-9])", " ", text)
    return text.replace("{", " ").replace("}", " ")


# -- polarity ---------------------------------------------------------------------------------------------------------
_BOUNDARY = re.compile(r"[;\n()—–→⟶]|->|=>|,|\.(?=\s|$)|!|\?|\s-\s|:\s*(?=\n)")
_ASIDE_BEFORE = (
    r"not|never|neither|no longer|nor|cannot|(?:is|are|was|were|could|does|do|did|should|would|has|have)n['’]t|can['’]t|won['’]t|"
    r"wrong|incorrect|instead of|rather than|in place of|replacing|replaces|replaced(?!\s+by|\s+with)|"
    r"supersed(?:es|ing|ed(?!\s+by))|overrid(?:es|ing|den(?!\s+by))|overrode|"
    r"(?:changed|switched|moved|migrated|updated|revised|went|changing|switching|moving|migrating)\s+(?:\w+\s+){0,2}?from|"
    r"done|finished|completed|wrapped up|already did|"
    r"previously|formerly|originally|initially|at first|used to be|(?:the\s+)?(?:old|older|earlier|former|prior|previous|"
    r"original|initial|outdated|stale|obsolete|superseded(?!\s+by)|deprecated|rejected|discarded|dropped)\b(?:\s+\w+){0,3}?"
    r"(?:\s+(?:is|was|were|are|being|of))?|rejected|rejecting|reject|ruled out|ruling out|dropped|dropping|discarded|"
    r"abandoned|declined|vetoed|revoked|expired|cancell?ed|turned down|passed on|against|(?:chosen|selected|picked|preferred|favou?red)\s+over|"
    r"rechazad[oa]s?|descartad[oa]s?|rejet[ée]e?s?|abgelehnt|verworfen|rifiutat[oi]|scartat[oi]|rejeitad[oa]s?"
)
_FORWARD_BEFORE = (
    r"replaced by|replaced with|superseded by|overridden by|changed to|switched to|moved to|migrated to|updated to|"
    r"revised to|went with|go with|going with|now|currently|next|later|then|current|latest|newest|new|final|finally|updated|"
    r"but|though|however|correct|actual|right|became|becomes|"
    r"chose|chosen|choose|decided|decision|selected|picked|settled on|adopted|answer|is still|still|in use|"
    r"decidid[oa]|respuesta|d[ée]cid[ée]e?|r[ée]ponse|entschieden|antwort|decis[oa]|risposta|resposta"
)
_CUE = re.compile(rf"\b(?:(?P<aside>{_ASIDE_BEFORE})|(?P<forward>{_FORWARD_BEFORE}))\b", re.IGNORECASE)
_FILLER = r"(?:(?:also|later|eventually|then|ultimately|actually|finally|subsequently|since|considered|proposed|evaluated|discussed|initially|originally|but|and|however|briefly|first|in the end|already|long)[\s,]+){0,3}"
_ASIDE_AFTER = re.compile(
    r"^\s*[|:\-–]?\s*(?:\w+\s*:\s*(?:replaced|superseded|done|finished|completed|old|stale|previous|obsolete)\b|"
    r"(?:\w+\s*:\s*)?(?:(?:which|that)\s+)?(?:(?:dropped|rejected|discarded|ruled out|abandoned)\b(?!\s*:)|(?:is|was|were|are|has been|had been|got|have been|'s)\s+"
    + _FILLER
    + r"(?:rejected|replaced|superseded|dropped|ruled out|discarded|abandoned|overridden|turned down|outdated|obsolete|"
    r"done|finished|completed|complete|expired|revoked|vetoed|cancell?ed|"
    r"deprecated|stale|wrong|incorrect|not\b(?!\s+(?:rejected|dropped|replaced|discarded|ruled out|superseded|abandoned|"
    r"overridden))|no longer\b|never\b|reverted|retired|withdrawn|the\s+(?:old|older|earlier|"
    r"original|previous|first|former|initial|stale|outdated|rejected)\b|an?\s+(?:old|older|earlier|previous|former|"
    r"initial|rejected|outdated|stale)\b|out\b(?!\s+of))"
    r"|(?:no longer|not)\b|(?:done|finished|completed|wrapped up)\b|(?:before|earlier|previously|originally|at first|initially|formerly)\b(?!\s+\w+\s+(?:is|was))"
    r"|(?:old|stale|previous|earlier|original|former|superseded|rejected|outdated|obsolete|initial)\b(?:\s+(?:value|one|"
    r"choice|option|decision|code|entry|plan|pick))?\s*$|lost out|got replaced|did not make|didn't make|was out))",
    re.IGNORECASE,
)
_ASIDE_PAREN = re.compile(
    r"^\s*[(\[]\s*(?:struck out|old|stale|previous(?:ly)?|earlier|original(?:ly)?|former(?:ly)?|superseded|rejected|outdated|obsolete|"
    r"initial(?:ly)?|no longer|not\b|deprecated|replaced|dropped|discarded|was\b|before\b|changed|reverted|ruled out)",
    re.IGNORECASE,
)
_ARROW_START = re.compile(r"^\s*(?:→|->|=>|⟶)")
_LIST_GAP = re.compile(r"^\s*(?:,|and|&|/|nor|or|as well as|plus|;)?\s*(?:and|or|nor)?\s*$", re.IGNORECASE)
_ALTERNATIVE_GAP = re.compile(r"^\s*(?:,\s*)?(?:or|or possibly|or maybe|or perhaps|/)\s*$", re.IGNORECASE)
_SECOND_GUESS = re.compile(
    r"\b(?:could|might|may)\s+(?:also|still|instead|equally|just as well)\s+be\b|\bor\s+(?:possibly|maybe|perhaps)\b|"
    r"\bmay be (?:that|this|it|the other) instead\b|\bthe other way (?:round|around)\b|\bor (?:it )?might be\b|"
    r"\bcould (?:also )?have been\b|\bnot sure (?:if|whether) it'?s\b|(?:^|\()\s*or\b",
    re.IGNORECASE | re.MULTILINE,
)
_EITHER = re.compile(r"\b(?:either|possibly|maybe|perhaps|might be|could be)\s*$", re.IGNORECASE)
_MARKER = re.compile(
    r"(?:\b(?:final answer|answer|value|result|so it is|so it's|so the answer is|the answer is|so|therefore|thus|"
    r"hence|decided|decision|decided value|chosen|choice|chose|selected|current value|latest value|it is|it's|is now|"
    r"now it is|now it's|current|latest|now|next|went with|go with|opted for|settled on|decided on|picked|we chose|"
    r"we picked|we selected)\b)(?:\s+(?:was|is|=|will be|became))?[\s:=\-]*$",
    re.IGNORECASE,
)
_FINAL = re.compile(
    r"\b(?:final answer|answer|so the answer is|the answer is|so it is|so it's)[\s:=\-]*$"
    r"|\b(?:so|therefore|thus|hence)\b[^.;\n]{0,40}(?:\b(?:is|should be|must be|would be|it's)|=|:)\s*$",
    re.IGNORECASE,
)
_CURRENT = re.compile(r"\b(?:now|currently|current|latest|newest|changed to|updated to|switched to)\b", re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:i (?:do not|don't|cannot|can't|can not|am unable to|am not able to) (?:know|find|see|recall|determine|confirm|"
    r"locate|access|tell)|not (?:available|in (?:my|the) (?:current )?context|something i can see)|no (?:record|information|"
    r"mention)|unable to (?:find|determine|locate)|i lost track|unknown)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Mention:
    """One place an answer names a value: ``value`` is the known value it is (as the case writes it) or the token
    as written; ``aside``: its clause says it is not the answer."""

    start: int
    end: int
    value: str
    aside: bool = False
    alternative: bool = False  # offered as one of several ("X or Y")
    marked: int = 0  # 3: marked as the answer; 2: marked current; 1: stated for the asked key; 0: named


@dataclass(frozen=True)
class Reading:
    """What an answer gives: ``value`` it commits to (None: none), the values it sets aside (``rejected``, first
    named first), every value named (``named``) and how it was read (``how``)."""

    value: str | None
    rejected: tuple[str, ...] = ()
    named: tuple[str, ...] = ()
    how: str = ""
    conflict: str = ""  # a decision answer that contradicts itself about what was rejected


def _clause_start(text: str, at: int) -> int:
    starts = [m.end() for m in _BOUNDARY.finditer(text, 0, at)]
    return starts[-1] if starts else 0


def _clause_end(text: str, at: int) -> int:
    m = _BOUNDARY.search(text, at)
    return m.start() if m else len(text)


def _before_polarity(window: str, clause: str) -> str | None:
    """ "aside", "forward" or None: the cue nearest the end of ``window`` (the clause before a mention, after the
    value before it), or "forward" when the clause runs "from ... to" up to the mention."""
    # An arrow needs no rule here: it is a clause boundary, so no window ends with one ("750 kg -> 487 kg": the
    # value after it is read alone, the one before it set aside by _ARROW_START).
    if re.search(r"\bfrom\b.*\bto\s*$", clause, re.IGNORECASE):
        return "forward"  # "changed from mysql-8 to pg-16": where it ends
    cues = list(_CUE.finditer(window))
    if not cues:
        return None
    last = cues[-1]
    return "aside" if last.group("aside") else "forward"


def _mentions(text: str, key: str, known: Sequence[str], ignore: Sequence[str]) -> list[Mention]:
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []
    ignored_spans: list[tuple[int, int]] = []
    for value in dict.fromkeys(ignore):  # every span of every ignored value is kept: their order does not matter
        for m in value_pattern(value).finditer(text):
            ignored_spans.append((m.start(), m.end()))
    key_spans = [(m.start(), m.end()) for m in re.finditer(re.escape(key), text, re.IGNORECASE)] if key else []

    def free(a: int, b: int) -> bool:
        return not any(a < e and s < b for s, e in [*taken, *ignored_spans, *key_spans])

    for value in sorted(dict.fromkeys(known), key=len, reverse=True):
        for m in value_pattern(value).finditer(text):
            if free(m.start(), m.end()):
                taken.append((m.start(), m.end()))
                found.append(Mention(m.start(), m.end(), value))
    for m in _UNKNOWN.finditer(text):
        token = m.group(0)
        if free(m.start(), m.end()) and _value_shaped(token):  # never part of a path: _UNKNOWN's lookbehind
            taken.append((m.start(), m.end()))
            found.append(Mention(m.start(), m.end(), token))
    for m in _QUANTITY.finditer(text):  # "507 units", "750 kg": a number with a unit is a value too
        if free(m.start(), m.end()):
            taken.append((m.start(), m.end()))
            found.append(Mention(m.start(), m.end(), m.group(0)))
    for m in _INTRODUCED.finditer(text):  # "now it is pdf", "moved to 9 pm": whatever a correction introduces is a value
        token, at = m.group("tok").rstrip("."), m.start("tok")
        if m.group("cue").lower() == "now" and not token[0].isdigit():
            continue  # "now start at ...": a bare "now" introduces a number ("now 600"), never a word
        if free(at, at + len(token)) and not _NOT_INTRODUCED.match(token):
            taken.append((at, at + len(token)))
            found.append(Mention(at, at + len(token), token))
    found.sort(key=lambda x: x.start)
    for m in _FORMER_LATTER.finditer(text):  # "the former", "the latter": the first or second value named before
        earlier = list(dict.fromkeys(f.value for f in found if f.end <= m.start()))
        if len(earlier) >= 2 and free(m.start(), m.end()):
            value = earlier[-2] if m.group(1).lower() == "former" else earlier[-1]
            found.append(Mention(m.start(), m.end(), value))
    return sorted(found, key=lambda x: x.start)


_CORRECTION_CUES = (
    r"changed\s+to|updated\s+to|switched\s+to|moved\s+to|migrated\s+to|revised\s+to|replaced\s+(?:by|with)|superseded\s+by|"
    r"overridden\s+by|became|becomes|make\s+that|i\s+mean|scratch\s+that|correction|the\s+correct\s+(?:one|value|code|answer)\s+is"
)
"""What introduces a value that replaces the one before it ("X, replaced by Y", "X -- scratch that, Y"): read by
`_INTRODUCED` (the value after it is a mention even when the case never stated it) and `_CORRECTION` (the value before
it is set aside)."""
_INTRODUCED = re.compile(
    r"\b(?P<cue>now\s+it\s+is|now\s+it's|it\s+is\s+now|it's\s+now|is\s+now|now|set\s+to|"
    rf"{_CORRECTION_CUES}|no(?=\s*[,;:—–-]))\b\W{{0,3}}\s*(?:the\s+|a\s+|an\s+)?"
    rf"(?P<tok>\d+(?:[.,:]\d+)?(?:\s?(?:[ap]\.?m\.?|{_ANY_UNIT})(?![A-Za-z]))?|[A-Za-z][\w\-]*)",
    re.IGNORECASE,
)
_NOT_INTRODUCED = re.compile(
    r"^(?:it|its|it's|the|that|this|a|an|to|be|is|was|were|are|not|no|in|on|at|by|for|of|and|or|but|so|i|we|you|they|"
    r"he|she|one|ones|what|which|longer|more|less|known|idea|value|answer|record|information|data|other|others|sure|"
    r"change|changes|doubt|problem|worries|wait|need|then|also|as|just|only|done|complete|completed|available|clue)$",
    re.IGNORECASE,
)
_QUANTITY = re.compile(rf"(?<![A-Za-z0-9\-.])\d+(?:[.,]\d+)?\s?(?:{_ANY_UNIT})(?![A-Za-z0-9])", re.IGNORECASE)
_FORMER_LATTER = re.compile(r"\bthe (former|latter)\b", re.IGNORECASE)


def _key_pattern(key: str) -> re.Pattern[str] | None:
    words = [w for w in re.split(r"\s+", key.strip()) if w]
    if not words:
        return None
    return re.compile(r"[\s_\-]+".join(re.escape(w) for w in words), re.IGNORECASE)


def _keys_of(key: str) -> list[re.Pattern[str]]:
    """The asked key, and for a reference question ("access code of the primary site") its attribute alone."""
    keys = [key]
    attribute, join, reference = key.partition(" of the ")
    if join and attribute.strip() and reference.strip():
        keys.append(attribute.strip())
    return [p for p in (_key_pattern(k) for k in keys) if p is not None]


_STATED = re.compile(
    r"^\s*(?:[,:]\s*)?(?:(?:is|was|are|=|:|-|remains|stays|stands at|is set to|was set to|was changed to|was updated to|"
    r"has been set to|should be|will be|reads|of)\s*)+(?:now\s+|currently\s+|still\s+|set to\s+|:\s*)?$",
    re.IGNORECASE,
)


def _polarities(text: str, mentions: list[Mention], key: str) -> list[Mention]:
    out: list[Mention] = []
    keys = _keys_of(key)  # none for no key
    for i, m in enumerate(mentions):
        start = _clause_start(text, m.start)
        after = text[m.end : _clause_end(text, m.end)]
        apposed = re.search(r"\(\s*$", text[: m.start]) and re.match(r"\s*\)", text[m.end :])
        if apposed:  # "the former plan (sign-receipts) was replaced": the words around the parentheses
            open_at = text.rfind("(", 0, m.start)
            start = _clause_start(text, open_at)
            close_at = text.find(")", m.end) + 1
            after = text[close_at : _clause_end(text, close_at)]
        clause_before = text[start : m.start]
        # a cue applies to the value after it: the window starts after the previous value in the clause
        before = text[max(start, mentions[i - 1].end if i else 0) : m.start]
        polarity = _before_polarity(before, clause_before)
        aside = (
            polarity == "aside"
            or bool(_ASIDE_AFTER.match(after))
            or _set_aside_next(text, m, mentions)
            or bool(_ARROW_START.match(text[m.end :]))
            or _aside_in_parentheses(text, m, mentions)
        )
        # "rejected: A, B" and "not A or B": a value listed after one set aside is set aside with it.
        prev = out[-1] if out else None
        if prev is not None and prev.aside and polarity is None and _LIST_GAP.match(text[prev.end : m.start]):
            aside = True
        asked = text[m.end : _sentence_end(text, m.end)].rstrip().endswith("?")
        alternative = asked or bool(
            (prev is not None and not prev.aside and _ALTERNATIVE_GAP.match(text[prev.end : m.start])) or _EITHER.search(before)
        )
        # "X or Y": X is marked an alternative here, when Y is read (an X set aside is no candidate either way)
        if alternative and prev is not None and _ALTERNATIVE_GAP.match(text[prev.end : m.start]) and out:
            out[-1] = replace(out[-1], alternative=True)
        marked = 0
        lead = _lead_in(text, m.start)
        if _FINAL.search(lead):
            marked = 4
        elif (_CURRENT.search(before) and polarity == "forward") or _MARKER.search(lead):
            marked = 3
        elif i == 0 and _opens(text, m, mentions):
            marked = 2
        elif any(_stated_for(text, k, m.start) for k in keys):
            marked = 1
        if i and not aside and out and _CORRECTION.search(text[mentions[i - 1].end : m.start]):
            out = [replace(o, aside=True, marked=0) if o is out[-1] and not o.aside else o for o in out]
        out.append(Mention(m.start, m.end, m.value, aside, alternative, marked))
    return out


def _sentence_end(text: str, at: int) -> int:
    """Where the sentence holding ``at`` ends (its closing mark included)."""
    m = re.search(r"[.!?](?=\s|$)|\n", text[at:])
    return at + m.end() if m else len(text)


def _lead_in(text: str, at: int) -> str:
    """The words just before ``at`` on its line, or the line above when nothing is before it ("### Answer" then the
    value on a line of its own)."""
    raw = text[max(0, at - 60) : at]
    line = raw[raw.rfind("\n") + 1 :]
    if line.strip() or "\n" not in raw:
        return line
    above = raw.rstrip().rsplit("\n", 1)[-1]
    return above + " "


_OPENING_FILLER = re.compile(
    r"^\s*(?:(?:most likely|likely|probably|i think|i believe|i'm fairly sure|i am fairly sure|it's|it is|that's|that is|"
    r"answer|value|decided|decision|the value is|yes|ok|okay|sure|so|final|my answer|best guess|i'd say)[\s,:\-]*)*$",
    re.IGNORECASE,
)


def _opens(text: str, m: Mention, mentions: list[Mention]) -> bool:
    """The answer opens with this value, alone in its clause: "Most likely X; ...", "X (the other code is ...)"."""
    start, end = _clause_start(text, m.start), _clause_end(text, m.end)
    if text[:start].strip(" \t\n-*>•"):
        return False
    if any(o is not m and start <= o.start < end for o in mentions):
        return False
    return bool(_OPENING_FILLER.match(text[start : m.start])) and not text[m.end : end].strip(" .!:")


_CORRECTION = re.compile(
    rf"\b(?:{_CORRECTION_CUES}|wait|i\s+misread|my\s+mistake)\b|(?:^|[,.;—–-])\s*no\s*[,.;:!—–-]", re.IGNORECASE
)
_WHAT_OLD = re.compile(r"^\s*(?:is|was)\s+what\s+(?:the\s+)?(?:old|older|earlier|previous|original|first|stale|outdated)\b", re.I)
_THAT_WAS = re.compile(
    r"^\W*(?:no\W+|nope\W+|but\s+|and\s+)?(?:that|this|which|it)(?:\s+one)?(?:\s+(?:was|has\s+been|had\s+been|is|got)|'s)\s+"
    r"(?:(?:since|later|now|then|already)\s+)?(?:superseded|replaced|rejected|dropped|overridden|outdated|obsolete|wrong|"
    r"incorrect|changed|withdrawn|reverted|retracted|no\s+longer|the\s+(?:old|older|earlier|previous|stale|outdated|wrong)\b)",
    re.IGNORECASE,
)


def _set_aside_next(text: str, m: Mention, mentions: list[Mention]) -> bool:
    """A value the words after it set aside: "X is what the old summary said", or the next clause, naming no value of
    its own, says "but that was superseded"."""
    if _WHAT_OLD.match(text[m.end :]):
        return True
    end = _clause_end(text, m.end)
    nxt = _sentence_end(text, end + 1) if end < len(text) else end
    if any(end <= o.start < nxt for o in mentions if o is not m):
        return False
    return bool(_THAT_WAS.match(text[end + 1 : nxt] if end < len(text) else ""))


def _aside_in_parentheses(text: str, m: Mention, mentions: list[Mention]) -> bool:
    """ "X (old)", "X (previously the value)": a parenthesis right after a mention that sets it aside and names no other
    value ("pg-16 (previously mysql-8)" sets mysql-8 aside, not pg-16)."""
    head = text[m.end : m.end + 60]
    if not _ASIDE_PAREN.match(head):
        return False
    close = head.find(")")
    end = m.end + (close if close >= 0 else len(head))
    return not any(m.end < other.start < end for other in mentions)


def _stated_for(text: str, key: re.Pattern[str], at: int) -> bool:
    """The mention at ``at`` is the value stated for ``key``: the key ends shortly before it, joined by "is" or ":"."""
    lead = text[max(0, at - 200) : at]
    hits = list(key.finditer(lead))
    return bool(hits) and bool(_STATED.match(lead[hits[-1].end() :]))


def _commit(mentions: list[Mention], text: str = "") -> tuple[str | None, str]:
    """The value an answer commits to among its mentions, and how. A value the answer sets aside anywhere is not its
    answer (unless marked as the answer); a second candidate offered after the value ("but it could also be Y", "or
    possibly Y") leaves the answer uncommitted."""
    last = {normal(m.value): m for m in mentions}  # what the answer says of a value last is what it says of it
    aside = {v for v, m in last.items() if m.aside}
    forward = [m for m in mentions if not m.aside and (normal(m.value) not in aside or m.marked == 4)]
    if not forward:
        return None, "no value named" if not mentions else "every value named is set aside"
    guess = _SECOND_GUESS.search(text, forward[0].end)  # none in no text
    if guess is not None and not any(m.marked == 4 and m.start > guess.end() for m in forward):
        return None, f"a second candidate offered ({guess.group(0).strip()!r} after {forward[0].value!r})"
    distinct = list(dict.fromkeys(normal(m.value) for m in forward))
    if len(distinct) == 1:
        m = forward[-1]
        if m.alternative and m.marked < 4:
            return None, f"{m.value!r} offered as an alternative"
        return m.value, f"the one value named and not set aside: {m.value!r}"
    levels = (
        (4, "marked as the answer"),
        (3, "marked current or chosen"),
        (2, "the value the answer opens with"),
        (1, "stated for the asked key"),
    )
    for level, what in levels:
        top = [m for m in forward if m.marked >= level and not m.alternative]
        values = list(dict.fromkeys(normal(m.value) for m in top))
        if len(values) == 1:
            return top[-1].value, f"{top[-1].value!r} {what} among {len(distinct)} values named"
        if len(values) > 1 and level in (4, 1):
            return top[-1].value, f"{top[-1].value!r}, the last of {len(values)} values {what}"
    names = ", ".join(repr(m.value) for m in forward)
    return None, f"several values named and none chosen: {names}"


def read_value(answer: str, key: str, known: Iterable[str] = (), *, ignore: Iterable[str] = ()) -> Reading:
    """The value ``answer`` gives for ``key``. ``known``: the values the case states (the asked fact's chain first,
    then the case's other values), found however they are written; ``ignore``: values that are context, never the
    answer (a reference question's entity)."""
    text = clean(answer)
    mentions = _polarities(text, _mentions(text, key, list(known), list(ignore)), key)
    value, how = _commit(mentions, text)
    if value is None and not mentions and _REFUSAL.search(text):
        how = "a refusal: no value named"
    rejected = tuple(dict.fromkeys(m.value for m in mentions if m.aside))
    return Reading(value, rejected, tuple(dict.fromkeys(m.value for m in mentions)), how)


_NONE_REJECTED = re.compile(
    r"\b(?:rejected|earlier choices?|alternatives?|other options?)\s*[:=\-]?\s*(?:none|n/a|nothing|no(?:ne)? (?:earlier|other))\b"
    r"|\bno (?:earlier |other |prior )?(?:choices?|options?|alternatives?|values?) (?:were|was) rejected\b"
    r"|\bnone (?:of the earlier choices )?(?:were|was) rejected\b|\bnothing (?:was|were) rejected\b",
    re.IGNORECASE,
)


_REJECTED_LIST = re.compile(
    r"\b(?:rejected|rechazad[oa]s?|rejet[ée]e?s?|abgelehnt|verworfen|rifiutat[oi]|rejeitad[oa]s?)(?:[ \t]+(?:choices?|options?|values?|alternatives?))?(?:[ \t]*[:=|][ \t]*\|?|[ \t]+(?=\S))[ \t]*\[?"
    r"(?P<items>(?:\([^)\n]*\)|[^\n.;|\]()—–])*)",
    re.IGNORECASE,
)
_ITEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-_:]*[A-Za-z0-9]|[A-Za-z0-9]")
_NOT_AN_ITEM = re.compile(
    r"^(?:because|as|for|by|due|since|in|on|at|the|it|them|that|this|these|those|all|both|either|options?|choices?|"
    r"values?|alternatives?|earlier|other|others|rest|was|were|is|are|and|but|after|before|with|from|of|to|outright|"
    r"too|then|later|none|nothing|no|n|na)$",
    re.IGNORECASE,
)
_DROPPED = re.compile(r"\b(?:rejected|dropped|ruled out|discarded|abandoned|turned down|vetoed)\b", re.IGNORECASE)
_REJECTED_OTHERS = re.compile(
    r"\b(?:rejected|dropped|ruled out|discarded)\s*:?\s+(?:all\s+)?(?:the\s+)?(?:others?|rest|both(?:\s+(?:earlier|other|previous))?"
    r"(?:\s+(?:choices|options|ones))?|all\s+(?:earlier|other|previous)\s+(?:choices|options|ones))\b|\b(?:the\s+)?(?:others?|rest)\s+"
    r"(?:were|was)\s+(?:all\s+)?(?:rejected|dropped|ruled out|discarded)\b",
    re.IGNORECASE,
)


def _rejected_lists(text: str, known: list[str]) -> list[list[str]] | None:
    """Each explicit list of rejected choices ("rejected: A, B", "Rejected A and B", "rejected: none"), read item by
    item (a choice the case never stated included); None when the answer has no such list."""
    lists = []
    for m in _REJECTED_LIST.finditer(text):
        raw = re.sub(r"\bn/a\b", "none", re.sub(r"\([^)]*\)?", " ", m.group("items")), flags=re.IGNORECASE)
        colon = bool(re.match(r"\w+(?:[ \t]+\w+)?[ \t]*[:=|]", m.group(0), re.IGNORECASE))
        if not colon and not any(value_pattern(v).match(raw.strip()) for v in known):
            continue  # "rejected once you asked": prose, not a list
        items: list[str] = []
        for n, item in enumerate(re.split(r",|\band\b|/|&|\bor\b", raw)):
            words = _ITEM.findall(item)
            if not words:
                continue
            match = next((v for v in known if value_pattern(v).search(item)), None)
            if match is None and _NOT_AN_ITEM.match(words[0]):
                if n == 0 and words[0].lower() not in ("none", "nothing", "no", "n", "na"):
                    break  # "rejected because ...", "rejected the others": prose, not a list
                continue
            items.append(match or words[0])
        else:
            lists.append(items)
    return lists or None


def read_decision(answer: str, key: str, known: Iterable[str] = (), *, ignore: Iterable[str] = ()) -> Reading:
    """What a decision answer decided (``value``) and which choices it names as rejected (``rejected``). An explicit
    list ("rejected: A, B"; "rejected: none") is the rejected set, its items set aside when the decided value is read,
    and each item read (a choice the case never stated included, so an invented rejection is seen); without one, the
    values the answer sets aside are the rejected ones, and "rejected the others" rejects every other value named."""
    known = list(known)
    text = clean(answer)
    lists = _rejected_lists(text, known)
    mentions = _polarities(text, _mentions(text, key, known, list(ignore)), key)
    conflict = ""
    if lists is not None:
        listed = [v for items in lists for v in items]
        if not listed and _DROPPED.search(_REJECTED_LIST.sub(" ", text)):
            conflict = "says no choice was rejected, then names one as rejected or dropped"
        mentions = [replace(m, aside=True) if any(same_value(m.value, v) for v in listed) else m for m in mentions]
        value, how = _commit(mentions, text)
        rejected = list(dict.fromkeys(listed))  # the decided value is never listed: every listed value is set aside
    else:
        value, how = _commit(mentions, text)
        rejected = [m.value for m in mentions if m.aside]
        if _REJECTED_OTHERS.search(text):
            rejected += [m.value for m in mentions if not same_value(m.value, value)]
    unique: list[str] = []
    for v in rejected:
        if not any(same_value(v, u) for u in unique):
            unique.append(v)
    return Reading(value, tuple(unique), tuple(dict.fromkeys(m.value for m in mentions)), how, conflict)


def says_none_rejected(answer: str) -> bool:
    """The answer says no earlier choice was rejected ("rejected: none")."""
    return bool(_NONE_REJECTED.search(clean(answer)))


# -- paths: the artifact probe ----------------------------------------------------------------------------------------
_PATH = re.compile(
    r"(?<![\w/.\-~])(?:\.(?=/))?(/[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*|(?<![\w.])[A-Za-z0-9_\-]+(?:/[A-Za-z0-9_.\-]+)*/[A-Za-z0-9_\-]+\.[A-Za-z0-9]{1,5}(?![\w/]))"
)
_BRACES = re.compile(r"(/[\w./\-]*)\{([^{}\s]+)\}([\w./\-]*)")
_PATH_RANGE = re.compile(r"(/[\w./\-]*?)(\d+)([\w.\-]*)\s+(?:through|thru|to|until|…|\.\.\.?)\s+\1(\d+)\3(?![\w/])")
_TREE_BRANCH = re.compile(r"^([\s│|`]*)(?:├──|└──|\|--|`--|\+--)[ \t]*([\w./][^\n]*?)\s*$")


def _absolute(path: str) -> str:
    """A path as the agent's filesystem names it: relative ones (notes/a.md, ./notes/a.md) from the root."""
    return path if path.startswith("/") else "/" + path


def _expand(text: str) -> str:
    """Paths written compactly, written out: brace lists (/notes/ledger_{01,02}.md), numbered ranges
    ("/notes/ledger_01.md through /notes/ledger_04.md") and trees (├── / └── under a root)."""
    text = _BRACES.sub(lambda m: " ".join(m.group(1) + item + m.group(3) for item in m.group(2).split(",")), text)

    def span(m: re.Match[str]) -> str:
        first, last, width = int(m.group(2)), int(m.group(4)), len(m.group(2))
        if not 0 < last - first < 100:
            return m.group(0)
        return " ".join(f"{m.group(1)}{n:0{width}d}{m.group(3)}" for n in range(first, last + 1))

    text = _PATH_RANGE.sub(span, text)
    lines, out = text.split("\n"), []
    stack: list[tuple[int, str]] = []  # (depth, name) of the folders above the current line
    root = ""
    for i, line in enumerate(lines):
        branch = _TREE_BRANCH.match(line)
        if branch is None:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if _TREE_BRANCH.match(nxt) and re.fullmatch(r"\s*/?[\w./\-]*/?\s*", line):
                root, stack = line.strip().rstrip("/"), []
                continue
            out.append(line)
            continue
        depth, name = len(branch.group(1)), branch.group(2).split()[0]
        stack = [(d, n) for d, n in stack if d < depth]
        if name.endswith("/"):
            stack.append((depth, name.rstrip("/")))
            continue
        folders = "/".join(n for _, n in stack)
        out.append(f"{root}/{folders}/{name}".replace("//", "/") + " " + " ".join(branch.group(2).split()[1:]))
    return "\n".join(out)


_WROTE = re.compile(
    r"\b(?:creat\w*|writ\w*|wrote|edit\w*|chang\w*|modif\w*|updat\w*|append\w*|add\w*|sav\w*|produc\w*|generat\w*|"
    r"touched|new|output)\b",
    re.IGNORECASE,
)
_READ_ONLY = re.compile(
    r"\b(?:read|reads|reading|opened|viewed|looked at|inspected|consulted|referenced|fetched|reviewed|scanned|checked|"
    r"browsed|listed|inputs?|sources?|only read|read[\s_\-]only)\b",
    re.IGNORECASE,
)
_NOT_WRITTEN = re.compile(
    r"\b(?:not|never|no|without|didn't|did not|wasn't|was not|weren't|haven't|have not|hasn't|has not|not yet|yet to)\b"
    r"[\w\s,]{0,25}?"
    r"\b(?:creat\w*|writ\w*|wrote|edit\w*|chang\w*|modif\w*|updat\w*|touch\w*|alter\w*)|\bunchanged\b|\buntouched\b|"
    r"\bread[\s_\-]only\b|\bonly read\b|"
    r"\b(?:will|going to|plan(?:ned|ning)?(?:\s+to)?|about to|yet to|to do|todo|pending|next|need(?:s)?\s+to|have\s+to|"
    r"tried\s+to|try\s+to|attempted|fail(?:ed|s)?|unable\s+to|could\s*n['’]?o?t|nothing)\b",  # not written (yet)
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PathsReading:
    """The paths an answer says were created or changed (``paths``, in order, each once), and those it names only as
    read or as not changed (``excluded``)."""

    paths: tuple[str, ...]
    excluded: tuple[str, ...] = ()
    how: str = ""
    notes: list[str] = field(default_factory=list, compare=False)


def _mode(text: str) -> str | None:
    """What a piece of text says of the paths it names: "wrote", "read" or None (nothing)."""
    if _NOT_WRITTEN.search(text):
        return "read"
    wrote, read = _WROTE.search(text), _READ_ONLY.search(text)
    if read and not wrote:
        return "read"
    if wrote and not read:
        return "wrote"
    return None  # both or neither: nothing definite


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_LABEL = re.compile(r"([A-Za-z][A-Za-z \-]{0,40}?)\s*[:=]\s*\[?[^:=]*$")


def _path_mode(line: str, start: int, end: int, heading: str | None, before: str | None) -> str | None:
    """What the answer says of the path at ``line[start:end]``: the words between it and the path before it in its
    clause ("I read /a and wrote /b": /b wrote), else what it says of that path ("I read /a and /b": both read), else
    the words after it up to the next path, the label it is listed under on its line ("changed: [...]", "Read only:
    ..."), its sentence, then the heading above its line; the first that says anything definite. ``before``: the mode
    of the path before it in the same clause, if any."""
    a, b = _clause_start(line, start), _clause_end(line, end)
    previous = [m.end() for m in _PATH.finditer(line, a, start)]
    near = _mode(line[previous[-1] if previous else a : start])
    if near in ("read", "wrote"):
        return near
    if previous and before is not None:
        return before
    following = _PATH.search(line, end, b)
    label = _LABEL.search(_PATH.sub(" ", line[:start]))
    s_start = max([m.end() for m in _SENTENCE.finditer(line, 0, start)], default=0)
    s_end = next((m.start() for m in _SENTENCE.finditer(line, end)), len(line))
    contexts = (
        line[end : following.start() if following else b],
        label.group(1) if label else "",
        _PATH.sub(" ", line[s_start:s_end]),
        heading or "",
    )
    for context in contexts:
        mode = _mode(context)
        if mode in ("read", "wrote"):
            return mode
    return None


def read_paths(answer: str) -> PathsReading:
    """The files an answer says were created or changed. A path counts unless what the answer says of it (its clause,
    the label it is listed under, its sentence or the heading above its line, the first that says anything) names it
    only as read or as not changed."""
    text = clean(_expand(answer))
    heading: str | None = None
    paths: list[str] = []
    excluded: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        found = list(_PATH.finditer(line))
        if not found:
            # a heading ("Read only:", "Files I created:") sets the mode of the lines listed under it
            mode = _mode(stripped)
            heading = stripped if mode in ("read", "wrote") else heading
            continue
        before: str | None = None
        prev_at = -1
        for m in found:
            path = m.group(1).rstrip(".,;:")
            at = m.start(1)
            same_clause = before is not None and _clause_start(line, at) <= prev_at
            before = _path_mode(line, at, at + len(path), heading, before if same_clause else None)
            prev_at = at
            if before == "read":
                excluded.append(_absolute(path))
            else:
                paths.append(_absolute(path))
    kept = list(dict.fromkeys(p for p in paths))
    aside = [p for p in dict.fromkeys(excluded) if p not in kept]
    how = f"{len(kept)} path(s) named as created or changed" + (
        f"; named as only read, unchanged or not yet written: {', '.join(aside)}" if aside else ""
    )
    return PathsReading(tuple(kept), tuple(aside), how)


# -- verdicts: the one rule per probe kind ----------------------------------------------------------------------------
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
