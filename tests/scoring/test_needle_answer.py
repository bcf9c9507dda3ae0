"""When a reply counts as carrying the needle's answer."""

from __future__ import annotations

import pytest

from harness.scoring.scorers import carries_answer


@pytest.mark.parametrize(
    "reply",
    ["TANGO-7", "The code is TANGO-7.", "the code is tango-7", "code: (Tango-7)", "TANGO-7\n", "'TANGO-7' it is"],
)
def test_the_answer_as_a_whole_token_in_any_case_counts(reply):
    assert carries_answer(reply, "TANGO-7")


@pytest.mark.parametrize(
    "reply",
    ["TANGO-71", "TANGO-7a", "XTANGO-7", "9TANGO-7", "TANGO-", "TANGO 7", "", "I could not find the code"],
)
def test_the_answer_followed_or_preceded_by_another_letter_or_digit_is_another_answer(reply):
    assert not carries_answer(reply, "TANGO-7")


def test_the_answer_is_matched_literally_not_as_a_pattern():
    assert carries_answer("the rate is 4.5%", "4.5%")
    assert not carries_answer("the rate is 415%", "4.5%")  # "." is not any character
