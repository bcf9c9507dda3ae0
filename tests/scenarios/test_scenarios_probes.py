"""Probe families (harness.scenarios.probes): valid rows, facts in every place, the padding check, the CLI's options.

Builds no agent: generation and validation only (milliseconds)."""

from __future__ import annotations

import copy

import pytest

from harness.cli.main import main
from harness.cli.options import EXIT_BAD_INPUT
from harness.errors import DatasetError
from harness.scenarios.generate import SHIPPED_SEED
from harness.scenarios.probes import (
    CANARY_ROUNDS,
    FAMILIES,
    HELD_OUT_SEEDS,
    check_padding,
    estimated_summaries,
    probe_rows,
    question_text,
    tokens_before_question,
)
from harness.scenarios.schema import PLACES, validate_row
from harness.task_format import ARTIFACT_ACTIONS, parse_probe, parse_statements

DEV = probe_rows(SHIPPED_SEED)


def _family(name: str, instance: int = 0, seed: int = SHIPPED_SEED) -> dict:
    return FAMILIES[name](seed, instance)


def test_the_dev_set_is_two_valid_probe_rows_per_family_with_facts_in_every_place():
    assert len(DEV) == 2 * len(FAMILIES) == 16
    for row in DEV:
        validate_row(row, "probes.jsonl", 1)
        assert row["kind"] == "probe"
        assert all(" is " not in f" {f['key']} " for f in row["facts"])
        assert min(q["turn"] for q in row["questions"]) >= 1  # questions follow the step-list task
    # every place but a recorded conversation (datasets/recorded.jsonl is that case)
    assert {f["place"] for row in DEV for f in row["facts"]} == set(PLACES) - {"conversation"}
    assert {q["probe"] for row in DEV for q in row["questions"]} == {"recall", "artifact", "continuation", "decision"}


def test_rows_are_a_function_of_seed_and_instance():
    assert probe_rows(SHIPPED_SEED) == DEV
    held = probe_rows(HELD_OUT_SEEDS[0])
    assert [r["id"] for r in held] != [r["id"] for r in DEV]
    assert all(h["documents"] != d["documents"] for h, d in zip(held, DEV))
    assert not {r["id"] for r in held} & {r["id"] for r in DEV}


def test_a_statement_is_typed_as_its_fact_and_a_changed_decision_names_the_stale_value():
    for instance in (0, 1):
        row = _family("decision-override", instance)
        old, new = row["facts"]
        assert old["superseded_by"] == new["id"] and old["value"] != new["value"]
        texts = [
            row["task"],
            *row["followups"],
            *(d["text"] for d in row["documents"]),
            *(a["text"] for a in row.get("assistant", [])),
        ]
        said = [s for t in texts for s in parse_statements(t) if s.key == new["key"]]
        assert sorted((s.type, s.value, s.replaces or "") for s in said) == sorted(
            [("decision", old["value"], ""), ("decision", new["value"], old["value"])]
        )
        assert parse_probe(row["followups"][-1]) == ("decision", new["key"])


def test_an_artifact_trail_asks_for_every_written_or_edited_path_and_no_read_one():
    row = _family("artifact-trail")
    made = {(s["target"], ARTIFACT_ACTIONS[s["tool"]]) for s in row["expected_steps"] if s["tool"] in ARTIFACT_ACTIONS}
    assert {(f["key"], f["value"]) for f in row["facts"]} == made
    assert {v for _, v in made} == {"written", "edited"}
    read = {s["target"] for s in row["expected_steps"] if s["tool"] == "read_file"}
    assert read and not read & {f["key"] for f in row["facts"]}
    assert row["questions"] == [{"turn": 1, "facts": [f["id"] for f in row["facts"]], "probe": "artifact"}]


def test_entity_confusion_keys_differ_in_one_word_and_the_instances_ask_each():
    a, b = (_family("entity-confusion", i) for i in (0, 1))
    keys = [f["key"].split() for f in a["facts"]]
    assert len(keys[0]) == len(keys[1]) and sum(x != y for x, y in zip(*keys)) == 1
    assert a["questions"][0]["facts"] == ["entity-1"] and b["questions"][0]["facts"] == ["entity-2"]


