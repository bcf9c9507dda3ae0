"""tools/mutation.py, the driver of `make mutation`: the score it prints is the score of what it claims to cover."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mutation_tool", ROOT / "tools" / "mutation.py")
assert _spec and _spec.loader
mutation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutation)

SCOPE = {"a": ["pkg.a.*"], "b": ["pkg.b.x_keep_*"]}


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A mutants/ directory with mutmut's .meta files; returns a function that writes one file's results."""
    monkeypatch.setattr(mutation, "MUTANTS", tmp_path / "mutants")
    monkeypatch.setattr(mutation, "diff", lambda name: f"- {name}")
    settings = {"scope": SCOPE, "equivalent": {}, "fail_under": 90}
    monkeypatch.setattr(mutation, "settings", lambda: settings)

    def write(module: str, codes: dict[str, int | None]) -> dict:
        meta = tmp_path / "mutants" / "pkg" / f"{module}.py.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": codes}))
        return settings

    return write


def _report(check: bool = True) -> tuple[int, dict]:
    code = mutation.report(check)
    return code, json.loads((mutation.MUTANTS / "mutation-report.json").read_text())


def test_score_is_killed_over_killed_survived_and_untested_in_scope_only(fake):
    fake("a", {f"pkg.a.x_f__mutmut_{i}": 1 for i in range(9)} | {"pkg.a.x_f__mutmut_9": 0})
    fake("b", {"pkg.b.x_keep__mutmut_1": 33, "pkg.b.x_keep__mutmut_2": 36, "pkg.b.x_other__mutmut_1": 0})
    code, summary = _report()
    assert summary["modules"]["a"]["score"] == pytest.approx(0.9)
    assert summary["modules"]["b"]["score"] == pytest.approx(0.5)  # a timeout is killed, "no tests" is not
    assert summary["score"] == pytest.approx(10 / 12)  # x_other is outside the scope: not counted anywhere
    assert summary["survivors"] == ["pkg.a.x_f__mutmut_9", "pkg.b.x_keep__mutmut_1"]
    assert code == 1  # under 90 %


def test_an_accepted_equivalent_mutant_is_not_counted_and_a_stale_entry_fails_the_check(fake):
    settings = fake("a", {f"pkg.a.x_f__mutmut_{i}": 1 for i in range(9)} | {"pkg.a.x_f__mutmut_9": 0})
    settings["equivalent"] = {"pkg.a.x_f__mutmut_9": "same result: sorted twice"}
    code, summary = _report()
    assert summary["score"] == 1.0 and summary["survivors"] == [] and code == 0
    assert "- `pkg.a.x_f__mutmut_9` (a): same result: sorted twice" in (mutation.MUTANTS / "mutation-report.md").read_text()
    settings["equivalent"]["pkg.a.x_f__mutmut_3"] = "killed now"  # no longer a survivor: the list must be updated
    code, summary = _report()
    assert summary["stale_equivalent"] == ["pkg.a.x_f__mutmut_3"] and code == 1


def test_an_entry_no_module_of_the_scope_holds_is_stale_in_a_whole_report_only(fake):
    """A function that moved out of the scope's globs (grid.default_keep to config.quarter_keep) leaves its entries
    naming no mutant of any module: a whole report says so; a report of some modules (--changed) cannot tell."""
    settings = fake("a", {f"pkg.a.x_f__mutmut_{i}": 1 for i in range(10)})
    settings["equivalent"] = {"pkg.gone.x_moved__mutmut_3": "was equivalent where it was"}
    code, summary = _report()
    assert summary["stale_equivalent"] == ["pkg.gone.x_moved__mutmut_3"] and code == 1
    assert mutation.report(True, ["a"]) == 0


def test_unchecked_mutants_make_the_run_incomplete_not_passed(fake):
    fake("a", {f"pkg.a.x_f__mutmut_{i}": 1 for i in range(10)} | {"pkg.a.x_f__mutmut_10": None})
    code, summary = _report()
    assert summary["score"] == 1.0 and code == 1
    assert "Incomplete" in (mutation.MUTANTS / "mutation-report.md").read_text()


def test_the_configured_scope_names_only_functions_that_exist():
    """A glob of [tool.mutmut.scope] that names no function would silently shrink what the score covers."""
    import ast

    for module, globs in mutation.scope().items():
        for glob in globs:
            if glob.endswith(".*"):  # a whole module
                path = ROOT / glob[:-2].replace(".", "/")
                assert path.with_suffix(".py").exists() or path.is_dir(), f"{module}: {glob}"
                continue
            dotted, _, name = glob.partition(".x")  # harness.runs.grid, _plan_cells_*
            source = ROOT / (dotted.replace(".", "/") + ".py")
            name = name.strip("ǁ*").split("ǁ")[0].removeprefix("_").rstrip("_")
            tree = ast.parse(source.read_text())
            names = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            assert name in names, f"[tool.mutmut.scope] {module}: {glob} names nothing in {source.name}"


