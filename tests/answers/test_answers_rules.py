"""`harness.answers` rule by rule: each test needs one rule of the reading (a time's forms, what a value-shaped token
is, a tree's root, a rejected list's items, a heading's mode, each part of a verdict's explanation), so that a reader
changed in that rule fails here, not only somewhere in the labelled corpus."""

import pytest

from harness.answers import (
    clean,
    judge_decision,
    judge_paths,
    judge_value,
    normal,
    read_decision,
    read_paths,
    read_value,
    value_pattern,
)

DB = "billing database"
CHAIN = ["mysql-8", "pg-16"]


# -- times ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "written", "same"),
    [
        ("07-30", "7:30", True),  # an hour under ten with or without its zero
        ("07-30", "07:30", True),
        ("07-30", "7:30 am", True),
        ("07-30", "7:30 pm", False),
        ("12-30", "12:30 pm", True),  # noon is pm, and 12 on the twelve-hour clock
        ("12-30", "12:30 am", False),
        ("00-00", "12 am", True),  # midnight is 12 am
        ("00-00", "12:00 am", True),
        ("19-00", "7 pm", True),  # on the hour: the minutes may be left out
        ("19-30", "7 pm", False),
        ("19-00", "1900 hours", True),
        ("19-00", "19:00 pm", False),  # a 24-hour time with am/pm is not read as one
    ],
)
def test_a_time_is_read_in_the_forms_answers_write_it(value, written, same):
    assert bool(value_pattern(value).search(f"It is {written}.")) is same


# -- what is a value ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "value", "named"),
    [
        ("DOC-007", None, ()),  # a document id of the harness's cases is never a value
        ("See doc-7.", None, ()),
        ("It is Foo-bar.", None, ()),  # words joined by a hyphen, not in capitals
        ("BASALT-OPS", "BASALT-OPS", ("BASALT-OPS",)),  # capitals joined by a hyphen are a value
        ("It is 19:00.", "19:00", ("19:00",)),  # a time of day is a value
        ("T19:00", None, ()),
    ],
)
def test_what_an_unknown_token_is(answer, value, named):
    reading = read_value(answer, "code", [])
    assert (reading.value, reading.named) == (value, named)


def test_the_asked_keys_own_words_are_never_a_value():
    reading = read_value("The zone-4 code is 77-ALPHA.", "zone-4 code", [])
    assert (reading.value, reading.named) == ("77-ALPHA", ("77-ALPHA",))
    decision = read_decision("The zone-4 code is 77-ALPHA.", "zone-4 code", [])
    assert (decision.value, decision.named) == ("77-ALPHA", ("77-ALPHA",))
    assert judge_decision("The zone-4 code is 77-ALPHA. Rejected: none.", "zone-4 code", "77-ALPHA").correct


def test_from_x_to_y_sets_y_forward_whatever_is_between():
    for answer in ("It went from mysql-8 previously to pg-16", "It went FROM mysql-8 previously TO pg-16"):
        reading = read_value(answer, DB, CHAIN)
        assert (reading.value, reading.rejected, reading.named) == ("pg-16", ("mysql-8",), ("mysql-8", "pg-16"))


def test_a_reading_names_what_it_set_aside_and_every_value_named():
    reading = read_value("pg-16, not mysql-8 and not redis-7", DB, CHAIN)
    assert (reading.value, reading.rejected, reading.named) == ("pg-16", ("mysql-8", "redis-7"), ("pg-16", "mysql-8", "redis-7"))
    verdict = judge_value("mysql-8, not pg-16", DB, "pg-16", ["mysql-8"])
    assert (verdict.correct, verdict.stale, verdict.answered, verdict.rejected) == (False, True, "mysql-8", ("pg-16",))


def test_context_values_are_never_the_answer():
    assert judge_value("RIGEL-5", "access code of the primary site", "4068-BASALT", ignore=["RIGEL-5"]).answered is None
    assert judge_decision("RIGEL-5", "access code", "4068-BASALT", ignore=["RIGEL-5"]).answered is None


