"""The package layout keeps its promises: the layers of docs/design.md (no upward import, no import cycle, counting
function-level and type-only imports), reports never reach the agent runner, the reference models cannot see
expected answers, and the agent layer never reaches the reference models (a provider it names, not imports)."""

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "harness"
DESIGN = ROOT / "docs" / "design.md"


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _tree(path: Path) -> ast.Module:
    """The module at ``path``, parsed: each source text once per process (the import graph and the module map read
    the same modules; a planted module rewritten in place is another text, parsed again)."""
    return _parse(path.read_text())


@functools.cache
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def _imports(name: str, modules: dict[str, Path]) -> set[str]:
    """Every module of the package ``name`` imports, at any depth of its code: module-level, function-level and
    type-only (under ``if TYPE_CHECKING:``) imports alike."""
    found = set()
    top = name.split(".")[0]
    for node in ast.walk(_tree(modules[name])):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == top:
            subs = {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
            found |= subs or ({node.module} & modules.keys())
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names} & modules.keys()
    return found - {top, name}


def graph_of(modules: dict[str, Path]) -> dict[str, set[str]]:
    return {name: _imports(name, modules) for name in modules}


GRAPH = graph_of(MODULES)


def _reach(start: str, graph: dict[str, set[str]] = GRAPH) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """The modules that reach themselves."""
    return sorted(name for name in graph if name in _reach(name, graph))


def design_layers(text: str) -> list[list[str]]:
    """The layer block under docs/design.md's "## Layers": indented lines of names, top layer first."""
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"\n\n((?:    \S.*\n)+)", section)
    assert block, "docs/design.md's Layers section has no indented layer block"
    return [line.split() for line in block.group(1).splitlines()]


def upward_imports(graph: dict[str, set[str]], layers: list[list[str]]) -> list[str]:
    """Each import from a module to one in a higher layer (``layers`` top first), and each module no layer names."""
    rank = {part: len(layers) - i for i, layer in enumerate(layers) for part in layer}

    def layer_of(module: str) -> int | None:
        parts = module.split(".")
        return None if len(parts) == 1 else rank.get(parts[1])  # the package's face sits above every layer

    found = []
    for name, targets in sorted(graph.items()):
        mine = layer_of(name)
        if mine is None and "." in name:
            found.append(f"{name} is in no layer of docs/design.md")
            continue
        for target in sorted(targets):
            theirs = layer_of(target)
            if mine is not None and theirs is not None and theirs > mine:
                found.append(f"{name} imports {target}, a higher layer")
    return found


LAYERS = design_layers(DESIGN.read_text())


def test_every_module_is_in_a_layer_and_nothing_imports_upward():
    assert not upward_imports(GRAPH, LAYERS)


def test_no_import_cycles_even_through_function_level_and_type_only_imports():
    found = cycles(GRAPH)
    assert not found, f"modules on an import cycle: {found}"


def test_reports_never_import_the_agent_runner():
    for name in MODULES:
        if name.startswith("harness.report"):
            assert "harness.agent.runner" not in _reach(name), f"{name} reaches the agent runner"


def reaching(graph: dict[str, set[str]], source: str, targets: tuple[str, ...]) -> list[str]:
    """Each module of package ``source`` (its dotted prefix) that reaches a module under one of ``targets``, with
    what it reaches, at any depth and through every kind of import."""
    found = []
    for name in sorted(graph):
        if name == source or name.startswith(source + "."):
            hits = sorted(m for m in _reach(name, graph) if m.startswith(targets))
            if hits:
                found.append(f"{name} reaches {', '.join(hits)}")
    return found


def test_the_reference_models_import_nothing_that_knows_expected_answers():
    forbidden = ("harness.scenarios", "harness.scoring", "harness.suites", "harness.runs")
    assert not reaching(GRAPH, "harness.reference", forbidden)


