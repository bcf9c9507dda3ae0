"""Each model call of a replayed case as a LangSmith ``llm`` run with ``usage_metadata``, so experiments show tokens
and cost.

LangSmith fills an experiment's token and cost columns only from ``llm`` runs that carry ``usage_metadata``. The
export replays stored outputs (`harness.langsmith.export`), so no model is called there: under each replayed
case's run, one child ``llm`` run per recorded call (agent, summarizer, subagent and tool, these two on the model each was
made on) and one per provider compaction pass
(Anthropic's ``usage.iterations``, which LangChain's own tracing never shows), each with the tokens the provider
reported and, when the model has a price (`harness.scoring.cost.pricing`), ``input_cost``, ``output_cost`` and
``total_cost``. A call whose usage is unknown gets no ``usage_metadata`` (LangSmith would count it as 0); a cache
figure that is unknown is left out of ``input_token_details``. Simulated prices are named in the run's metadata.
"""

from __future__ import annotations

from typing import Any

from harness.scoring.cost import Tokens, dollars, iteration_tokens, pricing, usage_cost, usage_tokens
from harness.trace.schema import Trace


def usage_metadata(tokens: Tokens, price: dict[str, float] | None) -> dict[str, Any] | None:
    """LangSmith's ``usage_metadata`` for one call (None when input or output tokens are unknown): the counts,
    the known cache details, and the costs when ``price`` prices them."""
    if tokens["input"] is None or tokens["output"] is None:
        return None
    out: dict[str, Any] = {
        "input_tokens": tokens["input"],
        "output_tokens": tokens["output"],
        "total_tokens": tokens["input"] + tokens["output"],
    }
    details = {
        k: v for k, v in (("cache_read", tokens["cache_read"]), ("cache_creation", tokens["cache_write"])) if v is not None
    }
    if details:
        out["input_token_details"] = details
    total = dollars(tokens, price)
    if total is not None and price is not None:
        output = round(usage_cost(price, 0, tokens["output"]), 6)
        out |= {"input_cost": round(total - output, 6), "output_cost": output, "total_cost": total}
    return out


def llm_runs(trace: Trace) -> list[dict[str, Any]]:
    """The ``llm`` runs of one case, in call order: name, inputs, outputs (with ``usage_metadata`` when known) and
    metadata (role, model, the list model a simulated price is borrowed from)."""
    runs = []
    for call in trace.calls:
        model = {"agent": trace.agent_model, "summarizer": trace.summary_model}.get(call["role"], call.get("model") or "")
        runs.append(_run(f"{call['role']} call {call['index']}", call, model, call["role"], usage_tokens(call.get("usage"))))
        for n, entry in enumerate(call.get("compaction_usage") or []):
            runs.append(
                _run(f"compaction pass {call['index']}.{n}", call, trace.agent_model, "compaction", iteration_tokens(entry))
            )
    return runs


def _run(name: str, call: dict[str, Any], model: str, role: str, tokens: Tokens) -> dict[str, Any]:
    price, borrowed = pricing(model)
    provider, _, bare = model.rpartition(":")
    outputs: dict[str, Any] = {"text": ((call.get("response") or {}).get("text") or "")[:2000]} if role != "compaction" else {}
    if call.get("error"):
        outputs["error"] = call["error"].get("type")
    usage = None if call.get("error") else usage_metadata(tokens, price)
    if usage is not None:
        outputs["usage_metadata"] = usage
    metadata = {"role": role, "ls_model_name": bare, "ls_provider": provider or "reference", "call_index": call["index"]}
    if borrowed:
        metadata["cost_simulated_as"] = borrowed
    return {
        "name": name,
        "inputs": {"turn": call.get("turn"), "approx_tokens": call.get("approx_tokens"), "messages": len(call["message_keys"])},
        "outputs": outputs,
        "metadata": metadata,
    }


def emit_llm_runs(trace: Trace) -> int:
    """Log `llm_runs` under the current LangSmith run (the replayed case); returns how many."""
    from langsmith import trace as ls_trace

    runs = llm_runs(trace)
    for run in runs:
        with ls_trace(run["name"], run_type="llm", inputs=run["inputs"], metadata=run["metadata"]) as tree:
            tree.end(outputs=run["outputs"])
    return len(runs)
