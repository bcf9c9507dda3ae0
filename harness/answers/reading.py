"""Reading a value answer: every mention of a value, each one's polarity (set aside or forward), and the commitment
(`read_value`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from harness.answers.text import clean
from harness.answers.values import _ANY_UNIT, _UNKNOWN, _value_shaped, normal, value_pattern

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
    # the key as the answer quotes it, cleaned as the answer was (a command in backticks, with quotes: its "2>&1" is no value)
    words = clean(key).split() if key else []
    key_at = re.finditer(r"\s+".join(map(re.escape, words)), text, re.IGNORECASE) if words else ()
    key_spans = [(m.start(), m.end()) for m in key_at]

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
