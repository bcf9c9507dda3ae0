"""Wrong answers a review of the readers found read as right (2026-11-27), each now read as its rule says, and the
right answers beside them that the fixes must not break."""

import pytest

from harness.answers import judge_decision, judge_paths, judge_value

CODE = ("access code for the north vault", "4457-KESTREL")


@pytest.mark.parametrize(
    ("key", "expected", "reply"),
    [
        (*CODE, "The access code isn't 4457-KESTREL; I don't know the current one."),  # contractions
        (*CODE, "It can't be 4457-KESTREL, that one expired."),
        (*CODE, "4457-KESTREL? No. I don't have it."),  # asked, then refused
        (*CODE, "Wrong: 4457-KESTREL."),
        (*CODE, "4457-KESTREL — no, that's the old one. I can't recall the new code."),
        (*CODE, "The access code is 4457-KESTREL, replaced by 9999-WRONG."),  # a later correction
        (*CODE, "The access code is 4457-KESTREL, later moved to 9999-WRONG."),
        (*CODE, "4457-KESTREL -- scratch that, 9999-WRONG."),
        (*CODE, "Answer: 4457-KESTREL\n\nWait, I misread. The correct code is 9999-WRONG."),
        (*CODE, "4457-KESTREL but it was superseded by 9999-WRONG"),
        ("dock time", "19-00", "The dock time is 19:00, no, 21:00."),
        ("dock time", "19-00", "1900 hrs, moved to 2100 hrs."),
        ("dock time", "19-00", "Dock time: 7 pm. It was moved to 9 pm."),
        ("report format", "csv", "The report format was csv, now it is pdf."),  # a word value the case never stated
        ("limit", "487-kg", "The limit is 487 kg, now 600."),
        ("limit", "487-kg", "The weight is 487,5 kg."),  # a decimal is another value
        ("next step", "reconcile-ledgers", "reconcile-ledgers is done, so next is archive-invoices."),
    ],
)
def test_a_value_negated_corrected_or_replaced_later_is_not_the_answer(key, expected, reply):
    assert not judge_value(reply, key, expected).correct


@pytest.mark.parametrize(
    "reply",
    [
        "It wasn't xml-ubl. Rejected: tiff-g4, pdf-a.",
        "Decision: xml-ubl was proposed but vetoed. tiff-g4 was kept.",
        "The decision was xml-ubl, but now it is json-ld.",
    ],
)
def test_a_decision_negated_vetoed_or_changed_later_is_not_the_decision(reply):
    assert not judge_decision(reply, "archive format", "xml-ubl", ["tiff-g4"]).correct


@pytest.mark.parametrize(
    "reply",
    [
        "I read /notes/a.md and wrote /notes/b.md.",  # the nearest word before a path says what was done to it
        "I read /notes/a.md and /notes/b.md and created nothing.",
        "I still need to create /notes/b.md\n/notes/a.md",
        "I wrote /notes/a.md. I tried to write /notes/b.md but the write failed.",
        "- /notes/a.md\n- /notes/b.md (failed to save)",
    ],
)
def test_a_file_read_planned_or_failed_is_not_a_file_changed(reply):
    assert not judge_paths(reply, ["/notes/a.md", "/notes/b.md"]).correct


def test_the_right_answers_beside_them_still_read_right():
    assert judge_value("The access code 1234-OSPREY was superseded by 4457-KESTREL.", *CODE, ["1234-OSPREY"]).correct
    assert judge_value("I can't be sure, but I think it's 4457-KESTREL.", *CODE).correct
    assert judge_value("Actually, the code is 4457-KESTREL.", *CODE).correct
    assert judge_paths("I created /notes/a.md and /notes/b.md; I read /ledgers/l.md.", ["/notes/a.md", "/notes/b.md"]).correct
