"""The public faces: the top-level package and each subpackage export what a user may import (``__all__``), every
name resolves, and every exported function and class carries its own docstring."""

from __future__ import annotations

import importlib
import inspect

import pytest

import harness

PACKAGES = [
    "harness",
    "harness.agent",
    "harness.analysis",
    "harness.cli",
    "harness.compaction",
    "harness.reference",
    "harness.report",
    "harness.runs",
    "harness.scenarios",
    "harness.scoring",
    "harness.scoring.scorers",
    "harness.suites",
    "harness.trace",
]


def own_doc(obj: object) -> str:
    """The object's own docstring: a class's from its body (not inherited), a function's from its def."""
    if inspect.isclass(obj):
        return (vars(obj).get("__doc__") or "").strip()
    return (getattr(obj, "__doc__", None) or "").strip()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves_and_every_function_and_class_is_documented(package):
    module = importlib.import_module(package)
    assert (module.__doc__ or "").strip(), f"{package} has no docstring"
    exported = [n for n in module.__all__ if n != "__version__"]
    assert exported, f"{package} exports nothing"
    undocumented = []
    for name in exported:
        obj = getattr(module, name)
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and not own_doc(obj):
            undocumented.append(name)
    assert not undocumented, f"{package}: no docstring on {undocumented}"


def test_the_checker_sees_a_missing_docstring():
    class Bare:
        pass

    def bare() -> None:
        pass

    assert own_doc(Bare) == "" and own_doc(bare) == "" and own_doc(harness.evaluate)


def test_a_name_not_exported_is_an_attribute_error():
    import harness.agent

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        harness.agent.nothing  # noqa: B018