def test_reference_resolution_asks_an_attribute_only_through_its_reference_beside_a_look_alike():
    for instance, place in ((0, "user"), (1, "assistant")):
        row = _family("reference-resolution", instance)
        facts = {f["id"]: f for f in row["facts"]}
        attr, ref, other, other_ref = (facts[x] for x in ("attribute", "reference", "distractor", "distractor-reference"))
        assert row["questions"] == [{"turn": len(row["followups"]), "facts": ["attribute", "reference"], "probe": "recall"}]
        attribute = attr["key"].removeprefix(ref["value"] + " ")
        assert attribute != attr["key"] and other["key"] == f"{other_ref['value']} {attribute}"
        assert ref["value"] != other_ref["value"] and attr["value"] != other["value"]
        question = row["followups"][-1]
        assert parse_probe(question) == ("value", f"{attribute} of the {ref['key']}")
        assert ref["value"] not in question and attr["value"] not in question
        assert (ref["place"], other_ref["place"], attr["place"], other["place"]) == (place, place, "tool", "tool")
        said_by = row["task"] if place == "user" else row["assistant"][0]["text"]
        assert {(s.key, s.value) for s in parse_statements(said_by)} == {
            (ref["key"], ref["value"]),
            (other_ref["key"], other_ref["value"]),
        }
        docs = {d["id"]: d["text"] for d in row["documents"]}
        assert attr["doc"] != other["doc"]
        # each entity is named in the documents only by its own attribute's statement
        for entity, doc in ((ref["value"], attr["doc"]), (other_ref["value"], other["doc"])):
            assert [d for d, text in docs.items() if entity in text] == [doc]
        check_padding(row, "reference-resolution")


def test_a_reference_question_is_asked_only_of_an_attribute_the_reference_names():
    assert question_text("recall", "ORBIT-7 access code", ("primary site", "ORBIT-7")) == (
        "Question: What is the access code of the primary site? Reply with the value only."
    )
    with pytest.raises(ValueError, match="is not named by 'VEGA-2'"):
        question_text("recall", "ORBIT-7 access code", ("primary site", "VEGA-2"))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r["questions"][0].update(facts=["distractor", "reference"]), "is not named by 'reference''s value"),
        (lambda r: r["questions"][0].update(facts=["reference", "attribute"]), "is not named by 'attribute''s value"),
        (lambda r: r["followups"].__setitem__(-1, r["followups"][-1].replace("primary", "backup")), "does not ask"),
        (lambda r: r["questions"][0].update(probe="continuation"), "asks about one fact"),
        (lambda r: r["questions"][0].update(facts=["attribute", "reference", "distractor"]), "asks about one fact"),
    ],
)
def test_a_broken_reference_question_is_refused_by_the_schema(mutate, message):
    row = copy.deepcopy(_family("reference-resolution"))
    validate_row(row, "probes.jsonl", 1)
    assert "of the primary site?" in row["followups"][-1]  # seed 7, instance 0: the primary and the backup site
    mutate(row)
    with pytest.raises(DatasetError, match=message):
        validate_row(row, "probes.jsonl", 1)


def test_a_reference_question_before_its_reference_is_said_is_refused():
    row = copy.deepcopy(_family("reference-resolution", 1))  # the references in the assistant message before turn 1
    validate_row(row, "probes.jsonl", 1)
    row["assistant"][0]["turn"] = 2  # now said just before the question's own turn
    for f in row["facts"]:
        if f["place"] == "assistant":
            f["turn"] = 2
    with pytest.raises(DatasetError, match="asks about 'reference' before it is stated"):
        validate_row(row, "probes.jsonl", 1)


def test_canary_rounds_plants_the_five_canaries_and_asks_each_once():
    row = _family("canary-rounds")
    assert [(f["type"], f["place"]) for f in row["facts"]] == [
        ("rule", "user"),
        ("constraint", "tool"),
        ("fact", "tool"),
        ("goal_state", "assistant"),
        ("preference", "user"),
    ]
    assert sorted(q["facts"][0] for q in row["questions"]) == sorted(f["id"] for f in row["facts"])
    assert estimated_summaries(tokens_before_question(row), "forced-20") >= CANARY_ROUNDS


