"""Cleaning the text of an answer before it is read: code fences, thinking blocks, an answer tag, tables and lists."""

from __future__ import annotations

import re

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
