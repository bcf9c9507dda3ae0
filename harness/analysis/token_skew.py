"""Token-counter skew: deepagents' approximate count against an exact one, per call.

deepagents decides when to summarize with ``count_tokens_approximately`` (about four
characters a token). The exact count comes from, in order of preference:

1. the provider's reported usage (``usage_metadata.input_tokens``) on live runs;
2. the model's exact encoding through bpe-openai, offline (`harness.trace.exact_tokens`: o200k_base for the
   reference agent and current OpenAI models, cl100k_base for gpt-4 and gpt-3.5);
3. the harness's simulated provider tokenizer, only for a model with no exact encoding offline (Anthropic, Gemini).

Every table says which was used, per call and in its header. Reported: per content type (prose, CJK text, base64 or
another blob, numbers/ids, code, history XML) the worst ratio approx / exact over the messages seen (below 1: the counter
underestimates), and the calls whose exact size passed the window while the approximate
count was still below the trigger (compaction could not have fired in time).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pandas as pd
from langchain_core.messages import BaseMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.reference.provider_tokens import provider_tokens
from harness.trace import exact_tokens
from harness.trace.loops import trigger_tokens
from harness.trace.schema import Trace

_DIGITS = re.compile(r"\d")
_HEX = re.compile(r"\b[0-9a-f]{12,}\b")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]")  # kana, Han, Hangul, full-width
_BLOB = re.compile(r"[A-Za-z0-9+/]{200,}={0,2}")  # base64 and the like: one long run with no space


class ExactCounter:
    """The exact count of one encoding (None: the simulated provider tokenizer), and its name."""

    def __init__(self, encoding: str | None = exact_tokens.REFERENCE_ENCODING) -> None:
        self.encoding = encoding
        self.source = (
            f"{exact_tokens.label(encoding)} (bpe-openai)"
            if encoding
            else "simulated provider tokenizer (no exact encoding offline for this model)"
        )

    @classmethod
    def for_model(cls, model: str | None) -> ExactCounter:
        """The counter of ``model``'s encoding (`harness.trace.exact_tokens.encoding_for_model`)."""
        return cls(exact_tokens.encoding_for_model(model))

    def message(self, msg: BaseMessage) -> int:
        if self.encoding is None:
            return provider_tokens([msg])
        return exact_tokens.message_tokens(msg, self.encoding)


def content_type(text: str) -> str:
    if text.lstrip().startswith("<message type=") or "<message type=" in text[:200]:
        return "history xml"
    if not text:
        return "empty"
    if len(_CJK.findall(text)) > 0.3 * len(text):  # about 1.4-2.1 characters a token, not four (langchain#39754)
        return "CJK text"
    if sum(len(m) for m in _BLOB.findall(text)) > 0.5 * len(text):
        return "base64 / blob"
    digits = len(_DIGITS.findall(text)) / len(text)
    if _HEX.search(text) and digits > 0.2:
        return "ids / hex"
    if digits > 0.2:
        return "numbers / json"
    if text.count("def ") + text.count("{") + text.count(";") > len(text) / 200:
        return "code"
    return "prose"


def skew(traces: Iterable[Trace], counter: ExactCounter | None = None) -> dict[str, Any]:
    """Per-call and per-content-type skew for agent calls in ``traces``; each trace counted with ``counter`` or, by
    default, its agent model's encoding (`ExactCounter.for_model`)."""
    per_message: dict[tuple[str | None, str], tuple[str, int, int]] = {}
    calls, late, sources = [], [], []
    for trace in traces:
        counting = counter or ExactCounter.for_model(trace.agent_model)
        window = trace.config.get("window")
        trigger = trigger_tokens(trace)
        for call in trace.agent_calls():
            usage = (call.get("usage") or {}).get("input_tokens")
            exact_msgs = 0
            for key in call["message_keys"]:
                if (counting.encoding, key) not in per_message:
                    msg = trace.message(key)
                    text = trace.message_text(key)
                    kind = "tool calls" if not text.strip() and getattr(msg, "tool_calls", None) else content_type(text)
                    per_message[(counting.encoding, key)] = (kind, count_tokens_approximately([msg]), counting.message(msg))
                exact_msgs += per_message[(counting.encoding, key)][2]
            exact = usage if usage else exact_msgs + call.get("overhead_tokens", 0)
            source = "provider usage" if usage else counting.source
            sources.append(source)
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
    said = list(dict.fromkeys(sources)) or [(counter or ExactCounter()).source]
    return {"source": "; ".join(said), "calls": pd.DataFrame(calls), "types": types, "late": pd.DataFrame(late)}
