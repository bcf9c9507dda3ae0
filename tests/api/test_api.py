"""The Python face (`harness.evaluate`): the snippet of docs/python.md runs as written, an eval runs as pytest runs it, and
what is not run or not known is said."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness
from harness.api import evaluate
from harness.errors import ConfigError
from tests._docs import page, page_path, section

pytestmark = pytest.mark.slow

PYTHON_PAGE = "python"  # the page with "Using the results from Python"


def readme_snippet() -> str:
    """The first Python block of the documentation's "Using the results from Python"."""
    return re.search(r"```python\n(.*?)```", section(page(PYTHON_PAGE), "Using the results from Python"), re.DOTALL).group(1)


def test_the_readme_snippet_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # runs_dir defaults to reports/runs under the working directory
    scope: dict = {}
    exec(compile(readme_snippet(), str(page_path(PYTHON_PAGE)), "exec"), scope)  # noqa: S102 - the docs' own code
    run = scope["run"]
    assert run.outcomes() == {"PASS": 10} and run.path.parent == Path("reports/runs")
    assert (run.path / "report.md").is_file() and run.report == run.path / "report.md"
    assert len(scope["frame"]) == 10 and set(scope["frame"]["eval"]) == {"goal"}
    assert scope["chart"].figure.axes  # a drawn figure, one image in Jupyter
    assert len(run.calls()) > 10 * 3  # every agent call of every case


def test_an_eval_runs_as_pytest_runs_it_and_not_run_cases_are_listed(tmp_path):
    run = evaluate("subagent", strategy="sliding-window", runs_dir=tmp_path)  # subagent: deepagents-summarization only
    assert run.results == [] and run.path is None and not list(tmp_path.iterdir())  # nothing run, nothing written
    assert run.not_run and all(eval_name == "subagent" for eval_name, _, _ in run.not_run)
    assert "deepagents-summarization" in run.not_run[0][2]
    one = evaluate(["truncation"], cases=["truncation-report-06"], runs_dir=tmp_path)
    (result,) = one.results
    assert result.eval_name == "truncation" and result.row["eval"] == "truncation" and result.row["eval_version"] == 2
    assert result.failed() == [] and result.required()[0] in result.scores  # the eval's asserted keys, validity first
    assert result.row["config"]["name"] == "truncation"  # the eval's preset, as pytest evals/ -m truncation runs it


def test_an_unknown_eval_is_refused_naming_the_known_ones():
    with pytest.raises(ConfigError, match="no eval 'needles'; the registry has needle, goal"):
        harness.evaluate("needles")
