"""A tiny document model so each report is written once and rendered as Markdown and HTML.

Blocks: headings, paragraphs (Markdown-ish inline text), notes (callouts), tables
(pandas frames; in HTML a wide one scrolls sideways instead of widening the page), images (PNG files
beside the report; embedded as data URIs in HTML so the HTML file stands alone, shown at the page's width with
their own aspect ratio) and side-by-side preformatted texts.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd


@dataclass
class Document:
    title: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)  # (kind, value); the value's shape depends on the kind

    def heading(self, text: str, level: int = 2) -> None:
        self.blocks.append(("heading", (level, text)))

    def text(self, text: str) -> None:
        self.blocks.append(("text", text))

    def note(self, text: str) -> None:
        self.blocks.append(("note", text))

    def bullets(self, items: list[str]) -> None:
        self.blocks.append(("bullets", items))

    def table(self, frame: pd.DataFrame) -> None:
        self.blocks.append(("table", frame))

    def image(self, path: Path, alt: str) -> None:
        self.blocks.append(("image", (Path(path), alt)))

    def side_by_side(self, left_title: str, left: str, right_title: str, right: str) -> None:
        self.blocks.append(("pair", (left_title, left, right_title, right)))

    # -- rendering -----------------------------------------------------------------
    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for kind, value in self.blocks:
            if kind == "heading":
                level, text = value
                out += ["#" * level + " " + text, ""]
            elif kind == "text":
                out += [value, ""]
            elif kind == "note":
                out += ["\n".join("> " + line for line in value.splitlines()), ""]
            elif kind == "bullets":
                out += [*(f"- {item}" for item in value), ""]
            elif kind == "table":
                out += [value.to_markdown(index=False) if len(value) else "(no rows)", ""]
            elif kind == "image":
                path, alt = value
                out += [f"![{alt}]({path.name})", ""]
            elif kind == "pair":
                lt, left, rt, right = value
                out += [f"**{lt}**", "", "```", left, "```", "", f"**{rt}**", "", "```", right, "```", ""]
        return "\n".join(out)

    def html(self) -> str:
        body = [f"<h1>{_e(self.title)}</h1>"]
        for kind, value in self.blocks:
            if kind == "heading":
                level, text = value
                body.append(f"<h{level}>{_inline(text)}</h{level}>")
            elif kind == "text":
                body.append(f"<p>{_inline(value)}</p>")
            elif kind == "note":
                body.append(f"<div class='note'>{_inline(value)}</div>")
            elif kind == "bullets":
                body.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in value) + "</ul>")
            elif kind == "table":
                table = value.to_html(index=False, border=0, classes="t", escape=True)
                body.append(f"<div class='wide'>{table}</div>" if len(value) else "<p>(no rows)</p>")
            elif kind == "image":
                path, alt = value
                if path.exists():
                    data = base64.b64encode(path.read_bytes()).decode()
                    body.append(f"<img alt='{_e(alt)}' src='data:image/png;base64,{data}'>")
            elif kind == "pair":
                lt, left, rt, right = value
                body.append(
                    "<table class='pair'><tr><th>"
                    + _e(lt)
                    + "</th><th>"
                    + _e(rt)
                    + "</th></tr><tr><td><pre>"
                    + _e(left)
                    + "</pre></td><td><pre>"
                    + _e(right)
                    + "</pre></td></tr></table>"
                )
        return _PAGE.format(title=_e(self.title), body="\n".join(body))

    def write(self, directory: Path, stem: str = "report") -> tuple[Path, Path]:
        md, page = directory / f"{stem}.md", directory / f"{stem}.html"
        md.write_text(self.markdown(), encoding="utf-8")
        page.write_text(self.html(), encoding="utf-8")
        return md, page


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


def _inline(text: str) -> str:
    escaped = _e(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)
    escaped = re.sub(r"`(.+?)`", r"<code>\1</code>", escaped)
    return escaped.replace("\n", "<br>")


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1200px; color: #222; }}
table.t {{ border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0 1.5rem; }}
table.t th, table.t td {{ border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; }}
table.t th {{ background: #f4f4f4; }}
img {{ display: block; max-width: 100%; height: auto; margin: 0.5rem 0 1.5rem; }}
.wide {{ overflow-x: auto; }}
.note {{ background: #fff6e0; border-left: 4px solid #e0a800; padding: 0.6rem 1rem; margin: 1rem 0; }}
table.pair {{ width: 100%; table-layout: fixed; border-collapse: collapse; }}
table.pair td {{ vertical-align: top; border: 1px solid #ddd; }}
pre {{ white-space: pre-wrap; font-size: 0.75rem; margin: 0.4rem; }}
code {{ background: #f4f4f4; padding: 0 3px; }}
</style></head><body>
{body}
</body></html>
"""

SIMULATED_NOTE = (
    "**Simulated.** These results come from the harness's offline reference models driving the real deepagents "
    "middleware. They test the pipeline, the scorers and the statistics; conclusions about prompts or models need "
    "a live run (`--model provider:name`)."
)


def skipped_note(skipped: list[dict[str, Any]]) -> str | None:
    """The note for the cases a run or a grid skipped before running them (offline: a case the reference agent cannot
    run, `harness.suites.execute.offline_problem`), each with its reason; None when none was."""
    if not skipped:
        return None
    return f"**Skipped ({len(skipped)}), counted nowhere:** " + "; ".join(f"`{s['case_id']}`: {s['reason']}" for s in skipped)
