"""A request holding a tool result whose call is not before it is refused, with the 400 each API answers it with.

The rule is the one pairing rule (`harness.tool_pairs`); each API's reading of its wire format is here, with its
provider's words for the refusal, so a live run through ``harness serve`` sees what a provider answers a request a
cut left an orphan result in (langchain#38352): a provider error (an ERROR outcome with this cause), never a reply.

- OpenAI chat completions: ``Invalid parameter: messages with role 'tool' must be a response to a preceeding message
  with 'tool_calls'.`` (``param`` ``messages.[i].role``; the misspelling is OpenAI's);
- Anthropic Messages: ``messages.i.content.j: unexpected `tool_use_id` found in `tool_result` blocks: <id>. Each
  `tool_result` block must have a corresponding `tool_use` block in the previous message.``;
- OpenAI Responses: ``No tool call found for function call output with call_id <id>.`` (``param`` ``input``).

The providers ask more than this rule (the results right after the message that made the calls); what is served here
is the part every one of them refuses, a result whose call is nowhere before it.
"""

from __future__ import annotations

from typing import Any

from harness.reference.serve.wire import RequestError
from harness.tool_pairs import ToolPairs

CHAT_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."


def check_chat(messages: list[Any]) -> None:
    """A chat completions ``messages`` list: RequestError at the first orphan tool message."""
    pairs = ToolPairs()
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        if msg.get("role") == "assistant":
            pairs.call([str(c["id"]) for c in msg.get("tool_calls") or [] if isinstance(c, dict) and c.get("id")], i)
        elif msg.get("role") == "tool" and pairs.answer(str(msg.get("tool_call_id")), i) is not None:
            raise RequestError(CHAT_ORPHAN, param=f"messages.[{i}].role")


def check_messages(messages: list[dict[str, Any]]) -> None:
    """An Anthropic ``messages`` list (checked for shape first): RequestError at the first orphan ``tool_result``."""
    pairs = ToolPairs()
    for i, msg in enumerate(messages):
        content = msg.get("content")
        blocks = content if isinstance(content, list) else []
        for j, block in enumerate(blocks):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and block.get("id"):
                pairs.call([block["id"]], i)
            elif block.get("type") == "tool_result" and pairs.answer(str(block.get("tool_use_id")), i) is not None:
                raise RequestError(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{block.get('tool_use_id')}. Each `tool_result` block must have a corresponding `tool_use` block in "
                    "the previous message."
                )


def check_responses(items: list[Any]) -> None:
    """A Responses ``input`` (with the stored items a ``previous_response_id`` names): RequestError at the first
    ``function_call_output`` whose ``function_call`` is not before it."""
    pairs = ToolPairs()
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call" and item.get("call_id"):
            pairs.call([item["call_id"]], k)
        elif item.get("type") == "function_call_output" and pairs.answer(str(item.get("call_id")), k) is not None:
            raise RequestError(f"No tool call found for function call output with call_id {item.get('call_id')}.", param="input")