def test_a_table_whose_rows_lack_the_outer_bars_is_read_under_its_header():
    assert clean("| Decided | Rejected |\n|---|---|\nsqlite | postgres") == "\nDecided: sqlite | Rejected: postgres"
    assert clean("| Decided | Rejected |\n|---|---|\n| sqlite | BOX |") == "\nDecided: sqlite | Rejected: BOX"


# -- decisions ----------------------------------------------------------------------------------------------------------
def test_a_decision_that_says_none_rejected_then_drops_one_contradicts_itself():
    reading = read_decision("Decided sqlite; rejected: none. Postgres was dropped.", "database", ["sqlite", "postgres"])
    assert reading.conflict == "says no choice was rejected, then names one as rejected or dropped"
    verdict = judge_decision("Decided sqlite; rejected: none. Postgres was dropped.", "database", "sqlite", ["postgres"])
    assert (verdict.correct, verdict.stale, verdict.rejected) == (False, False, ())
    assert verdict.how == "decided 'sqlite', but the answer says no choice was rejected, then names one as rejected or dropped"
    assert read_decision("sqlite; rejected: postgres", "database", ["sqlite", "postgres"]).conflict == ""


@pytest.mark.parametrize("none", ["none", "nothing", "no other", "N.", "NA", "n/a"])
def test_every_way_of_writing_none_in_a_rejected_list_is_a_list_of_none(none):
    reading = read_decision(f"sqlite; rejected: {none}. Postgres was dropped.", "database", ["sqlite", "postgres"])
    assert reading.conflict  # the list said none, so the drop after it is a contradiction
    assert reading.rejected == ()


def test_a_second_guess_leaves_a_decision_undecided():
    reading = read_decision("sqlite, but it could also be postgres; rejected: mysql", "database", ["sqlite", "postgres", "mysql"])
    assert reading.value is None


def test_rejected_the_others_adds_them_after_the_values_set_aside_each_once():
    reading = read_decision(
        "mysql was considered. postgres was rejected. We chose sqlite; the others were rejected.",
        "database",
        ["sqlite", "postgres", "mysql"],
    )
    assert (reading.value, reading.rejected) == ("sqlite", ("postgres", "mysql"))
    listed = read_decision("sqlite; rejected: postgres, Postgres", "database", ["sqlite", "postgres"])
    assert listed.rejected == ("postgres",)
    assert listed.named == ("sqlite", "postgres")


def test_a_rejected_list_reads_items_the_case_never_stated_and_skips_prose_before_it():
    assert read_decision("sqlite; rejected: (sadly) redis", "database", ["sqlite"]).rejected == ("redis",)
    prose_first = "We went with sqlite; the idea was rejected once then revived. Rejected: redis."
    assert read_decision(prose_first, "database", ["sqlite"]).rejected == ("redis",)
    prose_after = "Rejected: redis. It was rejected because of cost. We use sqlite."
    assert read_decision(prose_after, "database", ["sqlite"]).rejected == ("redis",)


def test_an_earlier_choice_equal_to_the_decided_one_need_not_be_rejected():
    # sqlite, then postgres, then sqlite again: only postgres is to be named as rejected
    verdict = judge_decision("sqlite; rejected: postgres", "database", "sqlite", ["sqlite", "postgres"])
    assert verdict.correct, verdict.how


def test_a_wrong_decision_is_stale_only_when_it_is_an_earlier_choice():
    assert judge_decision("redis", "database", "sqlite", ["postgres"]).stale is False
    assert judge_decision("postgres", "database", "sqlite", ["postgres"]).stale is True