def test_the_nightly_workflow_runs_make_mutation_and_keeps_its_report():
    job = yaml.safe_load((ROOT / ".github" / "workflows" / "nightly.yml").read_text())["jobs"]["mutation"]
    runs = [s["run"] for s in job["steps"] if "run" in s]
    assert "make mutation" in runs
    (upload,) = [s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["if"] == "always()" and "mutants/mutation-report.md" in upload["with"]["path"]


def test_only_runs_the_given_globs_and_refuses_one_outside_the_scope(monkeypatch):
    calls: list[list[str]] = []
    monkeypatch.setattr(mutation, "settings", lambda: {"scope": SCOPE, "equivalent": {}, "fail_under": 90})
    monkeypatch.setattr(mutation, "_refresh_copies", lambda: None)
    monkeypatch.setattr(mutation.subprocess, "call", lambda argv, cwd: calls.append(argv) or 0)
    assert mutation.run([], False, 1, only=["pkg.a.x_f*"]) == 0
    assert calls[-1][-1] == "pkg.a.x_f*" and calls[-1][-2] == "1"
    assert mutation.run([], False, 1, only=["pkg.b.x_keep*"]) == 0  # a prefix of the scope's glob is in it
    assert mutation.run([], False, 1, only=["pkg.b.x_other*"]) == 2  # outside b's scope (x_keep_* only)
    assert len(calls) == 2


def test_a_change_selects_the_modules_whose_source_it_touches():
    modules = {
        "grid": ["harness.runs.grid.x_plan_cells_*", "harness.runs.grid.x_merge_*"],
        "strategies": ["harness.compaction.strategies.*"],
        "live": ["harness.agent.live.xǁTokenBudgetǁ*"],
        "results": ["harness.runs.results.*"],
    }
    assert mutation.touched(["harness/runs/grid.py", "README.md"], modules) == ["grid"]
    assert mutation.touched(["harness/compaction/strategies/none.py"], modules) == ["strategies"]
    assert mutation.touched(["harness/agent/live.py", "harness/runs/results.py"], modules) == ["live", "results"]
    assert mutation.touched(["harness/runs/results_extra.py", "tests/runs/test_resume.py"], modules) == []


def test_a_report_of_the_changed_modules_counts_only_them(fake):
    settings = fake("a", {f"pkg.a.x_f__mutmut_{i}": 1 for i in range(10)})
    fake("b", {"pkg.b.x_keep__mutmut_1": None})  # not run: another module
    settings["equivalent"] = {"pkg.b.x_keep__mutmut_2": "an entry of a module not run this time"}
    assert mutation.report(True, ["a"]) == 0
    summary = json.loads((mutation.MUTANTS / "mutation-report.json").read_text())
    assert set(summary["modules"]) == {"a", "total"} and summary["score"] == 1.0
    assert mutation.report(True) == 1  # the whole scope: b is unchecked and its entry stale


def test_changed_with_no_module_in_scope_runs_nothing(monkeypatch, capsys):
    monkeypatch.setattr(mutation, "changed_files", lambda base: ["README.md"])
    monkeypatch.setattr(mutation, "run", lambda *a, **k: pytest.fail("nothing should run"))
    assert mutation.main(["run", "--changed", "origin/main", "--check"]) == 0
    assert "nothing to run" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        mutation.main(["run", "--changed", "origin/main", "scoring/scorers"])
    assert exc.value.code == 2


def test_pull_requests_score_the_modules_they_touch_and_the_night_scores_the_whole_scope():
    ci = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())["jobs"]["mutation"]
    assert ci["if"] == "github.event_name == 'pull_request'"
    assert ci["steps"][0]["with"]["fetch-depth"] == 0  # the merge base must be in the clone
    assert [s["run"] for s in ci["steps"] if "run" in s] == ["make mutation-changed BASE=origin/${{ github.base_ref }}"]
    nightly = yaml.safe_load((ROOT / ".github/workflows/nightly.yml").read_text())["jobs"]["mutation"]
    assert [s["run"] for s in nightly["steps"] if "run" in s] == ["make mutation"]
    makefile = (ROOT / "Makefile").read_text()
    assert "mutation-changed: install-dev\n\t$(BIN)/python tools/mutation.py run --changed $(BASE) --check\n" in makefile


def test_a_second_glob_after_one_only_is_refused_not_silently_dropped(monkeypatch, capsys):
    monkeypatch.setattr(mutation, "run", lambda *a, **k: pytest.fail("nothing should run"))
    with pytest.raises(SystemExit) as exc:
        mutation.main(["run", "--only", "harness.redact.*", "harness.runs.rescore.*"])
    assert exc.value.code == 2
    assert "repeat --only" in capsys.readouterr().err
