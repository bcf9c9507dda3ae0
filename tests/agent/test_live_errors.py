"""Live-path error handling: which exceptions are the provider's (an ERROR, not a failed eval), what the trace records
of them, which model raised them, and when a 429's long Retry-After is waited out rather than ending the case."""

from __future__ import annotations

from typing import ClassVar

import httpx
import openai
import pytest
from langchain_core.exceptions import ContextOverflowError
from langchain_core.language_models import BaseChatModel

from harness.agent import live
from harness.agent.live import (
    CASE_DEADLINE,
    RetryAfterNotWaited,
    classify_error,
    error_cause,
    is_provider_error,
    is_unread_response,
    retry_after_wait,
)

MODEL_CALL = "/venv/site-packages/langchain_core/language_models/chat_models.py"
REFERENCE_MODEL = "/repo/harness/reference/model.py"
TOOL = "/repo/harness/tools/files.py"


class _Model:
    """A model as a frame's ``self``: ``simulated`` is the capability `live.is_simulated` reads (the reference models
    and the faulty summarizer say True; a provider's model has no such attribute)."""

    def __init__(self, simulated: object = None) -> None:
        if simulated is not None:
            self.simulated = simulated


SIMULATED, LIVE = _Model(True), _Model()


def _request() -> httpx.Request:
    return httpx.Request("POST", "http://x/v1/chat/completions")


def _rate_limit(headers: dict[str, str] | None = None, body: object = None, message: str = "Rate limited") -> Exception:
    response = httpx.Response(429, request=_request(), headers=headers or {})
    return openai.RateLimitError(message, response=response, body=body)


def _status_error(cls: type, status: int, message: str, body: object = None) -> Exception:
    return cls(message, response=httpx.Response(status, request=_request()), body=body)


def _foreign(module: str, name: str = "ProviderError") -> type[Exception]:
    """An exception class that reports itself as defined in ``module`` (as the provider packages' own classes do)."""
    return type(name, (Exception,), {"__module__": module})


def _raise(exc: BaseException):
    raise exc


def _raised_through(frames: list[tuple[str, str] | tuple[str, str, object]], exc: BaseException) -> BaseException:
    """``exc`` raised under a stack of calls, each ``(file, function name)`` or ``(file, function name, self)``
    outermost first (``self``: the object the frame is a method of, e.g. a model), and caught here."""

    def call() -> None:
        _raise(exc)

    for filename, name, *owner in reversed(frames):
        namespace: dict = {}
        exec(compile(f"def {name}(inner, self=None):\n    inner()\n", filename, "exec"), namespace)
        call = (lambda step, inner, me: lambda: step(inner, me))(namespace[name], call, owner[0] if owner else None)
    try:
        call()
    except BaseException as caught:  # noqa: BLE001
        return caught
    raise AssertionError("nothing was raised")


def _caused(outer: BaseException, cause: BaseException) -> BaseException:
    """``outer`` raised ``from cause`` (its traceback set, as a real re-raise sets it)."""
    try:
        raise outer from cause
    except BaseException as caught:  # noqa: BLE001
        return caught


@pytest.fixture
def deadline():
    """Set the running case's deadline (a `time.monotonic()` value) for one test."""
    tokens = []

    def set_deadline(value: float | None) -> None:
        tokens.append(CASE_DEADLINE.set(value))

    yield set_deadline
    for token in reversed(tokens):
        CASE_DEADLINE.reset(token)


@pytest.fixture
def clock(monkeypatch):
    """The harness's view of `time.monotonic()`, fixed at 1000 s."""

    class Clock:
        now = 1000.0

        def monotonic(self) -> float:
            return self.now

    fake = Clock()
    monkeypatch.setattr(live, "time", fake)
    return fake


# -- which errors are the provider's -------------------------------------------------------


@pytest.mark.parametrize(
    "package",
    [
        "openai",
        "anthropic",
        "httpx",
        "httpcore",
        "langchain_openai",
        "langchain_anthropic",
        "google",
        "langchain_google_genai",
        "groq",
        "mistralai",
    ],
)
def test_an_exception_from_any_provider_package_or_its_submodules_is_a_provider_error(package):
    assert is_provider_error(_foreign(package)("boom"))
    assert is_provider_error(_foreign(f"{package}._exceptions.sub")("boom"))


