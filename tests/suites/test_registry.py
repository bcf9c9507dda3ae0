"""The eval registry is the one definition of each eval: markers, evals, scorers and faults agree with it."""

import ast
import tomllib
from pathlib import Path

import pytest

from harness.scenarios.generate import generated_case
from harness.scenarios.schema import all_scenario_files, load_scenarios
from harness.scoring.scorers import SCORER_SETS, VALIDITY, score_case
from harness.suites.faults import SEEDED_FAULTS
from harness.suites.registry import OTHER_MARKERS, SUITES
from tests._docs import page

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MARKER_TABLE_PAGE = "evals"  # the page with the `| marker | what it checks |` table


def _markers() -> dict[str, str]:
    lines = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["markers"]
    return dict(line.split(": ", 1) for line in lines)


def test_pyproject_markers_are_the_registry_entries_and_nothing_else():
    expected = {**{s.name: s.description for s in SUITES.values()}, **OTHER_MARKERS}
    assert _markers() == expected


def test_the_readme_marker_table_lists_every_eval_and_nothing_else():
    text = page(MARKER_TABLE_PAGE)
    table = text[text.index("| marker | what it checks |") :].split("\n\n", 1)[0]
    rows = [line.split("|")[1].strip().strip("`") for line in table.splitlines()[2:]]
    assert rows == [*SUITES, "validity"], f"{MARKER_TABLE_PAGE}'s marker table is out of step with suites/registry.py"


def test_every_eval_has_its_test_generated_or_one_module_marked_with_its_name():
    """A ``generated`` entry's test is the plugin's (`harness._plugin_evals`: it asserts the entry's ``required``), and
    no module of evals/ repeats it; any other entry has one module of its own, marked with its name."""
    generated = (ROOT / "harness" / "_plugin_evals.py").read_text()
    assert "require_eval(name)" in generated and "harness_eval" in generated
    for name, suite in SUITES.items():
        module = ROOT / "evals" / f"test_{name}.py"
        if suite.generated:
            assert not module.exists(), f"evals/test_{name}.py repeats the test the plugin generates for {name!r}"
        else:
            assert module.exists(), f"no evals/test_{name}.py for registry entry {name!r} (generated=False)"
            assert f"pytestmark = pytest.mark.{name}" in module.read_text()


def test_eval_modules_define_no_case_lists_of_their_own():
    """Cases come from the entry: a module-level list of ids would be a second definition that drifts."""
    for module in (ROOT / "evals").glob("test_*.py"):
        tree = ast.parse(module.read_text())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id in ("CASES", "SHAPES") for t in node.targets
            ):
                raise AssertionError(f"{module.name} defines its own case list")


def test_every_case_an_entry_names_exists():
    shipped = {s.id for s in load_scenarios(all_scenario_files())}
    for suite in SUITES.values():
        for case in (*suite.case_ids, *suite.matrix_cases):
            assert case in shipped or generated_case(case).id == case, f"{suite.name}: unknown case {case}"
        assert suite.scorers in SCORER_SETS


def test_every_fault_is_caught_by_some_eval_and_every_named_fault_exists():
    named = {f for s in SUITES.values() for f in s.faults}
    assert named == set(SEEDED_FAULTS), named ^ set(SEEDED_FAULTS)
    for suite in SUITES.values():
        for fault, check in suite.faults.items():
            assert check in suite.required, f"{suite.name}: {fault} is caught by {check}, which the eval does not assert"
            assert check not in suite.validity, f"{suite.name}: {fault} must be caught by a check, not a validity score"


def test_the_gated_checks_are_checks_the_eval_asserts():
    for suite in SUITES.values():
        for key in suite.gated:
            assert key in suite.required and key not in suite.validity, f"{suite.name}: gated {key} is not one of its checks"
        for key in suite.gated_measures:  # held by the gate, never asserted: not a check of the eval
            assert key not in suite.required and key in suite.gated_for("deepagents-summarization"), suite.name
    assert SUITES["probe"].gated_measures == ("no_survival_cliff",)
    # every eval whose checks go beyond the shared ones gates at least one of them
    assert all(s.gated for s in SUITES.values() if set(s.required) - set(s.validity) - {"run_completed", "structure_ok"})