def test_the_padding_check_passes_a_generated_row_and_refuses_one_too_short_to_compact():
    row = _family("buried-constraint")
    check_padding(row, "buried-constraint")  # passes
    short = copy.deepcopy(row)
    for doc in short["documents"]:
        doc["text"] = doc["text"][:4000]  # ~1,000 tokens each: under forced-25's trigger in all
    with pytest.raises(ValueError, match="do not reach forced-25's trigger"):
        check_padding(short, "buried-constraint")


def test_the_padding_check_refuses_a_canary_set_with_too_few_rounds():
    row = _family("canary-rounds")
    check_padding(row, "canary-rounds")
    short = copy.deepcopy(row)
    short["documents"] = short["documents"][:20]  # the steps still fetch all: count only what is there
    short["expected_steps"] = [
        s
        for s in short["expected_steps"]
        if s["tool"] != "fetch_document" or s["target"] in {d["id"] for d in short["documents"]}
    ]
    with pytest.raises(ValueError, match=f"fewer than {CANARY_ROUNDS}"):
        check_padding(short, "canary-rounds")


def test_estimated_summaries_grow_with_the_conversation_and_fall_to_zero_under_the_trigger():
    assert estimated_summaries(1_000, "forced-10") == 0
    assert estimated_summaries(20_000, "forced-25") == 1
    assert estimated_summaries(60_000, "forced-20") > estimated_summaries(30_000, "forced-20") >= 1


def test_probe_rows_refuses_an_unknown_family_and_zero_instances():
    with pytest.raises(ValueError, match="unknown probe family 'nope'"):
        probe_rows(1, ["nope"])
    with pytest.raises(ValueError, match="at least 1"):
        probe_rows(1, None, 0)


def test_a_generated_row_broken_by_hand_is_refused_by_the_schema():
    row = copy.deepcopy(_family("plan-state"))
    row["facts"][0]["value"] = "not-said-anywhere"
    with pytest.raises(DatasetError, match="not stated in its place"):
        validate_row(row, "probes.jsonl", 1)


def test_generate_probes_writes_the_families_asked_for(tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    assert (
        main(
            ["generate", "probes", "--out", str(out), "--seed", "3", "--families", "plan-state,standing-rule", "--instances", "1"]
        )
        == 0
    )
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and '"probe-plan-state-s3-i0"' in lines[0] and '"probe-standing-rule-s3-i0"' in lines[1]
    assert "2 probe scenarios" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out", "p.txt"], "--out: harness generate probes writes one scenario file"),
        (["--families", "plan-state,nope"], "--families: unknown family 'nope'"),
        (["--families", ","], "--families: no family named"),
        (["--instances", "0"], "--instances must be 1 to 100"),
    ],
)
def test_bad_probe_options_exit_2_naming_the_option_and_write_nothing(tmp_path, monkeypatch, argv, message, capsys):
    monkeypatch.chdir(tmp_path)
    args = argv if "--out" in argv else [*argv, "--out", "p.jsonl"]
    assert main(["generate", "probes", *args]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err and not list(tmp_path.iterdir())


def test_generate_probes_help_lists_every_family_in_order_and_the_shipped_defaults():
    """`harness generate --help` names the families and defaults of `harness.scenarios.probes`, read from there."""
    from harness.cli.main import build_parser
    from harness.scenarios.probes import DEV_INSTANCES

    gen = build_parser()._subparsers._group_actions[0].choices["generate"]  # type: ignore[union-attr]
    actions = {a.dest: a for a in gen._actions}
    assert actions["families"].help == f"comma-separated families (default all): {', '.join(FAMILIES)}"
    assert actions["instances"].default == DEV_INSTANCES and f"(default {DEV_INSTANCES}," in actions["instances"].help
    assert actions["seed"].default == SHIPPED_SEED and f"(default {SHIPPED_SEED}," in actions["seed"].help