@pytest.mark.parametrize("module", ["builtins", "harness.agent.runner", "langchain_core.exceptions", "openaix", "x.openai"])
def test_an_exception_from_elsewhere_is_not_a_provider_error(module):
    assert not is_provider_error(_foreign(module)("boom"))


def test_a_provider_exception_anywhere_in_the_cause_chain_makes_the_error_the_providers():
    inner = openai.APIConnectionError(request=_request())
    outer = _caused(RuntimeError("agent stopped"), _caused(ValueError("wrapped"), inner))
    assert is_provider_error(outer)


def test_an_exception_raised_while_handling_a_provider_error_is_the_providers():
    try:
        try:
            raise openai.APIConnectionError(request=_request())
        except openai.APIConnectionError:
            raise KeyError("choices")  # noqa: B904
    except KeyError as exc:
        caught = exc
    assert caught.__cause__ is None and caught.__context__ is not None
    assert is_provider_error(caught)


def _linked(depth: int, last: BaseException) -> BaseException:
    """``last`` as the ``depth``-th exception of a cause chain (the outermost is the first)."""
    exc = last
    for i in range(depth - 1):
        exc = _caused(RuntimeError(f"wrapper {i}"), exc)
    return exc


def test_the_cause_chain_is_read_at_most_20_exceptions_deep():
    assert is_provider_error(_linked(20, openai.APIConnectionError(request=_request())))
    assert not is_provider_error(_linked(21, openai.APIConnectionError(request=_request())))


def test_a_cause_chain_that_loops_is_read_once_around():
    first, second = ValueError("a"), KeyError("b")
    first.__cause__, second.__cause__ = second, first
    assert not is_provider_error(first)
    assert classify_error(first) == {"type": "ValueError", "message": "a"}


def test_a_context_overflow_is_a_finding_never_a_provider_error():
    rejected = _status_error(openai.BadRequestError, 400, "This model's maximum context length is 128000 tokens")
    assert not is_provider_error(rejected)
    assert not is_provider_error(_caused(ContextOverflowError("too long"), openai.APIConnectionError(request=_request())))


def test_a_bad_request_that_is_not_about_context_length_is_a_provider_error():
    assert is_provider_error(_status_error(openai.BadRequestError, 400, "Invalid value for 'temperature'"))


def test_an_unreadable_answer_raised_inside_a_live_model_call_is_a_provider_error():
    exc = _raised_through([(TOOL, "run_tool"), (MODEL_CALL, "_generate")], IndexError("list index out of range"))
    assert is_provider_error(exc)


def test_a_model_call_file_is_recognised_with_windows_separators():
    windows = "C:\\venv\\Lib\\site-packages\\langchain_core\\language_models\\chat_models.py"
    assert is_provider_error(_raised_through([(windows, "_generate")], IndexError("x")))


def test_an_error_raised_outside_any_model_call_is_not_the_providers():
    assert not is_provider_error(_raised_through([(TOOL, "run_tool")], IndexError("x")))
    assert not is_provider_error(IndexError("never raised"))  # no traceback at all


def test_an_error_from_a_simulated_model_under_the_model_call_is_not_the_providers():
    exc = _raised_through([(MODEL_CALL, "_generate", SIMULATED), (TOOL, "_generate", SIMULATED)], IndexError("x"))
    assert not is_provider_error(exc)


def test_a_model_is_simulated_by_what_it_says_not_by_the_file_it_is_defined_in():
    """The capability decides: a model in the reference package that is not simulated is a provider's; a simulated
    model defined anywhere (a user's stand-in) is not."""
    under_reference = _raised_through([(MODEL_CALL, "_generate", LIVE), (REFERENCE_MODEL, "_generate", LIVE)], IndexError("x"))
    assert is_provider_error(under_reference)
    elsewhere = _raised_through([(MODEL_CALL, "_generate", LIVE), (TOOL, "_generate", SIMULATED)], IndexError("x"))
    assert not is_provider_error(elsewhere)
    not_true = _raised_through([(MODEL_CALL, "_generate", _Model("yes"))], IndexError("x"))
    assert is_provider_error(not_true)  # the capability is True itself, not anything truthy


def test_harness_model_code_above_the_model_call_does_not_hide_a_live_call_under_it():
    """Only the frames from the first model call inward say whether the model that failed is simulated."""
    exc = _raised_through(
        [(REFERENCE_MODEL, "drive", SIMULATED), (MODEL_CALL, "_generate", LIVE), (TOOL, "parse")], IndexError("x")
    )
    assert is_provider_error(exc)