@pytest.mark.parametrize(
    ("answer", "earlier", "how"),
    [
        ("sqlite; rejected: postgres", ["postgres"], "decided 'sqlite'; rejected postgres"),
        ("sqlite; rejected: none", [], "decided 'sqlite'; rejected none"),
        ("sqlite; rejected: postgres, mysql", ["postgres", "mysql"], "decided 'sqlite'; rejected postgres, mysql"),
        ("sqlite", ["postgres"], "rejected none where the earlier choices were postgres (missing: postgres)"),
        (
            "sqlite; rejected: mysql, redis",
            [],
            "rejected mysql, redis where the earlier choices were none (not an earlier choice: mysql, redis)",
        ),
        (
            "sqlite; rejected: redis",
            ["postgres", "mysql"],
            "rejected redis where the earlier choices were postgres, mysql (missing: postgres, mysql)"
            " (not an earlier choice: redis)",
        ),
    ],
)
def test_a_decisions_explanation_names_what_was_rejected_and_what_was_missing_or_extra(answer, earlier, how):
    assert judge_decision(answer, "database", "sqlite", earlier).how == how


# -- paths ------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "paths"),
    [
        ("/notes/l_50.md to /notes/l_60.md", tuple(f"/notes/l_{n}.md" for n in range(50, 61))),
        ("/notes/l_000.md to /notes/l_100.md", ("/notes/l_000.md", "/notes/l_100.md")),  # 101 files: not a range
        ("/notes/l_01.md to /notes/l_100.md", tuple(f"/notes/l_{n:02d}.md" for n in range(1, 101))),
        ("/notes/l_05.md to /notes/l_02.md", ("/notes/l_05.md", "/notes/l_02.md")),  # backwards: as written
    ],
)
def test_a_numbered_range_of_up_to_a_hundred_files_is_written_out(answer, paths):
    assert read_paths(answer).paths == paths


@pytest.mark.parametrize(
    ("answer", "paths"),
    [
        ("├── a.md\n└── b.md", ("/a.md", "/b.md")),  # no root line: from the root
        ("out/\n├── a.md\n└── sub/\n    └── b.md", ("/out/a.md", "/out/sub/b.md")),
        ("/out/\n├── a.md", ("/out/a.md",)),
        ("Files:\nout/\n├── a.md", ("/out/a.md",)),  # the root on the line before the first branch
        ("BOX/\n└── BOX/\n    └── a.md", ("/BOX/BOX/a.md",)),
        ("out/\n└── a/\n    └── b/\n        └── c.md", ("/out/a/b/c.md",)),
    ],
)
def test_a_tree_is_read_as_the_paths_under_its_root(answer, paths):
    assert read_paths(answer).paths == paths


def test_a_trees_words_after_a_file_say_what_was_done_to_it():
    reading = read_paths("out/\n├── a.md created\n├── b.md read only\n└── c.md unchanged")
    assert (reading.paths, reading.excluded) == (("/out/a.md",), ("/out/b.md", "/out/c.md"))


def test_a_heading_sets_the_mode_of_the_lines_under_it_until_another_heading():
    reading = read_paths("Read only:\n/ledgers/a.md\nSome words\n/notes/c.md\nFiles I created:\n/notes/b.md")
    assert (reading.paths, reading.excluded) == (("/notes/b.md",), ("/ledgers/a.md", "/notes/c.md"))
    assert (
        reading.how
        == "1 path(s) named as created or changed; named as only read, unchanged or not yet written: /ledgers/a.md, /notes/c.md"
    )
    # the path's own words come before the heading's
    assert read_paths("Read only:\n/notes/a.md created").paths == ("/notes/a.md",)


def test_a_paths_label_on_its_line_and_its_sentence_say_what_was_done_to_it():
    assert read_paths("Changed: /n/a.md; read: /l/b.md, /l/c.md").paths == ("/n/a.md",)
    assert read_paths("I wrote notes. I checked these, /l/a.md").paths == ()
    assert read_paths("I wrote notes. I checked these, /l/a.md. Done.").paths == ()
    assert read_paths("I checked these, /l/a.md. Then I wrote the report.").paths == ()


def test_a_path_is_read_whole_and_its_trailing_punctuation_dropped():
    assert read_paths("/notes/BOX and /notes/a.md.,").paths == ("/notes/BOX", "/notes/a.md")


