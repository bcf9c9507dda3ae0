from harness.task_format import Step, find_fact, parse_question, parse_steps, render_task

STEPS = [
    Step(1, "fetch_document", "DOC-001"),
    Step(2, "read_file", "/a.md"),
    Step(3, "write_file", "/n.md", "/a.md"),
    Step(4, "reply"),
]


def test_steps_round_trip_through_text():
    assert parse_steps(render_task("Intro.", STEPS)) == STEPS


def test_a_remaining_plan_may_start_later_but_must_be_contiguous_and_end_with_the_reply():
    text = "\n".join(s.render() for s in STEPS)
    assert [s.number for s in parse_steps("\n".join(text.splitlines()[2:]))] == [3, 4]
    assert parse_steps("\n".join(text.splitlines()[1:3])) == []  # steps 2-3: no reply, not a whole remaining plan
    assert parse_steps("\n".join([STEPS[0].render(), STEPS[2].render(), STEPS[3].render()])) == []  # gap


def test_questions_and_facts():
    assert (
        parse_question("Question: What is the badge number for the east supervisor? Reply with the value only.")
        == "badge number for the east supervisor"
    )
    assert parse_question("What is the plan?") is None  # not a question turn
    assert (
        find_fact("access code for the north vault", "...the Access Code for the north\nvault is 4417-KESTREL.") == "4417-KESTREL"
    )
    assert find_fact("access code for the north vault", "the access code for the south vault is 1-A") is None


def test_delegation_steps_round_trip_and_expand_to_a_brief():
    from harness.task_format import delegation_brief, document_range

    step = Step(1, "task", "DOC-003..DOC-006")
    assert parse_steps(render_task("Coordinate.", [step, Step(2, "reply")]))[0] == step
    assert document_range("DOC-008..DOC-011") == ["DOC-008", "DOC-009", "DOC-010", "DOC-011"]
    brief = parse_steps(delegation_brief("DOC-008..DOC-011"))
    assert [s.target for s in brief[:-1]] == ["DOC-008", "DOC-009", "DOC-010", "DOC-011"] and brief[-1].tool == "reply"


def test_report_steps_round_trip_and_keep_their_mode():
    steps = [
        Step(1, "fetch_document", "DOC-001"),
        Step(2, "write_file", "/reports/r.md", "DOC-001", "section"),
        Step(3, "fetch_document", "DOC-002"),
        Step(4, "write_file", "/reports/r.md", "DOC-002", "add"),
        Step(5, "write_file", "/notes/n.md", "/a.md"),
        Step(6, "edit_file", "/reports/r.md", "DOC-003", "append"),
        Step(7, "reply"),
    ]
    parsed = parse_steps(render_task("Write the report.", steps))
    assert parsed == steps
    assert [s.mode for s in parsed if s.tool in ("write_file", "edit_file")] == ["section", "add", "note", "append"]
    assert "keeping everything already in it" in steps[3].render()


def test_every_statement_of_a_fact_is_found_in_order_and_the_first_is_find_fact():
    from harness.task_format import find_fact, find_facts

    text = "The gate code is 11-AB. Later: the Gate Code is 22-CD; the gate code   is 33-EF."
    assert find_facts("gate code", text) == ["11-AB", "22-CD", "33-EF"]
    assert find_fact("gate code", text) == "11-AB"
    assert find_facts("gate code", "no such fact") == [] and find_fact("gate code", "nothing") is None


def test_a_parallel_fetch_step_round_trips_and_names_each_document():
    steps = [Step(1, "fetch_document", "DOC-001,DOC-002,DOC-003", mode="parallel"), Step(2, "reply")]
    text = render_task("Intro.", steps)
    assert "1. Fetch documents DOC-001, DOC-002 and DOC-003 with fetch_document, all in one turn." in text
    assert parse_steps(text) == steps and steps[0].targets == ("DOC-001", "DOC-002", "DOC-003")
    assert Step(1, "fetch_document", "DOC-001").targets == ("DOC-001",)