def test_a_simulated_model_nested_under_a_second_model_call_is_still_simulated():
    exc = _raised_through(
        [(MODEL_CALL, "invoke", LIVE), (TOOL, "route"), (MODEL_CALL, "_generate", SIMULATED), (REFERENCE_MODEL, "_generate")],
        IndexError("x"),
    )
    assert not is_provider_error(exc)


class _Unreadable(BaseChatModel):
    """A live model whose answer cannot be read: langchain-core meets a response with no choices as an IndexError."""

    @property
    def _llm_type(self) -> str:
        return "unreadable"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN001, ANN202
        raise IndexError("list index out of range")


class _SimulatedUnreadable(_Unreadable):
    simulated: ClassVar[bool] = True


def _invoked(model: BaseChatModel) -> BaseException:
    try:
        model.invoke("hello")
    except BaseException as caught:  # noqa: BLE001
        return caught
    raise AssertionError("nothing was raised")


def test_real_model_calls_are_classified_by_the_models_capability():
    """Through langchain-core's real call path: the same failure is a provider error from a live model, and the
    harness's own (a simulated model's, e.g. the faulty summarizer's) from a simulated one."""
    from harness.suites.faults import FaultySummarizer

    live_error = classify_error(_invoked(_Unreadable()))
    assert live_error["provider_error"]["type"] == "IndexError" and live_error["provider_error"]["model"] == "agent"
    assert "provider_error" not in classify_error(_invoked(_SimulatedUnreadable()))
    faulty = _invoked(FaultySummarizer(fault="raise"))
    assert "injected fault" in str(faulty) and classify_error(faulty) == {"type": "RuntimeError", "message": str(faulty)}


# -- which provider errors the SDK's retries do not cover --------------------------------------


def test_an_answer_the_client_could_not_read_is_an_unread_response():
    assert is_unread_response(_raised_through([(MODEL_CALL, "_generate")], IndexError("list index out of range")))
    assert is_unread_response(_foreign("langchain_openai.chat_models")("no choices"))
    assert is_unread_response(_foreign("groq")("bad json"))


@pytest.mark.parametrize("package", ["openai", "anthropic", "httpx", "httpcore"])
def test_an_sdk_or_transport_error_is_left_to_the_sdks_retries(package):
    assert not is_unread_response(_foreign(package)("HTTP 503"))
    assert not is_unread_response(_caused(_foreign("langchain_openai")("wrapped"), _foreign(package)("HTTP 503")))


def test_an_error_that_is_not_the_providers_is_not_an_unread_response():
    assert not is_unread_response(ValueError("bad tool argument"))
    assert not is_unread_response(_status_error(openai.BadRequestError, 400, "maximum context length is 8192 tokens"))


# -- what the trace records ----------------------------------------------------------------


def test_a_non_provider_error_records_its_type_and_redacted_message_only():
    assert classify_error(ValueError("key sk-abcdefghijkl leaked")) == {
        "type": "ValueError",
        "message": "key [REDACTED] leaked",
    }


def test_the_recorded_message_is_cut_at_2000_characters():
    assert classify_error(ValueError("x" * 2500))["message"] == "x" * 2000


def test_a_rate_limit_records_status_code_model_and_the_sdk_message():
    exc = _rate_limit(body={"code": "rate_limit_exceeded", "message": "slow down"}, message="Rate limited sk-abcdefghijkl")
    assert classify_error(exc) == {
        "type": "RateLimitError",
        "message": "Rate limited [REDACTED]",
        "provider_error": {
            "type": "RateLimitError",
            "status": 429,
            "code": "rate_limit_exceeded",
            "model": "agent",
            "message": "Rate limited [REDACTED]",
        },
    }


def test_the_provider_message_is_cut_at_500_characters():
    exc = _status_error(openai.InternalServerError, 500, "y" * 800)
    out = classify_error(exc)
    assert out["provider_error"]["message"] == "y" * 500
    assert out["message"] == "y" * 800


def test_a_wrapped_provider_error_names_the_sdk_exception_with_the_wrappers_status_and_body():
    sdk = openai.APIConnectionError(request=_request())
    wrapper = _foreign("langchain_openai")("upstream 502")
    wrapper.status_code = 502
    wrapper.body = {"code": 1234}
    exc = _caused(RuntimeError("agent failed"), _caused(wrapper, sdk))
    out = classify_error(exc)
    assert out["type"] == "RuntimeError"
    assert out["provider_error"] == {
        "type": "APIConnectionError",
        "status": 502,
        "code": 1234,
        "model": "agent",
        "message": "Connection error.",
    }


