"""The one reading of an answer (`harness.answers`): values, decisions and paths as models write them.

The cases quoted from issue 31 were read wrongly by the readers before this module (`task_format.extract_value`,
`parse_decision_answer`): each is a test here."""

import pytest

from harness.answers import (
    judge_decision,
    judge_paths,
    judge_value,
    normal,
    read_paths,
    read_value,
    same_value,
    says_none_rejected,
    value_pattern,
)

DB = "billing database"
CHAIN = ["mysql-8", "pg-16"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("pg-16", "pg-16"),
        ("`pg-16`.", "pg-16"),
        ("**pg-16**", "pg-16"),
        ('{"value": "pg-16"}', "pg-16"),
        ("Answer: PG-16", "pg-16"),
        ("The billing database is pg-16.", "pg-16"),
        ("The billing database is mysql-8. Later: the billing database is pg-16.", "pg-16"),
        ("pg-16, not mysql-8", "pg-16"),  # the stale value negated: compactbench's trap
        ("pg-16 (previously mysql-8)", "pg-16"),
        ("It was changed from mysql-8 to pg-16.", "pg-16"),
        ("mysql-8 was replaced by pg-16", "pg-16"),
        ("The old value was mysql-8; the current one is pg-16.", "pg-16"),
        ("We no longer use mysql-8; it is pg-16 now", "pg-16"),
        ("The summary says mysql-8, but the later update says pg-16. So the answer is pg-16.", "pg-16"),
        ("I believe it's pg-16, though I'm not fully certain.", "pg-16"),  # a hedge that commits
        ("not mysql-8", None),  # names nothing it does not set aside
        ("either mysql-8 or pg-16", None),  # several candidates
        ("It could be pg-16 or mysql-8.", None),
        ("I don't know the billing database.", None),
        ("pg-160", "pg-160"),  # a longer code is another code
        ("pg-16-b", "pg-16-b"),
    ],
)
def test_a_value_answer_is_read_as_the_value_it_commits_to(reply, expected):
    assert read_value(reply, DB, CHAIN).value == expected


def test_a_near_miss_is_read_as_itself_never_as_the_value_it_resembles():
    verdict = judge_value("The access code is 4457-KESTRL.", "access code for the north vault", "4457-KESTREL")
    assert (verdict.correct, verdict.answered) == (False, "4457-KESTRL")
    assert not judge_value("It is 4457-KESTREL or 4457-KESTRL.", "access code", "4457-KESTREL").correct


@pytest.mark.parametrize(
    ("reply", "value", "same"),
    [
        ("487 kg", "487-kg", True),
        ("487kg", "487-kg", True),
        ("487 kilograms", "487-kg", True),
        ("487", "487-kg", True),  # the unit the question implies, left out
        ("487 lb", "487-kg", False),  # another unit is another value
        ("19:00", "19-00", True),
        ("4457 kestrel", "4457-KESTREL", True),
        ("503 rows", "503-rows", True),
        ("504 rows", "503-rows", False),
    ],
)
def test_units_separators_and_case_are_read_as_the_value(reply, value, same):
    assert bool(value_pattern(value).search(f"It is {reply}.")) is same
    assert judge_value(f"It is {reply}.", "the limit", value).correct is same


def test_normal_forms_compare_values_as_written():
    assert normal("487 Kilograms") == normal("487-kg") == "487kg"
    assert same_value("19:00", "19-00") and not same_value("19-01", "19-00") and not same_value(None, "x")


def test_a_stale_value_committed_to_is_stale():
    verdict = judge_value("mysql-8", DB, "pg-16", ["mysql-8"])
    assert (verdict.correct, verdict.stale) == (False, True)


def test_a_reference_questions_entity_is_context_never_the_answer():
    reply = "The primary site is RIGEL-5, and its access code is 4068-BASALT."
    assert judge_value(reply, "access code of the primary site", "4068-BASALT", ignore=["RIGEL-5"]).correct


# -- decisions: issue 31's cases -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "We went with SQLite. Postgres was rejected because of its license.",
        "postgres was rejected; sqlite",
        "sqlite; rejected: postgres",
        "Decided: sqlite. Rejected: postgres (licence).",
        "sqlite was chosen over postgres",
        '{"decided": "sqlite", "rejected": ["postgres"]}',
        "| Decided | sqlite |\n| Rejected | postgres |",
        "- **Decided:** sqlite\n- **Rejected:** postgres",
    ],
)
def test_a_decision_in_a_models_own_words_is_read(reply):
    verdict = judge_decision(reply, "database", "sqlite", ["postgres"])
    assert verdict.correct, verdict.how


def test_rejected_none_fails_the_decision_when_an_earlier_choice_was_rejected():
    verdict = judge_decision("sqlite; rejected: none", "database", "sqlite", ["postgres"])
    assert not verdict.correct and "missing: postgres" in verdict.how
    assert says_none_rejected("sqlite; rejected: none")


def test_a_decision_with_no_earlier_choice_needs_no_rejected_value_and_refuses_an_invented_one():
    assert judge_decision("sqlite; rejected: none", "database", "sqlite", []).correct
    invented = judge_decision("sqlite; rejected: mysql", "database", "sqlite", [])
    assert not invented.correct and "not an earlier choice: mysql" in invented.how


def test_swapped_roles_fail_the_decision():
    verdict = judge_decision("postgres; rejected: sqlite", "database", "sqlite", ["postgres"])
    assert (verdict.correct, verdict.stale) == (False, True)


# -- paths ------------------------------------------------------------------------------------------------------------


