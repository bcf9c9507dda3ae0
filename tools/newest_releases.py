"""The newest releases against the lock: what the next `make lock` would move, and whether it changes an outcome.

    python tools/newest_releases.py --out reports/newest      # the nightly workflow's `newest-releases` job

1. Compiles pyproject.toml's dependencies with every exact pin lifted (``name==V`` becomes ``name>=V``) and
   ``--upgrade`` into ``OUT/newest.lock`` (uv pip compile, as `make lock` does; needs the package index).
2. Runs a spec (default datasets/experiments/smoke.yaml) with a versions axis of two named pin sets: ``lock``
   (requirements.lock as it is) and ``newest`` (its environment made from ``newest.lock``), offline.
3. Writes ``OUT/report.md``: the lock diff (every package whose pin moved, was added or dropped) and the outcome diff
   (each arm's outcomes, and every paired cell whose outcome, calls, summaries or peak context moved: the experiment
   report's own pairing, `harness.report.versions_report.changed_cells`), with a link to the experiment's report.

Exit 0 when no paired cell changed its outcome, 1 when one did (the report says which), 2 on bad input. Nothing is
written to the checkout: the locks stay as they are until someone runs `make lock`.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "datasets" / "experiments" / "smoke.yaml"
Run = Callable[[list[str]], None]


def lifted_pins(pyproject: str) -> str:
    """An overrides file that lifts every exact pin of pyproject.toml's dependencies to a floor (``name>=V``), so
    ``--upgrade`` may move it; one requirement a line."""
    deps = tomllib.loads(pyproject)["project"]["dependencies"]
    lines = []
    for dep in deps:
        match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;]+)\s*$", dep)
        if match:
            lines.append(f"{match.group(1)}>={match.group(2)}\n")
    return "".join(lines)


def compile_newest(out: Path, run: Run, uv: str) -> Path:
    """``out/newest.lock``: pyproject.toml compiled with its exact pins lifted and every package upgraded."""
    overrides = out / "lifted.txt"
    overrides.write_text(lifted_pins((ROOT / "pyproject.toml").read_text(encoding="utf-8")), encoding="utf-8")
    lock = out / "newest.lock"
    run(
        [uv, "pip", "compile", str(ROOT / "pyproject.toml"), "--python-version", "3.11", "--quiet", "--upgrade",
         "--overrides", str(overrides), "--custom-compile-command", "python tools/newest_releases.py", "-o", str(lock)]
    )  # fmt: skip
    return lock


def lock_diff(old: dict[str, str], new: dict[str, str]) -> list[tuple[str, str, str]]:
    """(package, lock's version or '(none)', newest or '(none)') for every package that moved, came or went, sorted."""
    names = sorted(set(old) | set(new))
    return [(n, old.get(n, "(none)"), new.get(n, "(none)")) for n in names if old.get(n) != new.get(n)]


def write_spec(out: Path, base: Path, lock: Path) -> Path:
    """``out/newest.yaml``: the spec at ``base`` with the versions axis lock against newest, named newest-releases."""
    spec = yaml.safe_load(base.read_text(encoding="utf-8"))
    for key in ("versions", "baseline"):  # the baseline: the first arm, the first variant or strategy at the lock
        spec.pop(key, None)
    spec.update({"name": "newest-releases", "versions": [{"name": "lock"}, {"name": "newest", "lock": lock.name}]})
    path = out / "newest.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def report(diff: Sequence[tuple[str, str, str]], rows: Sequence[dict[str, Any]], baseline: str, experiment: Path) -> str:
    """The report's Markdown: the lock diff, each arm's outcomes, the paired cells that moved."""
    from harness.report.versions_report import changed_cells, version_baselines

    lines = ["# The newest releases against the lock", ""]
    if diff:
        lines += ["| package | lock | newest |", "|---|---|---|", *(f"| {n} | {a} | {b} |" for n, a, b in diff), ""]
    else:
        lines += ["The lock is current: no package would move.", ""]
    arms = list(dict.fromkeys(str(r["arm"]) for r in rows))
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        tally = counts.setdefault(str(row["arm"]), {})
        tally[str(row["outcome"])] = tally.get(str(row["outcome"]), 0) + 1
    lines += ["## Outcomes", "", "| arm | outcomes |", "|---|---|"]
    lines += [f"| {a} | {', '.join(f'{k} {v}' for k, v in sorted(counts[a].items()))} |" for a in arms]
    changed = changed_cells(rows, baseline, version_baselines(arms, baseline))  # type: ignore[arg-type]
    lines += ["", "## Paired cells that moved", ""]
    lines += [changed.to_markdown(index=False) if not changed.empty else "None: every paired cell is the same.", ""]
    lines += [f"The experiment's own report: `{experiment / 'report.md'}`.", ""]
    return "\n".join(lines)


def outcome_moved(rows: Sequence[dict[str, Any]], baseline: str) -> bool:
    """Some paired cell's outcome differs between the arms."""
    from harness.report.versions_report import changed_cells, version_baselines

    arms = list(dict.fromkeys(str(r["arm"]) for r in rows))
    changed = changed_cells(rows, baseline, version_baselines(arms, baseline))  # type: ignore[arg-type]
    return bool(not changed.empty and (changed["outcome"] != "").any())


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} ... failed (exit {done.returncode}):\n{done.stderr[-2000:]}")


def main(argv: Sequence[str] | None = None, run: Run = _run) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the newest lock, the spec and the report go")
    parser.add_argument("--spec", type=Path, default=SMOKE, help="the spec run on both arms (default: smoke.yaml)")
    args = parser.parse_args(argv)
    if not args.spec.is_file():
        print(f"error: --spec {args.spec}: no such file", file=sys.stderr)
        return 2
    from harness.cli.main import main as harness
    from harness.runs.versions import find_uv, lock_pins, read_lock

    args.out.mkdir(parents=True, exist_ok=True)
    lock = compile_newest(args.out, run, find_uv())
    diff = lock_diff(lock_pins(read_lock()), lock_pins(lock.read_text(encoding="utf-8")))
    spec = write_spec(args.out, args.spec, lock)
    code = harness(["experiment", "run", str(spec), "--out", str(args.out), "--no-langsmith"])
    if code != 0:
        print(f"error: the experiment exited {code}", file=sys.stderr)
        return code
    experiment = args.out / "newest-releases"
    rows = [json.loads(line) for line in (experiment / "cells.jsonl").read_text(encoding="utf-8").splitlines() if line]
    baseline = json.loads((experiment / "meta.json").read_text(encoding="utf-8"))["baseline"]
    (args.out / "report.md").write_text(report(diff, rows, baseline, experiment), encoding="utf-8")
    print(f"report: {args.out / 'report.md'}")
    return 1 if outcome_moved(rows, baseline) else 0


if __name__ == "__main__":
    sys.exit(main())