def test_the_agent_never_reaches_the_reference_models():
    """The reference models are a provider like any other: the agent layer names them in its provider table
    (`harness.agent.models.IN_PROCESS_PROVIDERS`, imported on first use) and imports none of their modules."""
    assert not reaching(GRAPH, "harness.agent", ("harness.reference",))


def test_the_agents_provider_table_names_modules_that_build_models():
    """The table's entries are the layer's only tie to a provider: each names a module above the agent layer that
    offers `knows` and `chat_model`, so a stale entry fails here rather than on a user's run."""
    from harness.agent.models import IN_PROCESS_PROVIDERS

    rank = {part: i for i, layer in enumerate(LAYERS) for part in layer}
    for provider, module in IN_PROCESS_PROVIDERS.items():
        assert module in MODULES, f"{provider}: {module} is no module"
        assert rank[module.split(".")[1]] < rank["agent"], f"{provider}: {module} is not above the agent layer"
        text = MODULES[module].read_text()
        assert "def knows(" in text and "def chat_model(" in text, f"{module} does not build models"


def test_the_reach_rule_fails_on_a_planted_import_at_any_depth(tmp_path):
    pkg = tmp_path / "pkg"
    for sub in ("agent", "reference", "bedrock"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "reference" / "models.py").write_text("")
    (pkg / "bedrock" / "util.py").write_text("def f():\n    from pkg.reference import models  # function-level\n")
    (pkg / "agent" / "clean.py").write_text("from pkg.bedrock import util\n")  # reaches it through bedrock
    (pkg / "agent" / "typed.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.reference.models\n"
    )
    graph = graph_of(_modules(pkg))
    assert reaching(graph, "pkg.agent", ("pkg.reference",)) == [
        "pkg.agent.clean reaches pkg.reference.models",
        "pkg.agent.typed reaches pkg.reference.models",
    ]
    (pkg / "bedrock" / "util.py").write_text("")
    (pkg / "agent" / "typed.py").write_text("")
    assert reaching(graph_of(_modules(pkg)), "pkg.agent", ("pkg.reference",)) == []


def test_the_checker_sees_function_level_and_type_only_imports():
    """The graph is not vacuous: a function-level import (the CLI commands' lazy ones) is an edge."""
    assert "harness.suites.validity" in GRAPH["harness.cli.checks"]
    assert len(LAYERS) >= 10 and LAYERS[0][0] == "cli"


def test_the_checker_fails_on_a_planted_upward_import_a_cycle_and_a_module_in_no_layer(tmp_path):
    pkg = tmp_path / "pkg"
    for sub in ("low", "high", "stray"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "low" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high.b import B  # type-only, upward\n"
    )
    (pkg / "low" / "c.py").write_text("def f():\n    from pkg.low import d  # function-level\n")
    (pkg / "low" / "d.py").write_text("from pkg.low.c import f\n")
    (pkg / "high" / "b.py").write_text("from pkg.low import a\nB = 1\n")
    (pkg / "stray" / "e.py").write_text("")
    graph = graph_of(_modules(pkg))
    layers = [["high"], ["low"]]
    assert upward_imports(graph, layers) == [
        "pkg.low.a imports pkg.high.b, a higher layer",
        "pkg.stray is in no layer of docs/design.md",
        "pkg.stray.e is in no layer of docs/design.md",
    ]
    assert cycles(graph) == ["pkg.high.b", "pkg.low.a", "pkg.low.c", "pkg.low.d"]


