"""--max-tpm: the token bucket every model call of a run waits on (a minute's worth at most, refilled continuously),
driven by a fake clock so each wait is an exact number."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately

from harness.agent.live import TokenBudget


@pytest.fixture
def clock(monkeypatch):
    """`time.monotonic` at a fixed time that only `time.sleep` / `asyncio.sleep` (both recorded) move on."""
    import asyncio

    class Clock:
        now = 500.0
        sleeps: list[float] = []

        def monotonic(self) -> float:
            return self.now

        def sleep(self, seconds: float) -> None:
            self.sleeps.append(seconds)
            self.now += seconds

        async def asleep(self, seconds: float) -> None:
            self.sleep(seconds)

    fake = Clock()
    fake.sleeps = []
    monkeypatch.setattr(time, "monotonic", fake.monotonic)
    monkeypatch.setattr(time, "sleep", fake.sleep)
    monkeypatch.setattr(asyncio, "sleep", fake.asleep)
    return fake


def _run(coro) -> None:
    """Drive a coroutine whose every await completes at once (the fake sleep), without an event loop."""
    with pytest.raises(StopIteration):
        coro.send(None)


def test_a_new_budget_starts_with_a_full_minute_of_tokens(clock):
    budget = TokenBudget(600)
    assert budget.tokens_per_minute == 600.0 and isinstance(budget.tokens_per_minute, float)
    assert budget.waited_s == 0.0 and budget.taken == 0.0
    assert budget._take(600) == 0.0  # the whole bucket, at once
    assert budget.taken == 600.0


def test_a_request_waits_for_the_tokens_it_lacks_at_the_refill_rate(clock):
    budget = TokenBudget(600)  # 10 tokens a second
    assert budget._take(550) == 0.0
    assert budget._take(100) == pytest.approx(5.0)  # 50 left, 50 more at 10/s
    assert budget.taken == 550.0  # a refused request takes nothing
    clock.now += 2.0
    assert budget._take(100) == pytest.approx(3.0)  # 70 now
    clock.now += 3.0
    assert budget._take(100) == 0.0
    assert budget.taken == 650.0
    assert budget._take(1) == pytest.approx(0.1)


def test_time_between_requests_is_counted_once():
    """Two requests at the same instant: the second sees no refill for time the first already counted."""
    import unittest.mock as mock

    with mock.patch.object(time, "monotonic", side_effect=[0.0, 10.0, 10.0]):
        budget = TokenBudget(60)  # 1 token a second; full at 0 s
        assert budget._take(60) == 0.0  # at 10 s: still 60 (capped), now empty
        assert budget._take(5) == pytest.approx(5.0)  # at 10 s again: nothing refilled


def test_the_bucket_never_holds_more_than_a_minute(clock):
    budget = TokenBudget(600)
    assert budget._take(600) == 0.0
    clock.now += 3600.0
    assert budget._take(600) == 0.0
    assert budget._take(60) == pytest.approx(6.0)


def test_a_request_larger_than_the_bucket_waits_only_for_a_full_bucket(clock):
    budget = TokenBudget(600)
    assert budget._take(10**9) == 0.0
    assert budget.taken == 600.0
    assert budget._take(10**9) == pytest.approx(60.0)


def test_acquire_sleeps_until_the_tokens_are_there_and_counts_the_wait(clock):
    budget = TokenBudget(600)
    budget.acquire(600)
    assert clock.sleeps == [] and budget.waited_s == 0.0
    budget.acquire(120)
    assert clock.sleeps == [pytest.approx(12.0)]
    assert budget.waited_s == pytest.approx(12.0)
    assert budget.taken == 720.0
    budget.acquire(30)
    assert budget.waited_s == pytest.approx(15.0)


def test_aacquire_waits_on_the_event_loop_as_acquire_does(clock):
    budget = TokenBudget(600)
    _run(budget.aacquire(600))
    assert clock.sleeps == []
    _run(budget.aacquire(120))
    assert clock.sleeps == [pytest.approx(12.0)]
    assert budget.waited_s == pytest.approx(12.0)
    assert budget.taken == 720.0
    _run(budget.aacquire(30))
    assert budget.waited_s == pytest.approx(15.0)  # every wait counted


@pytest.mark.parametrize("wait_for", ["acquire", "aacquire"])
def test_a_wait_under_a_second_is_still_waited(clock, wait_for):
    budget = TokenBudget(600)
    budget._take(600)
    result = getattr(budget, wait_for)(5)  # 0.5 s at 10 tokens a second
    if wait_for == "aacquire":
        _run(result)
    assert clock.sleeps == [pytest.approx(0.5)]
    assert budget.waited_s == pytest.approx(0.5)
    assert budget.taken == 605.0


def _request(system: bool):
    messages = [HumanMessage("what is in the ledger? " * 20)]
    if system:
        return SimpleNamespace(system_message=SystemMessage("You are careful. " * 10), messages=messages)
    return SimpleNamespace(messages=messages)


@pytest.mark.parametrize("system", [True, False])
def test_the_middleware_takes_each_requests_approximate_size_before_sending_it(clock, system):
    budget = TokenBudget(10**9)
    request = _request(system)
    expected = count_tokens_approximately(([request.system_message] if system else []) + request.messages)
    seen = []
    answer = budget.middleware().wrap_model_call(request, lambda r: seen.append((r, budget.taken)) or "answer")
    assert answer == "answer"
    assert seen == [(request, float(expected))]  # the request itself, sent after its tokens were taken


def test_a_request_without_a_system_message_counts_its_messages_only(clock):
    budget = TokenBudget(10**9)
    request = _request(True)
    request.system_message = None
    budget.middleware().wrap_model_call(request, lambda r: None)
    assert budget.taken == float(count_tokens_approximately(request.messages))


def test_the_async_middleware_takes_the_size_before_awaiting_the_handler(clock):
    budget = TokenBudget(10**9)
    request = _request(True)
    expected = count_tokens_approximately([request.system_message, *request.messages])
    seen = []

    async def handler(r):
        seen.append((r, budget.taken))
        return "answer"

    coro = budget.middleware().awrap_model_call(request, handler)
    with pytest.raises(StopIteration) as stopped:
        coro.send(None)
    assert stopped.value.value == "answer"
    assert seen == [(request, float(expected))]


def test_the_middleware_makes_a_request_wait_when_the_bucket_is_short(clock):
    request = _request(False)
    size = count_tokens_approximately(request.messages)
    budget = TokenBudget(60)  # 1 token a second
    budget._take(60)
    budget.middleware().wrap_model_call(request, lambda r: None)
    assert clock.sleeps == [pytest.approx(float(min(size, 60)))]
