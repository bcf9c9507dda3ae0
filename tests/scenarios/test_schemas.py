"""The shipped JSON Schemas and datasets/README.md's field table are what the pydantic models give (tools/schemas.py),
and they say what the loaders say: every shipped row, spec and variant front matter passes them, and a broken one is
refused by both the schema (what an editor shows) and the loader (file, row or key, and field named)."""

from __future__ import annotations

import copy
import functools
import importlib.util
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from harness.compaction.variants import load_variant
from harness.errors import ConfigError, DatasetError
from harness.runs.spec import load_spec
from harness.scenarios.schema import validate_row

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("schemas_tool", ROOT / "tools" / "schemas.py")
assert _spec is not None and _spec.loader is not None
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

SCENARIO_FILES = [
    "needle.jsonl",
    "goal.jsonl",
    "chain.jsonl",
    "probes.jsonl",
    "recorded.jsonl",
    "mechanisms/truncation.jsonl",
    "mechanisms/sessions.jsonl",
    "niah/grid.jsonl",
]


@functools.cache
def _validator(stem: str) -> jsonschema.Draft202012Validator:
    """The shipped schema ``stem``, checked against its meta-schema, as a validator (made once per process: a
    validator holds no state between documents, and the file is not written during the tests)."""
    schema = json.loads((ROOT / "schemas" / f"{stem}.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return (yaml.safe_load(text.split("\n---", 1)[0][3:]) or {}) if text.startswith("---") else {}


def test_the_generated_files_are_not_stale():
    assert tool.stale_files() == [], "run python tools/schemas.py"
    assert tool.main(["--check"]) == 0


def test_a_stale_table_or_schema_is_found(tmp_path, monkeypatch):
    readme = (ROOT / "datasets" / "README.md").read_text(encoding="utf-8")
    tampered = readme.replace("| one line for humans |", "| one line |", 1)
    assert tampered != readme and tool.readme_text(tampered) == readme  # the table comes back from the model
    monkeypatch.setattr(tool, "SCHEMAS_DIR", tmp_path)  # no schema written there yet: every one is stale
    assert {p.name for p in tool.stale_files()} == {f"{stem}.schema.json" for stem in tool.models()}
    assert tool.main(["--check"]) == 1


def test_the_table_names_every_field_of_the_row_model_with_its_description():
    from harness.scenarios.model import ScenarioRow

    table = tool.readme_table()
    for name, info in ScenarioRow.model_fields.items():
        assert f"| `{name}` |" in table and str(info.description) in table, name
    assert '| `kind` | `"needle"`, `"goal"`, `"chain"`, `"truncation"`, `"probe"` or `"session"` | yes |' in table
    assert "| `facts` | list of `{id, type, key, value, place, turn, doc?, superseded_by?, message?}` | probe cases |" in table


@pytest.mark.parametrize("name", SCENARIO_FILES)
def test_every_shipped_row_passes_the_row_schema(name):
    validator = _validator("scenario-row")
    for line in (ROOT / "datasets" / name).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert not list(validator.iter_errors(row)), row["id"]


def test_every_shipped_spec_and_variant_passes_its_schema():
    specs, variants = _validator("experiment-spec"), _validator("variant")
    spec_files = sorted((ROOT / "datasets" / "experiments").glob("*.yaml"))
    variant_files = sorted((ROOT / "datasets" / "variants").glob("*.md"))
    assert len(spec_files) >= 10 and len(variant_files) >= 7
    for path in spec_files:
        assert not list(specs.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8")))), path.name
    for path in variant_files:
        assert not list(variants.iter_errors(_front_matter(path))), path.name


@pytest.mark.parametrize(
    ("mutate", "field", "problem"),
    [
        (lambda r: r.update(kind="haystack"), "kind", "unknown kind 'haystack'; expected one of needle, goal"),
        (lambda r: r.update(colour="red"), "colour", "unknown field; known fields: id, kind, description, task"),
        (lambda r: r["needles"][0].update(answer=4417), "needles[0].answer", "expected a string, got int"),
        (lambda r: r["needles"][0].update(depth=1.5), "needles[0].depth", "must be between 0 and 1, got 1.5"),
        (lambda r: r["needles"][0].update(turn=True), "needles[0].turn", "expected an integer, got bool"),
        (lambda r: r.update(haystack_tokens="big"), "haystack_tokens", "expected an integer or null, got str"),
        (lambda r: r["documents"][0].update(size=3), "documents[0].size", "unknown field; known: id, text"),
        (lambda r: r.update(followups=["  "]), "followups[0]", "must be a non-empty string"),
        (lambda r: r.update(id="Needle One"), "id", "use lowercase letters, digits, '-', '_' or '.'"),
        (lambda r: r.update(min_summaries=0), "min_summaries", "must be at least 1, got 0"),
        (lambda r: r.update(system_prompt=None), "system_prompt", "expected a string, got NoneType"),
    ],
)
def test_a_broken_row_is_refused_by_the_schema_and_by_the_loader_in_the_projects_words(mutate, field, problem):
    row = json.loads((ROOT / "datasets" / "needle.jsonl").read_text(encoding="utf-8").splitlines()[0])
    broken = copy.deepcopy(row)
    mutate(broken)
    assert list(_validator("scenario-row").iter_errors(broken)), "the editor's schema lets it pass"
    with pytest.raises(DatasetError) as err:
        validate_row(broken, "datasets/x.jsonl", 4)
    said = str(err.value)
    assert said == f"datasets/x.jsonl: row 4 (id {broken['id']!r}): field {field!r}: {said.split(': ', 3)[3]}"
    assert problem in said, said
    assert "pydantic" not in said and "Input should" not in said and "further information" not in said


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("colour: red", "colour: unknown key; known keys: agent, base_url, baseline"),
        ("scenarios: {colour: red}", "scenarios.colour: unknown key; known: cases, datasets, kind, limit"),
        ("scenarios: {kind: haystack}", "scenarios.kind: needle, goal, chain, truncation, probe, session or all, got 'haystack'"),
        ("seed: -1", "seed: must be a non-negative integer, got -1"),
        ("concurrency: 1.5", "concurrency: must be a positive integer, got 1.5"),
        ("baseline: 3", "baseline: expected a string or null, got int"),
        ("thresholds: [{type: tokens, value: 9000, unit: x}]", "thresholds[0]: a size mapping needs exactly"),
        ("evals: []", "evals: a non-empty list of eval names; known: needle"),
        ("versions: []", "versions: a mapping of package -> list of versions"),
        ("versions: {deepagents: []}", "versions.deepagents: must not be empty"),
        ("versions: {'bad name': ['1']}", "versions: 'bad name' is not a package name"),
        ("versions: [{name: old+new}]", "versions[0]: name: 'old+new' is not an arm name"),
        ("versions: [{name: old, pins: {langchain: latest}}]", "versions[0] (old): pins.langchain: 'latest' is not a version"),
        ("versions: [{name: old, pins: {'lang chain': '1'}}]", "versions[0] (old): pins: 'lang chain' is not a package name"),
        ("versions: [{name: old, lock: ''}]", "versions[0] (old): lock: a lock file's path (relative to the spec), got ''"),
    ],
)
def test_a_broken_spec_is_refused_by_the_schema_and_by_the_loader(tmp_path, line, said):
    body = {"variants": ["deepagents-default"], "thresholds": ["20%"], **yaml.safe_load(line)}
    assert list(_validator("experiment-spec").iter_errors(body))
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(body))
    with pytest.raises(ConfigError) as err:
        load_spec(path)
    assert str(err.value).startswith(f"{path}: ") and said in str(err.value), str(err.value)