def test_an_artifact_verdict_is_never_stale_and_names_what_was_only_read():
    verdict = judge_paths("Created /n/a.md.\nRead only: /l/b.md", ["/n/a.md"])
    assert (verdict.correct, verdict.stale, verdict.answered, verdict.rejected) == (True, False, ("/n/a.md",), ("/l/b.md",))
    assert judge_paths("/n/x.md", ["/n/a.md"]).stale is False
    assert verdict.how == "1 path(s) named as created or changed; named as only read, unchanged or not yet written: /l/b.md"
    assert read_paths("/n/a.md").how == "1 path(s) named as created or changed"


# -- how a value may be written ------------------------------------------------------------------------------------------
def test_a_value_pattern_reads_the_value_and_nothing_else():
    assert value_pattern("--").search("-- anything --") is None  # no letters or digits: nothing matches
    assert value_pattern("kg").search("no unit here") is None  # a unit alone is not a number with its unit left out
    assert value_pattern("19h00").search("at 19:00")  # 19h00 is a time
    assert value_pattern("24-00").search("24:00 pm")  # not a time of day: read as written
    assert not value_pattern("24-00").search("12 pm")
    assert value_pattern("10-60").search("10:60 pm")
    assert value_pattern("5-x-kg").search("5-x") is None  # the unit may be left out only after a number
    assert value_pattern("1-5-kg").search("It is 1 kg.") is None
    assert value_pattern("1-5-kg").search("1-5 kg")


def test_normal_forms_are_lower_case():
    assert normal("PG-16") == "pg16"


def test_a_value_on_the_line_under_an_answer_heading_is_the_answer():
    assert read_value("Options were mysql-8 and pg-16.\n### Answer\npg-16", DB, CHAIN).value == "pg-16"
    assert read_value("Options were mysql-8 and pg-16.\n### Answer\n\npg-16", DB, CHAIN).value == "pg-16"


def test_the_asked_key_is_found_in_any_case_and_only_where_it_is():
    assert read_value("The ZONE-4 code is 77-ALPHA.", "zone-4 code", []).named == ("77-ALPHA",)
    assert read_value("pg-16", "", CHAIN).value == "pg-16"  # no key: nothing is the key's
    assert read_value("billing database (eu)pg-16", "billing database (eu)", CHAIN).value == "pg-16"  # right after it
    assert read_value("pg-16(eu) database", "(eu) database", CHAIN).value == "pg-16"  # right before it


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("pg-16\nmysql-8 and redis-7 appear in the log", "pg-16"),  # the value the answer opens with
        ("-\npg-16\nmysql-8 and redis-7 appear in the log", "pg-16"),  # a bullet before it is no text
        ("X\npg-16\nmysql-8 and redis-7 appear in the log", None),  # other text before it: it does not open the answer
        ("pg-16 ...\nmysql-8 and redis-7 appear in the log", "pg-16"),  # alone in its clause but for punctuation
        ("pg-16 X\nmysql-8 and redis-7 appear in the log", None),
    ],
)
def test_the_value_an_answer_opens_with_alone_in_its_clause_is_chosen_among_several(answer, value):
    assert read_value(answer, DB, [*CHAIN, "redis-7"]).value == value


def test_a_parenthesis_sets_aside_only_the_value_before_it():
    assert read_value("mysql-8 (old) and pg-16 (current)", DB, CHAIN).value == "pg-16"
    assert read_value("pg-16 (previously mysql-8", DB, CHAIN).value == "pg-16"  # unclosed: up to the other value


def test_a_value_changed_to_from_another_with_a_current_cue_is_marked_current():
    reading = read_value("redis-7 is in the log; it went from mysql-8 now to pg-16", DB, [*CHAIN, "redis-7"])
    assert (reading.value, reading.rejected) == ("pg-16", ("mysql-8",))
    assert reading.how == "'pg-16' marked current or chosen among 2 values named"
    assert read_value("750 kg -> 487 kg", "weight", ["487-kg", "750-kg"]).value == "487-kg"


def test_a_longer_known_value_is_found_before_a_shorter_one_inside_it():
    assert read_value("It is a-b-5.", "code", ["b-5", "a-b-5"]).named == ("a-b-5",)
    assert read_value("It is 487 kg.", "weight", ["487", "487-kg"]).named == ("487-kg",)


