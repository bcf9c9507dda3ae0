import copy

from harness.analysis.token_skew import ExactCounter, content_type, skew


def test_content_types():
    assert content_type("The shipment was delayed at the harbor because of customs.") == "prose"
    assert content_type('[{"value": 1234.567, "ts": 1795312448, "count": 991}]') == "numbers / json"
    assert content_type('{"id": "9f8e7d6c5b4a3f2e", "n": 12345678}') == "ids / hex"
    assert content_type('<message type="human">hi</message>') == "history xml"
    # CJK and base64 were read as prose: the counter's worst cases (langchain#39754), each a type of its own
    assert content_type("仓库迁移的账本审计已经完成了一半，接下来检查北区的记录。") == "CJK text"
    assert content_type("倉庫の移行に伴う台帳の監査は半分まで終わりました。次は北の記録です。") == "CJK text"
    assert content_type("Note: 仓 is a character.") == "prose"
    blob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 5 + "=="
    assert content_type(f"attachment: {blob}") == "base64 / blob"


def test_exact_counts_offline_name_their_encoding_and_the_simulated_one_only_where_none_exists():
    assert ExactCounter().source.startswith("exact o200k_base") and ExactCounter().encoding == "o200k_base"
    assert ExactCounter.for_model("openai:gpt-4").encoding == "cl100k_base"
    anthropic = ExactCounter.for_model("anthropic:claude-sonnet-4-6")
    assert anthropic.encoding is None and "simulated" in anthropic.source
    # the reference agent is counted as a current OpenAI model: "hello world" is two o200k_base tokens (+ framing)
    from langchain_core.messages import HumanMessage

    assert ExactCounter().message(HumanMessage("hello world")) == 3 + 1 + 2


def test_skew_prefers_provider_usage_and_names_the_source(needle_trace):
    plain = skew([needle_trace])
    assert plain["calls"]["source"].str.startswith("exact o200k_base").all(), "the reference agent is counted in o200k_base"
    with_usage = copy.deepcopy(needle_trace)
    for call in with_usage.agent_calls():
        call["usage"] = {"input_tokens": call["approx_tokens"] * 2, "output_tokens": 5}
    result = skew([with_usage])
    assert (result["calls"]["source"] == "provider usage").all() and (result["calls"]["ratio"] == 0.5).all()
    assert result["late"].empty