# -- the module map (docs/layout.md) is generated from the tree and the layer order ---------------------------------
LAYOUT = ROOT / "docs" / "layout.md"  # the page holding the generated map (run as a script: no tests._docs)
START, END = "<!-- layout: generated by `python tests/project/test_layout.py`, checked by its test -->", "<!-- layout end -->"
OTHER_DIRS = [
    ("evals/", "pytest evals: the tests the plugin generates from the registry, and modules of their own (markers needle, ...)"),
    (
        "tests/",
        "the harness's own tests, a folder per package of harness/ (bedrock/: the modules at its top; project/: the repository); -m slow and -m live mark the tiers (tests/README.md)",
    ),
    ("datasets/", "scenarios, variants/, experiments/, baselines/, mechanisms/, niah/, model prices and limits"),
    ("notebooks/", "token_curves.ipynb, compare_variants.ipynb, session_replay.ipynb (executed by the tests)"),
    ("docs/", "the guide, a page per topic (README links each); design.md: how the harness is put together, and why"),
    ("reports/", "generated runs and experiments (git-ignored)"),
]
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+(?=[A-Z`(\"*])")  # "e.g. a" and "harness.run" are not an end


def first_sentence(path: Path) -> str:
    """The first sentence of the module's docstring (its first paragraph, joined, up to the first sentence end)."""
    doc = ast.get_docstring(_tree(path)) or ""
    paragraph = " ".join(doc.strip().split("\n\n", 1)[0].split())
    return _SENTENCE_END.split(paragraph, 1)[0].replace("``", "`")


def _entries(name: str) -> list[tuple[str, Path]]:
    """The modules a layer's name covers: a subpackage's every module (its __init__ first, sub-packages after their
    parent), or one module at the top of harness/."""
    top = PACKAGE / name
    if not top.is_dir():
        return [(f"{name}.py", PACKAGE / f"{name}.py")]
    out = []
    for pkg in sorted(p.parent for p in top.rglob("__init__.py") if "__pycache__" not in p.parts):
        rel = pkg.relative_to(PACKAGE).as_posix()
        out.append((f"{rel}/", pkg / "__init__.py"))
        out += [(f"{rel}/{m.name}", m) for m in sorted(pkg.glob("*.py")) if m.name not in ("__init__.py", "__main__.py")]
    return out


def layout_block(layers: list[list[str]] | None = None) -> str:
    """The map: the package's face, then each layer of docs/design.md (top first) with one line per module, the first
    sentence of its docstring; then the repository's other folders."""
    layers = LAYERS if layers is None else layers
    lines = ["- `harness/` (the public face, above every layer): " + first_sentence(PACKAGE / "__init__.py")]
    for i, layer in enumerate(layers):
        lines += ["", f"**Layer {len(layers) - i}: {', '.join(layer)}**", ""]
        lines += [f"- `{rel}`: {first_sentence(path)}" for name in layer for rel, path in _entries(name)]
    lines += ["", "**Outside the package**", ""]
    lines += [f"- `{d}`: {what}" for d, what in OTHER_DIRS]
    return "\n".join(lines)


def test_the_module_map_is_the_tree():
    text = LAYOUT.read_text()
    assert START in text and END in text, f"{LAYOUT.name} has no generated layout section"
    current = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert current == layout_block(), f"{LAYOUT.name} is stale: run `python tests/project/test_layout.py`"


def test_the_module_map_names_every_module_once_under_its_layer():
    block = layout_block()
    named = re.findall(r"^- `([^`]+)`", block, flags=re.M)
    modules = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    modules = [m for m in modules if "/" in m or m[:-3] in {n for layer in LAYERS for n in layer}]
    assert sorted(set(named)) == sorted(named), "a module is listed twice"
    assert set(modules) <= set(named), f"missing from the map: {sorted(set(modules) - set(named))}"


def test_a_first_sentence_stops_at_the_sentence_not_the_line(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""One thing, e.g. `a.b`, done\nacross lines. Another sentence."""\n')
    assert first_sentence(module) == "One thing, e.g. `a.b`, done across lines."


def test_a_stale_map_is_told_apart(tmp_path):
    """The check compares text: a layer order that differs gives a different block."""
    assert layout_block([*LAYERS[1:], LAYERS[0]]) != layout_block()


if __name__ == "__main__":
    text = LAYOUT.read_text()
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    LAYOUT.write_text(f"{head}{START}\n{layout_block()}\n{END}{tail}")
    print(f"{LAYOUT.relative_to(ROOT)} layout regenerated")
