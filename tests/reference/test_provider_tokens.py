"""The simulated provider tokenizer's fast path counts exactly what its patterns count."""

import random

import pytest

from harness.reference import provider_tokens as pt


def _by_patterns(text: str) -> tuple[int, int, int]:
    return len(pt._LETTER.findall(text)), len(pt._DIGIT.findall(text)), len(pt._SPACE.findall(text))


def test_each_ascii_character_is_in_the_class_its_pattern_puts_it_in():
    for code in range(128):
        char = chr(code)
        assert pt.class_counts(char) == _by_patterns(char), repr(char)


def test_mixed_and_non_ascii_texts_count_as_the_patterns_do():
    rng = random.Random(0)
    alphabet = "aZ09 \t\n\x1c_-.,{}\"'é٣\u00a0\u2003ß漢"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert pt.class_counts(text) == _by_patterns(text), repr(text)


def test_text_tokens_weighs_each_class():
    assert pt.text_tokens("ab 1!") == pytest.approx(2 * 0.17 + 0.1 + 0.45 + 0.5)


@pytest.mark.parametrize(
    "wrong",
    [
        (b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", b"0123456789", b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f "),
        (b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", b"0123456789", b"\t\n\r "),
    ],
)
def test_a_wrong_class_table_is_caught(monkeypatch, wrong):
    monkeypatch.setattr(pt, "ASCII_CLASSES", wrong)
    mismatched = [chr(c) for c in range(128) if pt.class_counts(chr(c)) != _by_patterns(chr(c))]
    assert mismatched  # the character-by-character check above fails on such a table


def test_openai_apis_report_exact_o200k_usage_and_anthropics_the_simulated_count():
    # harness serve's chat completions count the request as OpenAI does (o200k_base for the reference models, the
    # model's own encoding for an OpenAI name); the Messages API keeps the simulated count (no exact Claude tokenizer)
    from langchain_core.messages import AIMessage, HumanMessage

    from harness.reference.serve import chat
    from harness.trace.exact_tokens import request_tokens, text_tokens

    text = "你好，世界！ hello world " * 50
    body = {"model": "reference-summarizer", "messages": [{"role": "user", "content": text}]}
    usage = chat.answer(body, seed=0)["usage"]
    assert usage["prompt_tokens"] == request_tokens([HumanMessage(text)], encoding="o200k_base")
    assert usage["prompt_tokens"] != pt.provider_tokens([HumanMessage(text)])  # not the simulated count
    gpt4 = chat.answer({**body, "model": "gpt-4"}, seed=0)["usage"]
    assert gpt4["prompt_tokens"] == request_tokens([HumanMessage(text)], encoding="cl100k_base") != usage["prompt_tokens"]
    reply = AIMessage("done", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "x"}])
    assert pt.output_tokens(reply, "o200k_base") == text_tokens("done") + text_tokens("f") + text_tokens('{"a": 1}') + 1
    assert pt.simulated_usage([HumanMessage(text)], None, reply)["input_tokens"] == pt.provider_tokens([HumanMessage(text)])