def test_the_former_and_the_latter_are_the_last_two_values_named_before():
    assert (
        read_value("Between mysql-8 and pg-16 we settled on the latter, not redis-7.", DB, [*CHAIN, "redis-7"]).value == "pg-16"
    )
    three = "Between mysql-8, redis-7 and pg-16 we settled on the latter."
    assert read_value(three, DB, [*CHAIN, "redis-7"]).value == "pg-16"
    assert read_value("Between 750 kg and 487 kg we settled on the latter.", "weight", []).value == "487 kg"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("code of the vault of the north site", "77-ALPHA"),  # the attribute is what comes before the first "of the"
        ("code of the ", None),  # no reference after it: the key as written
        ("code", "77-ALPHA"),
    ],
)
def test_a_reference_questions_attribute_is_read_as_the_asked_key(key, value):
    assert read_value("Options: 11-BETA. The code is 77-ALPHA.", key, []).value == value


@pytest.mark.parametrize(
    ("answer", "value", "rejected"),
    [
        # a value alone in parentheses is read with the words around them
        ("The plan (mysql-8) was replaced; pg-16 now", "pg-16", ("mysql-8",)),
        ("(x) the plan (mysql-8) was replaced; pg-16 now", "pg-16", ("mysql-8",)),
        ("The old value (mysql-8) is gone; pg-16 (new)", "pg-16", ("mysql-8",)),
        ("Rejected: redis-7 (old). We use (pg-16) now.", "pg-16", ("redis-7",)),
        ("(mysql-8 was replaced; pg-16 now)", "pg-16", ("mysql-8",)),  # an opening parenthesis alone is not one
    ],
)
def test_a_value_in_parentheses_is_read_with_the_words_around_them(answer, value, rejected):
    reading = read_value(answer, DB, [*CHAIN, "redis-7"])
    assert (reading.value, reading.rejected) == (value, rejected)


def test_a_value_is_read_with_the_cues_after_the_value_before_it_and_its_parenthesis():
    for answer in (
        "The plan (mysql-8) was replaced; pg-16 (now)",
        "The plan (mysql-8)was replaced; pg-16 now",
        "not mysql-8 but pg-16",
    ):
        reading = read_value(answer, DB, CHAIN)
        assert (reading.value, reading.rejected) == ("pg-16", ("mysql-8",)), answer


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("Answer: pg-16 or mysql-8", None),  # the value marked as the answer offered with another: no answer
        ("pg-16, or maybe mysql-8. Final answer: pg-16", "pg-16"),  # a final answer after a second guess settles it
        ("pg-16, or maybe mysql-8. It is now pg-16", None),  # a current value does not
    ],
)
def test_alternatives_and_second_guesses_and_what_settles_them(answer, value):
    assert read_value(answer, DB, CHAIN).value == value


def test_the_order_of_marks_final_then_opening_then_stated_for_the_key():
    assert read_value("pg-16; the billing database is mysql-8", DB, CHAIN).value == "pg-16"
    # a value marked as the final answer is the answer even where the answer also sets it aside
    reading = read_value("Final answer: pg-16. Earlier we said pg-16 was rejected.", DB, CHAIN)
    assert (reading.value, reading.rejected) == ("pg-16", ("pg-16",))
    assert read_value("not mysql-8", DB, CHAIN).how == "every value named is set aside"
    assert read_value("nothing here", DB, CHAIN).how == "no value named"


def test_a_second_guess_counts_only_after_the_value():
    assert read_value("Not sure if it's mysql-8 (old). pg-16", DB, CHAIN).value == "pg-16"