def test_the_first_status_and_body_in_the_chain_win():
    inner = _status_error(openai.InternalServerError, 500, "inner", body={"code": "inner_code"})
    outer = _status_error(openai.APIStatusError, 503, "outer", body={"code": "outer_code"})
    out = classify_error(_caused(outer, inner))["provider_error"]
    assert (out["status"], out["code"]) == (503, "outer_code")


def test_an_empty_status_or_body_is_passed_over_for_the_next_one_in_the_chain():
    inner = _status_error(openai.InternalServerError, 500, "inner", body={"code": "inner_code"})
    outer = _foreign("langchain_openai")("outer")
    outer.status_code = 0
    outer.body = {}
    out = classify_error(_caused(outer, inner))["provider_error"]
    assert (out["status"], out["code"]) == (500, "inner_code")


def test_the_innermost_sdk_exception_is_named():
    inner = openai.APITimeoutError(request=_request())
    outer = _status_error(openai.InternalServerError, 500, "server gave up")
    out = classify_error(_caused(outer, inner))["provider_error"]
    assert out["type"] == "APITimeoutError"
    assert out["message"] == "Request timed out."
    assert out["status"] == 500


@pytest.mark.parametrize("package", ["anthropic", "google", "groq", "mistralai"])
def test_every_sdk_package_is_named_over_the_langchain_wrapper(package):
    sdk = _foreign(f"{package}.errors", "Overloaded")("overloaded")
    out = classify_error(_caused(_foreign("langchain_core.x", "Wrapper")("w"), sdk))
    assert out["provider_error"]["type"] == "Overloaded"


def test_without_an_sdk_exception_the_outermost_provider_exception_is_named():
    inner = _foreign("httpcore", "ReadError")("reset")
    outer = _foreign("httpx", "ReadError2")("reset by peer")
    out = classify_error(_caused(RuntimeError("agent failed"), _caused(outer, inner)))
    assert out["provider_error"]["type"] == "ReadError2"
    assert out["provider_error"]["message"] == "reset by peer"
    assert out["provider_error"]["status"] is None and out["provider_error"]["code"] is None


def test_an_unreadable_answer_names_the_exception_raised_in_the_model_call():
    inner = _raised_through([(MODEL_CALL, "_generate")], IndexError("list index out of range"))
    out = classify_error(_caused(RuntimeError("agent failed"), inner))
    assert out["provider_error"]["type"] == "IndexError"
    assert out["provider_error"]["message"] == "list index out of range"


@pytest.mark.parametrize("body", ["an HTML error page", ["code"], {"code": {"nested": 1}}, {"code": None}, {"message": "x"}])
def test_a_code_is_recorded_only_when_the_body_is_a_mapping_with_a_text_or_number_code(body):
    exc = _status_error(openai.InternalServerError, 500, "oops", body=body)
    assert classify_error(exc)["provider_error"]["code"] is None


@pytest.mark.parametrize("frame", ["_create_summary", "_acreate_summary"])
def test_an_error_under_the_summary_call_is_the_summarizers(frame):
    exc = _raised_through([(TOOL, frame)], _status_error(openai.InternalServerError, 500, "oops"))
    assert classify_error(exc)["provider_error"]["model"] == "summarizer"


def test_a_summary_frame_in_a_cause_makes_the_error_the_summarizers():
    inner = _raised_through([(TOOL, "_acreate_summary")], openai.APIConnectionError(request=_request()))
    out = classify_error(_caused(RuntimeError("agent stopped"), inner))
    assert out["provider_error"]["model"] == "summarizer"


def test_an_error_under_other_frames_is_the_agents():
    exc = _raised_through([(TOOL, "create_summary"), (TOOL, "_create_summary_x")], openai.APIConnectionError(request=_request()))
    assert classify_error(exc)["provider_error"]["model"] == "agent"


def test_a_retry_after_not_waited_is_recorded_as_the_errors_note(deadline, clock):
    deadline(1080.0)
    try:
        retry_after_wait(_rate_limit({"retry-after": "300"}))
    except RetryAfterNotWaited as exc:
        out = classify_error(exc)
    note = "Retry-After 300 s exceeds the remaining case budget 80 s; not waited"
    assert out["type"] == "RetryAfterNotWaited"
    assert out["provider_error"]["type"] == "RateLimitError"
    assert out["provider_error"]["status"] == 429
    assert out["provider_error"]["note"] == note
    assert error_cause(out) == f"agent: HTTP 429 RateLimitError ({note})"