def test_validity_fields_are_the_validity_scores_the_scorers_produce(tmp_path):
    """``validity`` in each entry agrees with the scorers' own kinds, read from a real scored run."""
    from harness.agent.models import choose_models
    from harness.agent.runner import run_case
    from harness.compaction.variants import make_config

    scenarios = {s.id: s for s in load_scenarios(all_scenario_files())}
    for suite in SUITES.values():
        kind_cases = [s.id for s in scenarios.values() if s.kind == suite.kind]
        case = (*suite.matrix_cases, *suite.case_ids, *kind_cases)[0]  # an entry may name its cases by kind only
        # validity scores only some of its cases have (``when_present``): every case of the entry, so each is produced
        more = [c for c in suite.case_ids if c != case] if set(suite.validity) & set(suite.when_present) else []
        kinds = {}
        for name in (case, *more):
            scenario = scenarios.get(name) or generated_case(name)
            config = make_config(suite.preset or "forced-20")
            trace = run_case(scenario, config, choose_models(None, None, window=config.window, seed=0), seed=0)
            kinds.update({s.key: s.role for s in score_case(trace, scenario, suite.scorers)})
        missing = [k for k in suite.required if k not in kinds and k not in suite.when_present]
        assert not missing, f"{suite.name}: asserts {missing}, which its scorer set does not produce"
        assert {k for k in suite.required if kinds.get(k) == VALIDITY} == set(suite.validity), suite.name


def test_a_scorer_is_one_registered_function_for_the_kinds_it_scores(monkeypatch):
    """The worked example of docs/design.md: a new scorer is a decorated function, nothing else changes."""
    import copy

    import harness.scoring.scorers.registry as registry
    from harness.agent.models import choose_models
    from harness.agent.runner import run_case
    from harness.compaction.variants import make_config
    from harness.scoring.scorers import MEASURE, Score, scorer

    monkeypatch.setattr(registry, "_REGISTRY", copy.deepcopy(registry._REGISTRY))

    @scorer("needle")
    def agent_calls(trace, scenario):
        return Score("agent_calls", len(trace.agent_calls()), MEASURE, "agent calls in the case")

    scenarios = {s.id: s for s in load_scenarios(all_scenario_files())}
    cfg = make_config("forced-20")
    models = choose_models(None, None, window=cfg.window, seed=0)
    needle = scenarios["needle-h24k-d000"]
    keys = [s.key for s in score_case(run_case(needle, cfg, models, seed=0), needle)]
    assert keys[-1] == "agent_calls" and "needle_correct" in keys
    goal = scenarios["goal-ledgers-12"]
    assert "agent_calls" not in {s.key for s in score_case(run_case(goal, cfg, models, seed=0), goal)}


def test_rows_name_the_eval_they_ran_as_and_the_report_counts_per_eval(needle_trace, scenarios):
    """A needle case run by the eviction eval is counted under eviction, not pooled with the needle eval."""
    from harness.report._document import Document
    from harness.report.run_report import _pass_rates
    from harness.runs.results import result_row

    scenario = scenarios[needle_trace.case_id]
    scores = score_case(needle_trace, scenario)
    as_needle = result_row(needle_trace, scores, trace_file="t", scenario=scenario, eval_name="needle")
    as_eviction = result_row(
        needle_trace,
        score_case(needle_trace, scenario, "eviction"),
        trace_file="t",
        scenario=scenario,
        scorers="eviction",
        eval_name="eviction",
    )
    assert (as_needle["eval"], as_eviction["eval"]) == ("needle", "eviction")
    old = {k: v for k, v in as_needle.items() if k != "eval"}  # a row from before rows named their eval
    doc = Document("t")
    _pass_rates(doc, [as_needle, as_eviction, old])
    headings = [value[1] for kind, value in doc.blocks if kind == "heading" and value[0] == 3]
    assert headings == ["eviction (1 runs)", "needle (2 runs)"]
