"""A request whose tool calls and results are not paired as its API wants them is refused, with that API's 400.

The rules are the pairing rules (`harness.tool_pairs`); each API's reading of its wire format is here, with its
provider's words for each refusal, so a live run through ``harness serve`` sees what a provider answers such a
request (the request a cut left an orphan result in, langchain#38352, among them): a provider error (an ERROR outcome
with this cause), never a reply. The words are those users quote from the providers' 400s:

- OpenAI chat completions (`tool_pairs.adjacency`, results in the run of ``tool`` messages right after the assistant
  message): a tool message that does not answer a call of that message, ``Invalid parameter: messages with role 'tool'
  must be a response to a preceeding message with 'tool_calls'.`` (``param`` ``messages.[i].role``; the misspelling
  is OpenAI's); a call whose tool message is not in that run, ``An assistant message with 'tool_calls' must be
  followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response
  messages: <ids>`` (``param`` ``messages.[i].role``, i the message that came instead: so in a 2026 report, where it
  was the user message after the calls; ``messages``, as earlier reports name it, when the request ends in the run
  of tool messages, as after a parallel call whose result was lost, openai/codex#8479).
- Anthropic Messages (`tool_pairs.adjacency`, results in the next message): a ``tool_result`` that does not answer a
  ``tool_use`` of the previous message, ``messages.i.content.j: unexpected `tool_use_id` found in `tool_result`
  blocks: <id>. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.``; a
  ``tool_use`` without its ``tool_result`` in the next message, ``messages.i: `tool_use` ids were found without
  `tool_result` blocks immediately after: <ids>. Each `tool_use` block must have a corresponding `tool_result` block
  in the next message.`` (i the assistant message that made the calls).
- OpenAI Responses (`tool_pairs.ToolPairs`, no adjacency): a ``function_call_output`` whose ``function_call`` is not
  before it, ``No tool call found for function call output with call_id <id>.``; a ``function_call`` with no
  ``function_call_output`` anywhere in the input, ``No tool output found for function call <id>.`` (both ``param``
  ``input``). Whether Responses also wants the outputs right after the calls is not something its reports show
  (what they show is an output or a call missing from the input, or a proxy's own reordering), so nothing more is
  refused there.

A chat or Messages request that ends with the calling message (no message yet where the results belong) is answered
(`tool_pairs.adjacency` finds nothing due): no report shows what those providers say to it, and no client sends one,
since the results go before the next request, and deepagents' ``PatchToolCallsMiddleware`` answers a call an
interrupted run left (before the agent runs again, with a ToolMessage saying it did not complete, right after the
calling message).
"""

from __future__ import annotations

from typing import Any

from harness.reference.serve.wire import RequestError
from harness.tool_pairs import Orphan, ToolPairs, adjacency

CHAT_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
CHAT_UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
    "The following tool_call_ids did not have response messages: "
)
ANTHROPIC_ORPHAN = (
    "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block "
    "must have a corresponding `tool_use` block in the previous message."
)
ANTHROPIC_UNANSWERED = (
    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {ids}. Each `tool_use` "
    "block must have a corresponding `tool_result` block in the next message."
)


def _chat_pairs(msg: Any) -> tuple[list[str], list[str]]:
    if not isinstance(msg, dict):
        return [], []
    if msg.get("role") == "assistant":
        return [str(c["id"]) for c in msg.get("tool_calls") or [] if isinstance(c, dict) and c.get("id")], []
    if msg.get("role") == "tool":
        return [], [str(msg.get("tool_call_id"))]
    return [], []


def check_chat(messages: list[Any]) -> None:
    """A chat completions ``messages`` list: RequestError at the first tool message out of place or call unanswered."""
    found = adjacency([_chat_pairs(m) for m in messages], results_in="run")
    if isinstance(found, Orphan):
        raise RequestError(CHAT_ORPHAN, param=f"messages.[{found.position}].role")
    if found is not None:
        param = "messages" if found.before is None else f"messages.[{found.before}].role"
        raise RequestError(CHAT_UNANSWERED + ", ".join(found.call_ids), param=param)


def _blocks(msg: dict[str, Any]) -> list[Any]:
    content = msg.get("content")
    return content if isinstance(content, list) else []


def _anthropic_pairs(msg: dict[str, Any]) -> tuple[list[str], list[str]]:
    blocks = [b for b in _blocks(msg) if isinstance(b, dict)]
    calls = [str(b["id"]) for b in blocks if b.get("type") == "tool_use" and b.get("id")]
    return calls, [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]


def check_messages(messages: list[dict[str, Any]]) -> None:
    """An Anthropic ``messages`` list (checked for shape first): RequestError at the first ``tool_result`` that does
    not answer the previous message or ``tool_use`` the next message does not answer."""
    found = adjacency([_anthropic_pairs(m) for m in messages], results_in="next")
    if isinstance(found, Orphan):
        blocks = _blocks(messages[found.position])
        j = next(
            k
            for k, b in enumerate(blocks)
            if isinstance(b, dict) and b.get("type") == "tool_result" and str(b.get("tool_use_id")) == found.call_id
        )
        raise RequestError(ANTHROPIC_ORPHAN.format(i=found.position, j=j, id=found.call_id))
    if found is not None:
        raise RequestError(ANTHROPIC_UNANSWERED.format(i=found.position, ids=", ".join(found.call_ids)))


def check_responses(items: list[Any]) -> None:
    """A Responses ``input`` (with the stored items a ``previous_response_id`` names): RequestError at the first
    ``function_call_output`` whose ``function_call`` is not before it, else at the first ``function_call`` no
    ``function_call_output`` answers."""
    pairs = ToolPairs()
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call" and item.get("call_id"):
            pairs.call([item["call_id"]], k)
        elif item.get("type") == "function_call_output" and pairs.answer(str(item.get("call_id")), k) is not None:
            raise RequestError(f"No tool call found for function call output with call_id {item.get('call_id')}.", param="input")
    unanswered = pairs.unanswered()
    if unanswered:
        first = min(unanswered, key=lambda call_id: pairs.called[call_id])
        raise RequestError(f"No tool output found for function call {first}.", param="input")
