"""The provider SDKs' own retries are counted per case from their log records (`harness.agent.sdk_retries`): the real
OpenAI and Anthropic clients, answered by an in-memory transport that sends 429s first; two cases in flight on one
event loop each count their own; a user's logging shows what it showed before."""

from __future__ import annotations

import asyncio
import logging

import httpx2
import pytest

from harness.agent.sdk_retries import AGENT, OTHER, SUMMARIZER, CaseRetries, count_here, counting, install, role

RETRY_AFTER_MS = "30"  # both SDKs honour retry-after-ms: 0.03 s a retry


def _transport(rate_limited: int, ok_body: dict) -> httpx2.MockTransport:
    """A server that answers the first ``rate_limited`` requests 429 (retry-after-ms) and every later one 200."""
    seen = {"n": 0}

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen["n"] += 1
        if seen["n"] <= rate_limited:
            return httpx2.Response(429, headers={"retry-after-ms": RETRY_AFTER_MS}, json={"error": {"message": "slow down"}})
        return httpx2.Response(200, json=ok_body)

    return httpx2.MockTransport(answer)


def _openai(rate_limited: int):  # noqa: ANN202
    from openai import AsyncOpenAI

    transport = _transport(rate_limited, {"object": "list", "data": []})
    return AsyncOpenAI(api_key="k", base_url="http://test/v1", max_retries=5, http_client=httpx2.AsyncClient(transport=transport))


def _anthropic(rate_limited: int):  # noqa: ANN202
    from anthropic import AsyncAnthropic

    transport = _transport(rate_limited, {"data": [], "has_more": False, "first_id": None, "last_id": None})
    return AsyncAnthropic(api_key="k", base_url="http://test", max_retries=5, http_client=httpx2.AsyncClient(transport=transport))


async def _case(make, rate_limited: int, who: str | None = None) -> CaseRetries:  # noqa: ANN001
    """One case's task: its own count, one request through ``make``'s client, with ``rate_limited`` 429s first."""
    case = CaseRetries()
    count_here(case)
    client = make(rate_limited)
    if who is None:
        await client.models.list()
    else:
        with role(who):
            await client.models.list()
    return case


def test_two_cases_in_flight_on_one_loop_each_count_their_own_retries():
    """Case A meets one 429, case B three, interleaved on one loop (each retry is a sleep, so they alternate); a third
    request outside any case is counted by none."""

    async def main() -> tuple[CaseRetries, CaseRetries, CaseRetries]:
        async def outside() -> None:
            await _openai(2).models.list()

        a, b, _ = await asyncio.gather(
            asyncio.create_task(_case(_openai, 1, AGENT)),
            asyncio.create_task(_case(_openai, 3, SUMMARIZER)),
            asyncio.create_task(outside()),
        )
        c = await asyncio.create_task(_case(_anthropic, 2))
        return a, b, c

    install()
    a, b, c = asyncio.run(main())
    assert a.record()["count"] == 1 and set(a.record()["by_role"]) == {AGENT}
    assert b.record()["count"] == 3 and set(b.record()["by_role"]) == {SUMMARIZER}
    assert c.record() == {"count": 2, "backoff_s": c.record()["backoff_s"], "by_role": {OTHER: c.record()["by_role"][OTHER]}}
    for case, n in ((a, 1), (b, 3), (c, 2)):  # the seconds each SDK said it would wait: its retry-after-ms
        assert case.record()["backoff_s"] == pytest.approx(n * int(RETRY_AFTER_MS) / 1000, abs=1e-6)


def test_retries_on_the_calling_thread_count_for_the_case_of_the_block():
    from openai import OpenAI

    case = CaseRetries()
    client = OpenAI(
        api_key="k",
        base_url="http://test/v1",
        max_retries=5,
        http_client=httpx2.Client(transport=_transport(2, {"object": "list", "data": []})),
    )
    with counting(case):
        client.models.list()
    client.models.list()  # after the block: another 0 for nobody (the transport answers 200 now)
    assert case.record()["count"] == 2


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def user_logging():
    """A handler on the root logger, as a user's ``basicConfig`` adds; the levels put back afterwards."""
    root, openai_logger = logging.getLogger(), logging.getLogger("openai")
    kept, levels = _Kept(), (root.level, openai_logger.level)
    root.addHandler(kept)
    yield kept
    root.removeHandler(kept)
    root.setLevel(levels[0])
    openai_logger.setLevel(levels[1])
    install()  # the counted loggers' levels follow the restored configuration


def test_a_users_logging_shows_what_it_showed_before(user_logging):
    """At the default WARNING the retry records (INFO, which the harness has the SDK write) reach no handler; a user
    who asks for INFO from the openai loggers sees them, as without the harness."""
    root = logging.getLogger()
    root.setLevel(logging.WARNING)
    install()
    sdk = logging.getLogger("openai._base_client")
    assert sdk.isEnabledFor(logging.INFO)  # lowered: the record is written, counted, and not shown
    asyncio.run(_case(_openai, 1))
    assert [r for r in user_logging.records if r.name == "openai._base_client"] == []
    logging.getLogger("openai").setLevel(logging.INFO)  # the user's own choice, made after the harness installed
    counted = asyncio.run(_case(_openai, 1))
    shown = [r.getMessage() for r in user_logging.records if r.name == "openai._base_client"]
    assert counted.record()["count"] == 1 and len(shown) == 1 and shown[0].startswith("Retrying request in 0.03")


def test_install_is_idempotent_and_leaves_a_lower_level_alone(user_logging):
    install()
    install()
    for name in ("openai._base_client", "anthropic._base_client"):
        logger = logging.getLogger(name)
        assert sum(type(f).__name__ == "RetryCounter" for f in logger.filters) == 1
    logging.getLogger().setLevel(logging.DEBUG)  # the user's basicConfig(level=DEBUG): the harness's level steps aside
    install()
    assert logging.getLogger("openai._base_client").level == logging.NOTSET
    assert logging.getLogger("openai._base_client").getEffectiveLevel() == logging.DEBUG


def test_only_models_that_call_a_counted_sdk_are_counted():
    """langchain-openai's and langchain-anthropic's models (and the harness's summarizer wrapper around one) are counted;
    google-genai's client writes no retry record, so a case on it gets no count (None), never a 0 nobody measured."""
    from langchain_anthropic import ChatAnthropic
    from langchain_google_genai import ChatGoogleGenerativeAI
    from langchain_openai import ChatOpenAI

    from harness.agent.live import SummaryOverflowTranslation
    from harness.agent.sdk_retries import counted_model

    openai_model = ChatOpenAI(model="m", api_key="k")
    assert counted_model(openai_model) and counted_model(ChatAnthropic(model="m", api_key="k"))
    assert counted_model(SummaryOverflowTranslation.around(openai_model))
    google = ChatGoogleGenerativeAI(model="gemini-2.5-pro", google_api_key="k")
    assert not counted_model(google) and not counted_model(SummaryOverflowTranslation.around(google))
