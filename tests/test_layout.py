"""The package layout keeps its promises: no import cycles (function-level imports included), reports never reach the
agent runner, and the reference models cannot see expected answers."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "harness"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """Every harness module ``name`` imports, at any depth of its code (function-level imports too)."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("harness"):
            subs = {f"{node.module}.{a.name}" for a in node.names} & MODULES.keys()
            found |= subs or ({node.module} & MODULES.keys())
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names} & MODULES.keys()
    return found - {"harness", name}


GRAPH = {name: _imports(name) for name in MODULES}


def _reach(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in GRAPH[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_cycles_even_through_function_level_imports():
    cycles = sorted(name for name in MODULES if name in _reach(name))
    assert not cycles, f"modules on an import cycle: {cycles}"


def test_reports_never_import_the_agent_runner():
    for name in MODULES:
        if name.startswith("harness.report"):
            assert "harness.agent.runner" not in _reach(name), f"{name} reaches the agent runner"


def test_the_reference_models_import_nothing_that_knows_expected_answers():
    forbidden = ("harness.scenarios", "harness.scoring", "harness.suites", "harness.runs")
    for name in MODULES:
        if name.startswith("harness.reference"):
            leaks = sorted(m for m in _reach(name) if m.startswith(forbidden))
            assert not leaks, f"{name} imports {leaks}"


def test_the_checker_sees_a_function_level_import():
    """The graph is not vacuous: a function-level import (cli.main's lazy ones) is an edge."""
    assert "harness.suites.validity" in GRAPH["harness.cli.main"]
