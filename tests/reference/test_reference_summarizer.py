from langchain_core.messages import HumanMessage

from harness.reference import ReferenceSummarizerModel
from harness.reference.summarizer import summarize
from tests._messages import QUESTION, TASK, call, summary_message, summary_prompt

HISTORY = [
    HumanMessage(TASK),
    *call("fetch_document", {"doc_id": "DOC-001"}, "DOC-001: memo\nbody", "c1"),
    *call("fetch_document", {"doc_id": "DOC-002"}, "DOC-002: letter\nbody", "c2"),
]


def test_follows_the_default_prompt_headings_and_quotes_the_request():
    text = summarize(summary_prompt(HISTORY), detail_loss=0.0)
    for heading in ("## SESSION INTENT", "## SUMMARY", "## ARTIFACTS", "## NEXT STEPS"):
        assert heading in text
    assert "> 1. Fetch document DOC-001 with fetch_document." in text
    assert "- Step 1 done: fetch_document DOC-001" in text and "- Step 2 done: fetch_document DOC-002" in text
    assert "Continue with step 3. Remaining steps:\n> 3. Read /ledgers/a.md with read_file." in text


def test_a_prompt_without_headings_gets_no_intent():
    text = summarize(summary_prompt(HISTORY, "Summarize this conversation briefly:\n{messages}"), detail_loss=0.0)
    assert text.startswith("Summary of earlier work:") and "Original request" not in text and "Step 1 done" in text


def test_custom_headings_are_filled_by_kind():
    prompt = (
        "Write these sections.\nCOMPLETED WORK:\nDECISIONS AND CONSTRAINTS:\nREMAINING PLAN:\n<messages>\n{messages}\n</messages>"
    )
    text = summarize(summary_prompt(HISTORY, prompt), detail_loss=0.0)
    assert "## COMPLETED WORK\n- Step 1 done" in text and "## DECISIONS AND CONSTRAINTS\nNone" in text
    assert (
        "## REMAINING PLAN\nContinue with step 3. Remaining steps:\n> 3. Read" in text
        and '> 5. Reply with "TASK COMPLETE"' in text
    )


def test_an_earlier_summary_is_carried_forward():
    first = summarize(summary_prompt(HISTORY), detail_loss=0.0)
    later = [summary_message(first), *call("read_file", {"file_path": "/ledgers/a.md"}, "# Ledger", "c3"), HumanMessage(QUESTION)]
    text = summarize(summary_prompt(later), detail_loss=0.0)
    assert "> 1. Fetch document DOC-001" in text and "Step 1 done" in text and "Step 3 done: read_file /ledgers/a.md" in text
    assert "Latest request:\n> Question: What is the access code for the north vault?" in text


def test_loss_is_seeded_same_seed_same_summary_other_seeds_differ():
    prompt = summary_prompt(HISTORY + call("fetch_document", {"doc_id": "DOC-003"}, "x", "c9"))
    outputs = {seed: summarize(prompt, seed=seed, detail_loss=0.5) for seed in range(8)}
    assert summarize(prompt, seed=3, detail_loss=0.5) == outputs[3]
    assert len(set(outputs.values())) > 1


def test_intent_loss_drops_the_request():
    text = summarize(summary_prompt(HISTORY), intent_loss=1.0)
    assert "## SESSION INTENT\nNone" in text


def test_the_model_wraps_the_function():
    model = ReferenceSummarizerModel(seed=4, detail_loss=0.0)
    assert model.invoke(summary_prompt(HISTORY)).text == summarize(summary_prompt(HISTORY), seed=4, detail_loss=0.0)


ANCHORED = (
    "Treat the earlier summary as the current state and update it. Keep its items word for word.\n"
    "## SESSION INTENT\n## PROGRESS LOG\n<messages>\n{messages}\n</messages>"
)


def _chained(prompt):
    first = summarize(summary_prompt(HISTORY, prompt), detail_loss=0.0)
    return summary_prompt([summary_message(first), *call("read_file", {"file_path": "/ledgers/a.md"}, "# Ledger", "c3")], prompt)


def test_an_anchored_prompt_never_loses_earlier_progress():
    for seed in range(10):
        text = summarize(_chained(ANCHORED), seed=seed, detail_loss=0.9)
        assert "Step 1 done" in text and "Step 2 done" in text


def test_other_prompts_can_lose_earlier_progress_again():
    prompt = "## SESSION INTENT\n## SUMMARY\n<messages>\n{messages}\n</messages>"
    texts = [summarize(_chained(prompt), seed=seed, detail_loss=0.9) for seed in range(10)]
    assert any("Step 1 done" not in t for t in texts)
