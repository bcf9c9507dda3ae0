import copy

from harness.analysis.token_skew import ExactCounter, cached_cl100k, content_type, skew


def test_content_types():
    assert content_type("The shipment was delayed at the harbor because of customs.") == "prose"
    assert content_type('[{"value": 1234.567, "ts": 1795312448, "count": 991}]') == "numbers / json"
    assert content_type('{"id": "9f8e7d6c5b4a3f2e", "n": 12345678}') == "ids / hex"
    assert content_type('<message type="human">hi</message>') == "history xml"


def test_no_exact_tokenizer_is_downloaded(monkeypatch, tmp_path):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert cached_cl100k() is None
    assert "simulated" in ExactCounter().source


def test_skew_prefers_provider_usage_and_names_the_source(needle_trace):
    plain = skew([needle_trace])
    assert plain["calls"]["source"].str.contains("simulated|tiktoken").all()
    with_usage = copy.deepcopy(needle_trace)
    for call in with_usage.agent_calls():
        call["usage"] = {"input_tokens": call["approx_tokens"] * 2, "output_tokens": 5}
    result = skew([with_usage])
    assert (result["calls"]["source"] == "provider usage").all() and (result["calls"]["ratio"] == 0.5).all()
    assert result["late"].empty