@pytest.mark.parametrize(
    ("answer", "key", "how"),
    [
        ("Options: mysql-8, pg-16. Final answer: pg-16", DB, "'pg-16' marked as the answer among 2 values named"),
        ("Final answer: mysql-8. Final answer: pg-16", DB, "'pg-16', the last of 2 values marked as the answer"),
        ("pg-16\nmysql-8 and redis-7 appear in the log", DB, "'pg-16' the value the answer opens with among 3 values named"),
        ("Options: 11-BETA. The code is 77-ALPHA.", "code", "'77-ALPHA' stated for the asked key among 2 values named"),
        (
            "The code is 11-BETA. The code is 77-ALPHA. Other: 5-X.",
            "code",
            "'77-ALPHA', the last of 2 values stated for the asked key",
        ),
        ("mysql-8 and pg-16", DB, "several values named and none chosen: 'mysql-8', 'pg-16'"),
        ("either pg-16", DB, "'pg-16' offered as an alternative"),
        ("pg-16, but it could also be mysql-8", DB, "a second candidate offered ('could also be' after 'pg-16')"),
        ("pg-16", DB, "the one value named and not set aside: 'pg-16'"),
        ("I do not know the database.", DB, "a refusal: no value named"),
    ],
)
def test_a_readings_explanation_says_which_rule_chose_the_value(answer, key, how):
    assert read_value(answer, key, [*CHAIN, "redis-7"]).how == how


@pytest.mark.parametrize(
    "answer",
    [
        "pg-16<think>maybe mysql-8</think>",  # a reasoning block is no part of the answer, and no part of a value
        "I considered mysql-8.<answer>pg-16</answer>",  # an answer tag is the whole answer
        "mysql-8 first. \\boxed{pg-16}",
        "<answer>mysql-8 (old)</answer> <answer>pg-16</answer>",  # several tags: each on its own line
    ],
)
def test_reasoning_blocks_and_answer_tags(answer):
    assert read_value(answer, DB, [*CHAIN, "redis-7"]).value == "pg-16"


def test_the_last_of_several_values_marked_as_the_answer_is_the_answer():
    reading = read_value("Final answer: mysql-8. Final answer: redis-7. Final answer: pg-16", DB, [*CHAIN, "redis-7"])
    assert (reading.value, reading.how) == ("pg-16", "'pg-16', the last of 3 values marked as the answer")


@pytest.mark.parametrize(
    ("text", "cleaned"),
    [
        ("|---|---|\n| a | b |", "|---|---|\n| a | b |"),  # a rule on the first line has no header above it
        ("Decided Rejected\n|---|---|\n| sqlite | postgres |", "Decided Rejected\n|---|---|\n| sqlite | postgres |"),
        ("| a | b |\n|---|---|", ""),  # a header and its rule with no row under them
        ("| Decided | Rejected |\n|---|---|\n| a | b |\nend", "\nDecided: a | Rejected: b\nend"),
        ("|  | Rejected |\n|---|---|\n| sqlite | postgres |", "\nsqlite | Rejected: postgres"),  # no header: the cell alone
    ],
)
def test_a_table_needs_a_header_row_with_bars_right_above_its_rule(text, cleaned):
    assert clean(text) == cleaned


def test_a_label_with_no_list_under_it_is_left_as_written():
    assert clean("- Rejected:\nnone here") == "- Rejected:\nnone here"
    assert clean("Rejected:\n- tiff-g4\n- png-8") == "Rejected: tiff-g4, png-8"


def test_a_value_in_a_rejected_list_is_set_aside_where_no_cue_of_its_own_says_so():
    reading = read_decision(
        "We considered sqlite and postgres. Rejected: (after a long debate) postgres", "database", ["sqlite", "postgres"]
    )
    assert (reading.value, reading.rejected) == ("sqlite", ("postgres",))
    assert read_decision("sqlite, but it could also be postgres", "database", ["sqlite", "postgres"]).value is None


def test_a_unit_alone_matches_nothing_and_a_cell_is_read_whole():
    assert value_pattern("kg").search("see - there") is None
    assert clean("| Decided | Rejected |\n|---|---|\n|sqlite|BOX|") == "\nDecided: sqlite | Rejected: BOX"


def test_prose_after_a_rejected_list_does_not_undo_the_list():
    assert read_decision("sqlite. Rejected: redis. Rejected: because of cost.", "database", ["sqlite"]).rejected == ("redis",)
