"""Token-counter skew: deepagents' approximate count against an exact one, per call.

deepagents decides when to summarize with ``count_tokens_approximately`` (about four
characters a token). The exact count comes from, in order of preference:

1. the provider's reported usage (``usage_metadata.input_tokens``) on live runs;
2. tiktoken's cl100k encoding, only if its file is already cached on this machine
   (tiktoken would otherwise download it; nothing here touches the network);
3. the harness's simulated provider tokenizer (calibrated to measured cl100k ratios).

Every table says which was used. Reported: per content type (prose, numbers/ids, code,
history XML) the worst ratio approx / exact over the messages seen (below 1: the counter
underestimates), and the calls whose exact size passed the window while the approximate
count was still below the trigger (compaction could not have fired in time).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.reference.provider_tokens import provider_tokens
from harness.trace.frames import trigger_tokens
from harness.trace.schema import Trace

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_DIGITS = re.compile(r"\d")
_HEX = re.compile(r"\b[0-9a-f]{12,}\b")


def cached_cl100k():  # noqa: ANN201
    """tiktoken's cl100k encoding if its file is already cached here, else None (never downloads)."""
    cache_dir = (
        os.environ.get("TIKTOKEN_CACHE_DIR")
        or os.environ.get("DATA_GYM_CACHE_DIR")
        or os.path.join(tempfile.gettempdir(), "data-gym-cache")
    )
    if not Path(cache_dir, hashlib.sha1(CL100K_URL.encode()).hexdigest()).exists():
        return None
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception:  # noqa: BLE001 - a broken cache means no exact tokenizer, not a failed report
        return None


class ExactCounter:
    """The best exact count available here, and its name."""

    def __init__(self) -> None:
        self.encoding = cached_cl100k()
        self.source = (
            "tiktoken cl100k_base (cached)"
            if self.encoding
            else "simulated provider tokenizer (no exact tokenizer cached offline)"
        )

    def message(self, msg: BaseMessage) -> int:
        if self.encoding is None:
            return provider_tokens([msg])
        text = msg.text if isinstance(msg.content, (str, list)) else str(msg.content)
        return 4 + len(self.encoding.encode(text, disallowed_special=()))


def content_type(text: str) -> str:
    if text.lstrip().startswith("<message type=") or "<message type=" in text[:200]:
        return "history xml"
    if not text:
        return "empty"
    digits = len(_DIGITS.findall(text)) / len(text)
    if _HEX.search(text) and digits > 0.2:
        return "ids / hex"
    if digits > 0.2:
        return "numbers / json"
    if text.count("def ") + text.count("{") + text.count(";") > len(text) / 200:
        return "code"
    return "prose"


def skew(traces: Iterable[Trace], counter: ExactCounter | None = None) -> dict[str, Any]:
    """Per-call and per-content-type skew for agent calls in ``traces``."""
    counter = counter or ExactCounter()
    per_message: dict[str, tuple[str, int, int]] = {}
    calls, late = [], []
    for trace in traces:
        window = trace.config.get("window")
        trigger = trigger_tokens(trace)
        for call in trace.agent_calls():
            usage = (call.get("usage") or {}).get("input_tokens")
            exact_msgs = 0
            for key in call["message_keys"]:
                if key not in per_message:
                    msg = trace.message(key)
                    text = trace.message_text(key)
                    kind = "tool calls" if not text.strip() and getattr(msg, "tool_calls", None) else content_type(text)
                    per_message[key] = (kind, count_tokens_approximately([msg]), counter.message(msg))
                exact_msgs += per_message[key][2]
            exact = usage if usage else exact_msgs + call.get("overhead_tokens", 0)
            source = "provider usage" if usage else counter.source
            row = {
                "case_id": trace.case_id,
                "call_index": call["index"],
                "approx": call["approx_tokens"],
                "exact": exact,
                "ratio": round(call["approx_tokens"] / exact, 3) if exact else None,
                "source": source,
            }
            calls.append(row)
            if window and trigger and exact > window and call["approx_tokens"] < trigger:
                late.append(row)
    by_type = pd.DataFrame([{"type": t, "approx": a, "exact": e} for t, a, e in per_message.values() if e])
    types = pd.DataFrame()
    if not by_type.empty:
        by_type["ratio"] = by_type["approx"] / by_type["exact"]
        types = (
            by_type.groupby("type")
            .agg(messages=("ratio", "size"), worst_ratio=("ratio", "min"), mean_ratio=("ratio", "mean"))
            .reset_index()
        )
        types[["worst_ratio", "mean_ratio"]] = types[["worst_ratio", "mean_ratio"]].round(3)
    return {"source": counter.source, "calls": pd.DataFrame(calls), "types": types, "late": pd.DataFrame(late)}