def test_a_null_versions_or_evals_is_unset_for_the_loader_as_for_the_schema(tmp_path):
    """The schema lets ``versions: null`` and ``evals: null`` pass (each key is optional): the loader reads them as
    unset, as it reads every other key, rather than refusing what an editor showed as valid."""
    body = {"variants": ["deepagents-default"], "thresholds": ["20%"], "versions": None, "evals": None}
    assert not list(_validator("experiment-spec").iter_errors(body))
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(body))
    spec = load_spec(path)
    assert spec.versions == () and spec.evals == () and list(spec.arms()) == ["deepagents-default"]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("colour: red", "colour: unknown key; known keys: arg_truncation, description"),
        ("arg_truncation: {speed: 3}", "arg_truncation.speed: unknown key; known: keep, max_length"),
        ("arg_truncation: {max_length: long}", "arg_truncation.max_length: expected an integer or null, got str"),
        ("window: 0", "window: must be a positive integer, got 0"),
        ("mask_keep: -1", "mask_keep: must be a non-negative integer, got -1"),
        ("include: 5", "include: expected a string or null, got int"),
    ],
)
def test_a_broken_variant_is_refused_by_the_schema_and_by_the_loader(tmp_path, line, said):
    path = tmp_path / "v.md"
    path.write_text(f"---\n{line}\n---\nSummarize {{messages}}\n")
    assert list(_validator("variant").iter_errors(_front_matter(path)))
    with pytest.raises(ConfigError) as err:
        load_variant(path)
    assert str(err.value) == f"{path}: {said}" or str(err.value).startswith(f"{path}: {said}"), str(err.value)


def test_a_size_the_schema_refuses_and_no_reader_does_is_still_refused(tmp_path):
    """`keep: [tokens, 12000]` reads as a size (a pair), but a spec writes a size as text or a mapping: refused."""
    path = tmp_path / "s.yaml"
    path.write_text("variants: [deepagents-default]\nthresholds: [20%]\nkeep: [tokens, 12000]\n")
    with pytest.raises(ConfigError, match=r"s.yaml: keep"):
        load_spec(path)
