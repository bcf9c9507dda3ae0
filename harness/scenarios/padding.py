"""Will compaction fire before a probe row's first question? The padding check of the generated probe families
(`harness.scenarios.probes`): every instance carries enough text before its first question for a summary under every
forced preset, estimated with the approximate counter (4 characters a token) and each preset's trigger; canary-rounds
must reach ``CANARY_ROUNDS`` summaries at forced-20. A row that would not compact raises ValueError."""

from __future__ import annotations

from harness.compaction.config import PRESETS
from harness.scenarios.haystack import CHARS_PER_TOKEN

CHECK_PRESETS = ("forced-10", "forced-15", "forced-20", "forced-25")
CANARY_PRESET = "forced-20"
CANARY_ROUNDS = 5
# The approximate counter's view of what every request carries besides the conversation (deepagents' system prompt
# and tool schemas), and what a summary adds back after each round: measured on the dev set's traces.
FIXED_TOKENS = 2_700
SUMMARY_TOKENS = 600
MARGIN = 1.15  # estimated tokens must pass a trigger by this factor


def tokens_before_question(row: dict) -> int:
    """Approximate tokens (4 characters each) the conversation holds when the first question is asked: the user
    turns and scripted assistant messages before it, and every document fetched and file read by the steps."""
    first = min(q["turn"] for q in row["questions"])
    turns = [row["task"], *row["followups"]][:first]
    said = [a["text"] for a in row.get("assistant", []) if a["turn"] <= first]
    texts = {d["id"]: d["text"] for d in row.get("documents", [])} | {f["path"]: f["content"] for f in row.get("files", [])}
    read = [texts[s["target"]] for s in row["expected_steps"] if s["tool"] in ("fetch_document", "read_file")]
    return sum(len(t) for t in (*turns, *said, *read)) // CHARS_PER_TOKEN


def estimated_summaries(tokens: int, preset: str) -> int:
    """How many summaries a conversation of ``tokens`` gets under ``preset`` (a forced preset: fraction trigger and
    keep): the first when the request passes the trigger, one more each time it refills from the kept window."""
    config = PRESETS[preset]
    trigger = config.trigger_tokens()
    keep = config.keep.tokens(config.window)
    if trigger is None or keep is None:
        raise ValueError(f"{preset}: padding is estimated for token or fraction triggers only")
    size = tokens + FIXED_TOKENS
    if size < trigger * MARGIN:
        return 0
    refill = trigger - keep - FIXED_TOKENS - SUMMARY_TOKENS
    return 1 + int((size - trigger * MARGIN) // (refill * MARGIN))


def check_padding(row: dict, family: str) -> None:
    """Raise ValueError when ``row`` would reach its first question without a summary under one of
    ``CHECK_PRESETS`` (canary-rounds: with fewer than ``CANARY_ROUNDS`` at ``CANARY_PRESET``)."""
    tokens = tokens_before_question(row)
    for preset in CHECK_PRESETS:
        if estimated_summaries(tokens, preset) < 1:
            raise ValueError(f"{row['id']}: ~{tokens} tokens before the first question do not reach {preset}'s trigger")
    if family == "canary-rounds":
        rounds = estimated_summaries(tokens, CANARY_PRESET)
        if rounds < CANARY_ROUNDS:
            raise ValueError(
                f"{row['id']}: ~{tokens} tokens give about {rounds} summaries at {CANARY_PRESET}, fewer than {CANARY_ROUNDS}"
            )
