"""Reading a decision answer: the decided value and the rejected ones (`read_decision`, `says_none_rejected`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from harness.answers.reading import Reading, _commit, _mentions, _polarities
from harness.answers.text import clean
from harness.answers.values import same_value, value_pattern

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