def test_a_provider_error_without_a_note_has_no_note_key():
    assert "note" not in classify_error(_rate_limit())["provider_error"]


# -- the one-line cause in reports ----------------------------------------------------------


def test_the_cause_line_names_model_status_and_type():
    error = {"provider_error": {"model": "agent", "status": 503, "type": "InternalServerError"}}
    assert error_cause(error) == "agent: HTTP 503 InternalServerError"
    error = {"provider_error": {"model": "summarizer", "status": None, "type": "APITimeoutError", "note": ""}}
    assert error_cause(error) == "summarizer: APITimeoutError"


def test_an_error_that_is_not_the_providers_has_no_cause_line():
    assert error_cause(None) == ""
    assert error_cause({}) == ""
    assert error_cause({"type": "ValueError", "message": "x"}) == ""


# -- long Retry-After waits -----------------------------------------------------------------


def test_a_retry_after_the_sdk_waits_itself_is_not_waited_here(deadline, clock):
    deadline(10_000.0)
    assert retry_after_wait(_rate_limit({"retry-after": "120"})) is None  # the cap itself: the SDK waits
    assert retry_after_wait(_rate_limit({"retry-after": "5"})) is None
    assert retry_after_wait(_rate_limit()) is None  # no header at all


def test_anything_but_a_rate_limit_is_not_waited(deadline, clock):
    deadline(10_000.0)
    assert retry_after_wait(ValueError("retry-after: 300")) is None
    exc = _status_error(openai.InternalServerError, 503, "busy")
    exc.response.headers["retry-after"] = "300"
    assert retry_after_wait(exc) is None


def test_a_retry_after_above_the_cap_that_fits_the_budget_is_waited(deadline, clock):
    deadline(1000.0 + 300.5)
    wait = retry_after_wait(_rate_limit({"retry-after": "300"}))
    assert wait == 300.0 and isinstance(wait, float)
    assert retry_after_wait(_rate_limit({"retry-after": "121"})) == 121.0


def test_a_retry_after_in_milliseconds_is_read_as_the_sdk_reads_it(deadline, clock):
    deadline(2000.0)
    assert retry_after_wait(_rate_limit({"retry-after-ms": "250000"})) == 250.0


def test_a_rate_limit_wrapped_by_langchain_is_still_waited(deadline, clock):
    deadline(2000.0)
    exc = _caused(_foreign("langchain_openai")("wrapped"), _rate_limit({"retry-after": "200"}))
    assert retry_after_wait(exc) == 200.0


def test_a_wait_as_long_as_the_budget_left_is_not_waited(deadline, clock):
    deadline(1300.0)
    exc = _rate_limit({"retry-after": "300"})
    with pytest.raises(RetryAfterNotWaited) as raised:
        retry_after_wait(exc)
    assert str(raised.value) == "Retry-After 300 s exceeds the remaining case budget 300 s; not waited"
    assert raised.value.__cause__ is exc


def test_a_spent_budget_is_reported_as_zero_seconds_left(deadline, clock):
    deadline(900.0)
    with pytest.raises(RetryAfterNotWaited, match=r"^Retry-After 150 s exceeds the remaining case budget 0 s; not waited$"):
        retry_after_wait(_rate_limit({"retry-after": "150"}))


def test_without_a_case_budget_a_long_retry_after_is_not_waited(deadline):
    deadline(None)
    exc = _rate_limit({"retry-after": "600"})
    with pytest.raises(RetryAfterNotWaited) as raised:
        retry_after_wait(exc)
    assert str(raised.value) == (
        "Retry-After 600 s is above the provider client's 120 s cap and no case budget bounds a wait; not waited"
    )
    assert raised.value.__cause__ is exc


@pytest.mark.parametrize("missing", ["MAX_RETRY_AFTER_DELAY", "BaseClient._parse_retry_after_header"])
def test_an_sdk_without_a_retry_after_cap_or_parser_is_left_to_wait_itself(monkeypatch, deadline, missing):
    from openai import _base_client as sdk

    owner, _, name = missing.rpartition(".")
    monkeypatch.delattr(getattr(sdk, owner) if owner else sdk, name)
    deadline(None)
    assert retry_after_wait(_rate_limit({"retry-after": "600"})) is None
