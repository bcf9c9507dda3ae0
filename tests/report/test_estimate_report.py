"""The estimate eval's table (`harness.analysis.trigger_share`) and its run-report section
(`harness.report.estimate_report`): one line per estimate row, with the exact count each used, nothing for other rows."""

from harness.analysis.trigger_share import estimate_table
from harness.report._document import Document
from harness.report.estimate_report import add_estimate_section
from tests._rows import full_row as row


def _estimate_row(case: str, ratio: float, share: float | None, outcome: str, model: str = "reference-agent") -> dict:
    return row(
        eval="estimate",
        case_id=f"estimate-{case}",
        agent_model=model,
        outcome=outcome,
        config={"trigger": [["fraction", 0.85]], "window": 16000},
        scores={
            "estimate_ratio": ratio,
            "trigger_share_exact": share,
            "estimate_exact_tokens": 20000,
            "estimate_approx_tokens": int(20000 * ratio),
        },
    )


def test_the_table_has_one_line_per_estimate_row_with_its_count_and_leaves_out_errors_and_other_evals():
    rows = [
        _estimate_row("zh", 0.46, 1.995, "KNOWN_UPSTREAM"),
        _estimate_row("prose", 1.55, None, "FAIL", model="anthropic:claude-sonnet-4-6"),
        _estimate_row("ja", 0.42, 2.2, "ERROR"),
        row(eval="needle", case_id="needle-h24k-d000"),
    ]
    table = estimate_table(rows)
    assert list(table["content"]) == ["zh", "prose"]
    zh, prose = table.to_dict("records")
    assert (zh["fired at (exact)"], zh["declared"], zh["exact count"]) == ("199.5%", "85.0%", "exact o200k_base")
    assert (prose["fired at (exact)"], prose["exact count"], prose["outcome"]) == ("none", "simulated", "FAIL")


def test_the_section_names_the_upstream_issue_and_is_absent_without_estimate_rows():
    doc = Document("Run")
    add_estimate_section(doc, [row(eval="needle")])
    assert "Token estimates" not in doc.markdown()
    add_estimate_section(doc, [_estimate_row("zh", 0.46, 1.995, "KNOWN_UPSTREAM")])
    text = doc.markdown()
    assert "Token estimates and the trigger" in text and "langchain/issues/39754" in text and "199.5%" in text
