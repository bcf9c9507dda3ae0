"""Token-counter skew: the approximate count deepagents triggers on, against an exact count (docs/evals.md, `tokens`).

Offline, on a numeric JSON audit under the `tokens` preset (40k window, trigger at 90 %) the true size passes the
window while the approximate count is still under the trigger: the eval must find those calls, and none on prose.
Live, deepagents also triggers on the provider's reported size and the skew's direction is the provider tokenizer's:
the evals assert only that every agent call carries usage, the report uses it, and the numeric case still compacts.
"""

import pytest

from harness.analysis.token_skew import skew
from harness.suites.registry import SUITES

pytestmark = pytest.mark.tokens


@pytest.fixture(scope="module")
def skews(eval_session):
    numeric, prose = (eval_session.run_eval("tokens", case) for case in SUITES["tokens"].case_ids)
    eval_session.token_skew([numeric.trace, prose.trace])  # token_skew.md in the session's run directory
    return {"numeric": (numeric, skew([numeric.trace])), "prose": (prose, skew([prose.trace]))}


def _live(eval_session) -> bool:  # noqa: ANN001
    return bool(eval_session.models.endpoints)


@pytest.mark.langsmith
def test_skew_report_names_its_source_and_ratios_by_content_type(skews, eval_session):
    for case, result in skews.values():
        assert result["source"] and not result["calls"].empty
        assert (result["calls"]["source"] != "").all()
        if _live(eval_session):
            answered = [c for c in case.trace.agent_calls() if not c.get("error")]
            assert answered and all(c.get("usage") for c in answered), "a live provider reported no usage"
            assert (result["calls"]["source"] == "provider usage").all() and (result["calls"]["ratio"] > 0).all()
    if _live(eval_session):
        return  # the direction of the skew is the provider tokenizer's, not a property of deepagents
    types = skews["numeric"][1]["types"].set_index("type")
    worst = types.loc[[t for t in types.index if t in ("numbers / json", "ids / hex")], "worst_ratio"].min()
    assert worst < 0.8  # the counter underestimates numbers and ids
    prose = skews["prose"][1]["types"].set_index("type")
    assert prose.loc["prose", "mean_ratio"] > 1.0  # and overestimates prose


@pytest.mark.langsmith
def test_late_compaction_is_found_where_the_true_size_passes_the_window_first(skews, eval_session):
    numeric_result = skews["numeric"][1]
    if _live(eval_session):
        skews["numeric"][0].require("compacted")  # deepagents triggered; late calls (if any) are in token_skew.md
        return
    assert not numeric_result["late"].empty, "no call passed the window before the trigger: the case did not stress the counter"
    assert (numeric_result["late"]["exact"] > 40_000).all() and (numeric_result["late"]["approx"] < 36_000).all()
    assert skews["prose"][1]["late"].empty
