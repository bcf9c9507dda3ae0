"""The exact tokenizer (`harness.trace.exact_tokens`) gives tiktoken's ids offline, and each model maps to its encoding.

The ids below were checked on 2026-11-28 against an independent derivation: tiktoken's byte-pair merge written in
Python over the encodings' published rank tables (the ``.tiktoken`` files bpe-openai ships) with each encoding's
pre-tokenizing pattern; "hello world" is the pair tiktoken documents for both encodings.
"""

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from harness.trace import exact_tokens as et

KNOWN = {
    ("hello world", "o200k_base"): [24912, 2375],
    ("hello world", "cl100k_base"): [15339, 1917],
    ("你好，世界！", "o200k_base"): [177519, 979, 28428, 3393],
    ("你好，世界！", "cl100k_base"): [57668, 53901, 3922, 3574, 244, 98220, 6447],
    ("日本語のテキストです。", "o200k_base"): [9048, 40909, 3385, 16056, 18368, 38236, 15121, 788],
    ("日本語のテキストです。", "cl100k_base"): [9080, 22656, 45918, 252, 16144, 57933, 62903, 71634, 38641, 1811],
    ("👋🌍 ok", "o200k_base"): [28823, 233, 64364, 235, 4763],
    ("👋🌍 ok", "cl100k_base"): [9468, 239, 233, 9468, 234, 235, 5509],
}


@pytest.mark.parametrize(("text", "encoding"), list(KNOWN))
def test_known_texts_encode_to_tiktokens_ids_and_count_as_many(text, encoding):
    assert et.encode(text, encoding) == KNOWN[(text, encoding)]
    assert et.text_tokens(text, encoding) == len(KNOWN[(text, encoding)])


def test_a_special_tokens_spelling_is_ordinary_text_and_a_lone_surrogate_is_replaced_not_raised():
    assert et.text_tokens("<|endoftext|>") > 1  # not the single special token, not an error
    assert et.text_tokens("a\ud800b") >= 2


@pytest.mark.parametrize(
    ("model", "encoding"),
    [
        ("gpt-5.2", "o200k_base"),
        ("openai:gpt-4o-mini", "o200k_base"),
        ("gpt-4.1-2025-04-14", "o200k_base"),
        ("o3-mini", "o200k_base"),
        ("openai:gpt-oss-120b", "o200k_base"),
        ("gpt-4", "cl100k_base"),
        ("gpt-4-turbo", "cl100k_base"),
        ("openai:gpt-3.5-turbo", "cl100k_base"),
        ("reference-agent", "o200k_base"),
        ("reference:agent", "o200k_base"),
        ("reference-agent+limit-36000", "o200k_base"),
        ("fault:stale-answer", "o200k_base"),
        ("openai:reference-agent", "o200k_base"),
        ("anthropic:claude-sonnet-4-6", None),
        ("anthropic:reference-agent", None),
        ("google_genai:gemini-2.5-pro", None),
        ("claude-opus-4-7", None),
        ("", None),
        (None, None),
    ],
)
def test_each_model_maps_to_its_encoding_and_none_where_no_exact_count_exists(model, encoding):
    assert et.encoding_for_model(model) == encoding
    assert et.label(et.encoding_for_model(model)) == (f"exact {encoding}" if encoding else "simulated")


def test_served_openai_requests_count_in_the_models_encoding_or_the_reference_one():
    assert et.openai_api_encoding("gpt-4") == "cl100k_base"
    assert et.openai_api_encoding("reference-agent") == et.openai_api_encoding("whatever-alias") == "o200k_base"


def test_a_request_counts_framing_role_text_tool_calls_tools_and_the_reply_priming():
    hello = HumanMessage("hello world")
    assert et.message_tokens(hello) == 3 + 1 + 2  # framing, "user", "hello" " world"
    call = AIMessage("", tool_calls=[{"name": "fetch_document", "args": {"id": "DOC-001"}, "id": "c1"}])
    name_args = et.text_tokens("fetch_document") + et.text_tokens('{"id": "DOC-001"}')
    assert et.message_tokens(call) == 3 + et.text_tokens("assistant") + name_args
    result = ToolMessage("你好，世界！", tool_call_id="c1")
    assert et.message_tokens(result) == 3 + et.text_tokens("tool") + 4
    tools = [{"type": "function", "function": {"name": "fetch_document", "parameters": {}}}]
    messages = [SystemMessage("be brief"), hello, call, result]
    total = sum(map(et.message_tokens, messages)) + et.tools_tokens(tools) + et.REPLY_PRIMING
    assert et.request_tokens(messages, tools) == total
    assert et.request_tokens(messages) == total - et.tools_tokens(tools)


def test_an_unknown_encoding_is_refused_by_name():
    with pytest.raises(ValueError, match="p50k_base"):
        et.text_tokens("x", "p50k_base")