def test_paths_named_as_read_or_unchanged_are_not_named_as_changed():
    reading = read_paths("I created /notes/a.md and edited /reports/log.md. I also read /ledgers/ledger_01.md.")
    assert reading.paths == ("/notes/a.md", "/reports/log.md") and reading.excluded == ("/ledgers/ledger_01.md",)
    listed = read_paths("Created or changed:\n- /notes/a.md\n- /reports/r.md\n\nRead only:\n- /ledgers/l.md")
    assert listed.paths == ("/notes/a.md", "/reports/r.md")
    assert read_paths("I wrote /notes/a.md. /ledgers/l.md was read but not changed.").paths == ("/notes/a.md",)
    assert read_paths("| /notes/a.md | written |\n| /ledgers/l.md | read |").paths == ("/notes/a.md",)


def test_paths_are_read_whole_and_once():
    assert read_paths("/reports/a.md\n- /notes/b.md.\n/reports/a.md and x/y and /c").paths == (
        "/reports/a.md",
        "/notes/b.md",
        "/c",
    )
    assert read_paths("none").paths == ()


def test_an_artifact_answer_is_right_only_with_exactly_the_changed_files():
    assert judge_paths("/notes/a.md\n/notes/b.md", ["/notes/b.md", "/notes/a.md"]).correct
    assert not judge_paths("/notes/a.md", ["/notes/a.md", "/notes/b.md"]).correct
    assert not judge_paths("/notes/a.md\n/notes/b.md\n/notes/c.md", ["/notes/a.md", "/notes/b.md"]).correct


# -- forms the second labelled set (holdout.jsonl) showed, each read as its rule says -----------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("pg-16, but I may be wrong: it could also be mysql-8.", None),  # a second candidate offered
        ("pg-16 (or mysql-8, if the migration was rolled back)", None),
        ("pg-16 (though it may be that instead: mysql-8)", None),
        ("It went from mysql-8 to pg-16, but the former is what still runs.", None),  # the former: mysql-8 again
        ("Between mysql-8 and pg-16 we settled on the latter.", "pg-16"),
        ("**Final:** ~~mysql-8~~ pg-16", "pg-16"),  # struck through
        ("<billing_database>pg-16</billing_database>", "pg-16"),
        ("pg-16¹\n\n¹ mysql-8 was the earlier one.", "pg-16"),  # a footnote
        ("I recommended mysql-8 at first.\n\nThen it switched to pg-16, so mysql-8 is out.", "pg-16"),
    ],
)
def test_second_guesses_references_back_and_markup_are_read(reply, expected):
    assert read_value(reply, DB, CHAIN).value == expected


def test_a_range_is_not_one_of_its_ends():
    assert not judge_value("15–20 minutes", "maximum wait", "15-minutes").correct
    assert not judge_value("15 to 20 minutes", "maximum wait", "15-minutes").correct
    assert judge_value("At most 15 minutes.", "maximum wait", "15-minutes").correct


def test_a_decision_in_yaml_in_another_language_or_by_both_earlier_choices():
    assert judge_decision("decided: xml-ubl\nrejected:\n  - tiff-g4\n", "format", "xml-ubl", ["tiff-g4"]).correct
    assert judge_decision("Decidido: xml-ubl; rechazado: tiff-g4", "format", "xml-ubl", ["tiff-g4"]).correct
    both = "We used rabbitmq, then kafka-3, then nats-2.\n\nDecided: nats-2. Rejected: both earlier choices."
    assert judge_decision(both, "broker", "nats-2", ["rabbitmq", "kafka-3"]).correct


@pytest.mark.parametrize(
    "reply",
    [
        "```\n/\n├── notes/\n│   ├── a.md\n│   └── b.md\n└── reports/\n    └── log.md\n```",  # a tree
        "notes/a.md\n./notes/b.md\nreports/log.md",  # relative to the root
        "/notes/{a,b}.md\n/reports/log.md",  # a brace list
        "created:\n  - /notes/a.md\n  - /notes/b.md\nedited:\n  - /reports/log.md\nread_only:\n  - /ledgers/l.md",
        '<file action="created">/notes/a.md</file>\n<file action="created">/notes/b.md</file>\n'
        '<file action="edited">/reports/log.md</file>',
    ],
)
def test_paths_in_trees_relative_braces_yaml_and_xml(reply):
    assert read_paths(reply).paths == ("/notes/a.md", "/notes/b.md", "/reports/log.md")


def test_a_numbered_range_of_paths_is_written_out_and_a_bare_file_name_is_no_path():
    assert read_paths("/notes/ledger_01.md through /notes/ledger_03.md").paths == tuple(
        f"/notes/ledger_0{n}.md" for n in (1, 2, 3)
    )
    assert read_paths("ledger_01.md").paths == ()
    assert read_paths("I read and/or skimmed the input/output logs").paths == ()


@pytest.mark.parametrize(
    "reply",
    [
        "Was it 4457-KESTREL? I cannot recall.",  # asked, not answered
        "4457-KESTREL is what the old summary said, but that was superseded",
        "Neither 4457-KESTREL nor 7959-CEDAR",
        "The code was previously thought to be 4457-KESTREL, but is unknown now.",
    ],
)
def test_a_value_asked_about_or_set_aside_by_the_words_after_it_is_not_the_answer(reply):
    assert not judge_value(reply, "access code for the north vault", "4457-KESTREL", others=["7959-CEDAR"]).correct


def test_a_choice_named_as_not_rejected_is_not_rejected_and_files_not_yet_written_are_not_changed():
    assert not judge_decision("sqlite (postgres was not rejected)", "database", "sqlite", ["postgres"]).correct
    assert read_paths("I will create /notes/a.md and /notes/b.md next").paths == ()
    assert read_paths("Planned: /notes/a.md, /notes/b.md").paths == ()
    assert read_paths("I created /notes/a.md; next I will write /notes/c.md").paths == ("/notes/a.md",)
