"""The faster paths give what the slower ones gave: a trace's JSON text, a bound tool's schema."""

import json

from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from harness.reference import models
from harness.trace.schema import Trace, load_trace
from tests._traces import HISTORY, Conversation


def _trace() -> Trace:
    conv = Conversation()
    conv.user("Review the archive.")
    conv.agent(tools=[("fetch_document", {"doc_id": "DOC-1"}, "the vault code is TANGO-7 (ratio 0.25)")])
    conv.summarize("The archive review is under way.")
    conv.user("What was the vault code?")
    conv.agent(tools=[("read_file", {"file_path": HISTORY}, "... TANGO-7 ...")])
    conv.answer("The code is TANGO-7.")
    trace = conv.trace()
    trace.final = {"answers": ["The code is TANGO-7."], "ratio": 0.1 + 0.2, "unicode": "é漢"}
    return trace


def test_to_json_is_the_text_json_dumps_makes_of_to_dict():
    trace = _trace()
    assert trace.to_json() == json.dumps(trace.to_dict(), separators=(",", ":"))


def test_a_saved_trace_reads_back_equal(tmp_path):
    trace = _trace()
    again = load_trace(trace.save(tmp_path / "t.json.gz"))
    assert again.to_dict() == trace.to_dict()


def test_to_json_that_left_out_a_field_would_be_caught(monkeypatch):
    trace = _trace()
    broken = {f: getattr(trace, f) for f in trace.__dataclass_fields__ if f != "final"}
    monkeypatch.setattr(Trace, "to_json", lambda self: json.dumps(broken, separators=(",", ":")))
    assert trace.to_json() != json.dumps(trace.to_dict(), separators=(",", ":"))


@tool
def lookup(key: str, limit: int = 3) -> str:
    """Look a key up."""
    return key


def test_openai_tool_converts_once_per_tool_object_and_equals_the_conversion(monkeypatch):
    models._TOOL_SCHEMAS.clear()
    calls = []
    real = models.convert_to_openai_tool
    monkeypatch.setattr(models, "convert_to_openai_tool", lambda t: calls.append(t) or real(t))
    first, second = models.openai_tool(lookup), models.openai_tool(lookup)
    assert first == second == convert_to_openai_tool(lookup)
    assert calls == [lookup]  # the second came from the cache
    as_dict = {"type": "function", "function": {"name": "x", "description": "d", "parameters": {}}}
    models.openai_tool(as_dict), models.openai_tool(as_dict)
    assert calls[1:] == [as_dict, as_dict]  # dicts are never cached by address


def test_openai_tool_does_not_serve_another_objects_schema_at_a_reused_address(monkeypatch):
    models._TOOL_SCHEMAS.clear()
    models._TOOL_SCHEMAS[id(lookup)] = (object(), {"stale": True})  # an entry left by a dead object at this address
    assert models.openai_tool(lookup) == convert_to_openai_tool(lookup)


def test_the_cache_is_bounded(monkeypatch):
    models._TOOL_SCHEMAS.clear()
    monkeypatch.setattr(models, "TOOL_CACHE_SIZE", 1)
    models.openai_tool(lookup)
    other = tool("other", description="Another.")(lambda q: q)
    models.openai_tool(other)
    assert len(models._TOOL_SCHEMAS) == 1
