"""The public faces: the top-level package and each subpackage export what a user may import (``__all__``), every
name resolves, and every exported function and class carries its own docstring."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

import harness

ROOT = Path(__file__).resolve().parents[2]
# Every package whose __init__ declares a public face (``__all__``), found in the tree rather than listed by hand.
PACKAGES = sorted(
    ".".join(p.parent.relative_to(ROOT).parts)
    for p in (ROOT / "harness").rglob("__init__.py")
    if "__all__" in p.read_text(encoding="utf-8")
)


def own_doc(obj: object) -> str:
    """The object's own docstring: a class's from its body, read from its source (not inherited, and not the signature
    `dataclass` writes into ``__doc__`` of a class without one), a function's from its def."""
    if inspect.isclass(obj):
        node = ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]
        return (ast.get_docstring(node) or "") if isinstance(node, ast.ClassDef) else ""
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

    @dataclass
    class BareData:  # dataclass sets __doc__ to "BareData(x: int)" when the class has none
        x: int

    def bare() -> None:
        pass

    assert BareData.__doc__
    assert own_doc(Bare) == "" and own_doc(BareData) == "" and own_doc(bare) == ""
    assert own_doc(harness.evaluate) and own_doc(harness.Trace)


def test_the_packages_checked_are_found_not_listed():
    assert {"harness", "harness.agent", "harness.answers", "harness.scoring.scorers", "harness.trace"} <= set(PACKAGES)


def test_a_name_not_exported_is_an_attribute_error():
    import harness.agent

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        harness.agent.nothing  # noqa: B018
