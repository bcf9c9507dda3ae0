"""The harness's own evals: `harness.pytest_plugin` is the implementation (options, the eval session, run-ahead,
LangSmith, the outage stop, xdist); this directory turns it on with its options as `harness run` spells them
(docs/evals.md)."""

from pathlib import Path

import pytest

from harness.pytest_plugin import harness_evals


def pytest_addoption(parser: pytest.Parser) -> None:
    harness_evals(parser, Path(__file__).parent)
