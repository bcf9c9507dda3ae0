"""`make mutation`: mutmut over the code that decides PASS/FAIL/INVALID/ERROR and whether a difference is real.

What is mutated, and which tests are run against each mutant, is configured in pyproject.toml's ``[tool.mutmut]``;
this script adds what mutmut does not have:

- a scope finer than a file (``[tool.mutmut.scope]``: per module, the mutant-name globs that are in it, so that
  the grid's resume and merge are scored without its progress bar, and the run report's counts without its charts);
- accepted equivalent mutants with the reason each changes no behaviour (``[tool.mutmut.equivalent]``); an entry
  that no longer names a surviving mutant, or that no module of the scope holds, is reported as stale, so the list
  cannot rot silently;
- a report per module (``mutants/mutation-report.md`` and ``.json``): mutants, killed, survived, no test, score,
  and the diff of every survivor; exit 1 when the score is under ``fail_under``.

    python tools/mutation.py run [MODULE ...]    # mutmut run over the scope (all modules by default), then report
    python tools/mutation.py run --survivors     # re-run only the mutants that survived last time (after new tests)
    python tools/mutation.py run --only 'harness.scoring.scorers.x_goal_scores*'   # one function's mutants
    python tools/mutation.py run --changed origin/main --check   # the modules a change touches (a pull request)
    python tools/mutation.py report [--check]    # the report from mutmut's results; --check: exit 1 under fail_under
"""

from __future__ import annotations

import argparse
import filecmp
import fnmatch
import json
import shutil
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
KILLED = {"killed", "timeout", "caught by type check", "segfault"}


def settings() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]


def scope() -> dict[str, list[str]]:
    return dict(settings()["scope"])


def module_of(name: str, modules: dict[str, list[str]]) -> str | None:
    for module, globs in modules.items():
        if any(fnmatch.fnmatchcase(name, g) for g in globs):
            return module
    return None


def source_of(glob: str) -> str:
    """The file (or package directory) a scope glob's mutants come from: harness.runs.grid.x_plan_cells_* is in
    harness/runs/grid.py, harness.compaction.strategies.* in harness/compaction/strategies/."""
    module = glob[:-2] if glob.endswith(".*") else glob.rsplit(".", 1)[0]
    path = module.replace(".", "/")
    return path if (ROOT / path).is_dir() else path + ".py"


def touched(paths: list[str], modules: dict[str, list[str]]) -> list[str]:
    """The modules of the scope whose source is among ``paths`` (repository-relative)."""
    out = []
    for module, globs in modules.items():
        sources = {source_of(g) for g in globs}
        if any(p == s or p.startswith(s.rstrip("/") + "/") for p in paths for s in sources):
            out.append(module)
    return out


def changed_files(base: str) -> list[str]:
    """Files that differ from ``base``: committed since the merge base, and not yet committed."""
    try:
        committed = subprocess.run(
            ["git", "diff", "--name-only", f"{base}...HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        working = subprocess.run(
            ["git", "diff", "--name-only", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"error: --changed {base!r}: git diff failed: {exc.stderr.strip()}") from None
    return sorted(set(committed) | set(working))


def _refresh_copies() -> None:
    """mutmut copies the tests and data into mutants/ once and never again: bring every copy up to date, so a test
    written since the last run is the one that runs (the mutated source files mutmut regenerates itself)."""
    if not MUTANTS.exists():
        return
    cfg = settings()
    copied = [Path(p) for p in cfg.get("also_copy", [])] + [Path("tests"), Path("pyproject.toml")]
    for rel in copied:
        src, dst = ROOT / rel, MUTANTS / rel
        if src.is_dir():
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.exists() and not (dst.exists() and filecmp.cmp(src, dst, shallow=False)):
            shutil.copy2(src, dst)
    mutated = {str(p) for p in cfg.get("only_mutate", [])}
    for src in (ROOT / "harness").rglob("*.py"):
        rel = src.relative_to(ROOT)
        if any(fnmatch.fnmatch(str(rel), pattern) for pattern in mutated):
            continue
        dst = MUTANTS / rel
        if not (dst.exists() and filecmp.cmp(src, dst, shallow=False)):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    (MUTANTS / "mutmut-stats.json").unlink(missing_ok=True)  # which test covers which function: collected again


def results() -> dict[str, str]:
    """Every mutant mutmut generated, with its status (killed, survived, no tests, not checked, ...)."""
    from mutmut.stats import status_by_exit_code

    out: dict[str, str] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        for name, code in data.get("exit_code_by_key", {}).items():
            out[name] = status_by_exit_code[code]
    return out


def run(modules: list[str], survivors: bool, max_children: int, only: list[str] | None = None) -> int:
    if only:
        outside = [g for g in only if module_of(g.rstrip("*") + "__mutmut_1", scope()) is None]
        if outside:
            print(f"error: --only {outside[0]!r} names no mutant in [tool.mutmut.scope]", file=sys.stderr)
            return 2
    _refresh_copies()
    if only:
        names = list(only)
    elif survivors:
        names = [n for n, status in results().items() if status in ("survived", "no tests") and module_of(n, scope())]
        if not names:
            print("no survivors to run again")
            return 0
    else:
        all_scope = scope()
        unknown = [m for m in modules if m not in all_scope]
        if unknown:
            print(f"error: unknown module {unknown[0]!r}; the scope has: {', '.join(all_scope)}", file=sys.stderr)
            return 2
        names = [g for m in (modules or list(all_scope)) for g in all_scope[m]]
    started = time.monotonic()
    code = subprocess.call(
        [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children", str(max_children), *names], cwd=ROOT
    )
    print(f"\nmutmut run: exit {code}, {time.monotonic() - started:.0f} s")
    return code


def diff(name: str) -> str:
    """The mutant's diff, as `mutmut show` prints it (in-process: one subprocess per survivor took a second each)."""
    import os

    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return get_diff_for_mutant(name)
    except Exception as exc:  # noqa: BLE001 - a report with one diff missing beats no report
        return f"(no diff: {exc})"
    finally:
        os.chdir(cwd)


def report(check: bool, only_modules: list[str] | None = None) -> int:
    cfg, modules = settings(), scope()
    if only_modules is not None:
        modules = {m: g for m, g in modules.items() if m in only_modules}
    equivalent: dict[str, str] = dict(cfg.get("equivalent", {}))
    statuses = results()
    rows: dict[str, Counter] = {m: Counter() for m in modules}
    survivors: list[tuple[str, str]] = []
    for name, status in statuses.items():
        module = module_of(name, modules)
        if module is None:
            continue
        if status == "survived" and name in equivalent:
            status = "equivalent"
        rows[module][status] += 1
        if status in ("survived", "no tests"):
            survivors.append((module, name))
    # stale: an entry of a reported module that no longer names a survivor, or (a whole report) one no module of the
    # scope holds: its function moved or went (harness.runs.grid.x_default_keep_* once outlived the keep rule's move)
    stale = sorted(
        n
        for n in equivalent
        if (module_of(n, modules) and statuses.get(n) != "survived") or (only_modules is None and not module_of(n, scope()))
    )
    table: list[tuple[str, Counter]] = []
    total: Counter = Counter()
    for module, c in rows.items():
        total.update(c)
        table.append((module, c))
    table.append(("total", total))

    def score(c: Counter) -> float | None:
        killed = sum(c[s] for s in KILLED)
        counted = killed + c["survived"] + c["no tests"]
        return killed / counted if counted else None

    fail_under = float(cfg.get("fail_under", 90))
    lines = [
        "# Mutation score",
        "",
        "Killed: a test failed on the mutant (or it timed out). Score = killed / (killed + survived + no test);",
        "accepted equivalent mutants (`[tool.mutmut.equivalent]` in pyproject.toml, each with its reason) are not counted.",
        "",
        "| module | mutants | killed | survived | no test | equivalent | not checked | score |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for module, c in table:
        s = score(c)
        lines.append(
            f"| {module} | {sum(c.values())} | {sum(c[k] for k in KILLED)} | {c['survived']} | {c['no tests']} | "
            f"{c['equivalent']} | {c['not checked']} | {'-' if s is None else f'{100 * s:.1f} %'} |"
        )
    overall = score(total)
    unchecked = total["not checked"]
    if unchecked:
        lines += ["", f"**Incomplete**: {unchecked} mutants in scope were not checked; the score covers the others."]
    if stale:
        lines += ["", "**Stale equivalent entries** (no longer a surviving mutant; remove or update them):", ""]
        lines += [f"- `{n}`" for n in stale]
    untested = Counter(n.split("__mutmut_")[0] for _, n in survivors if statuses[n] == "no tests")
    lines += ["", f"## Functions no selected test reaches ({len(untested)}; their mutants count as not killed)", ""]
    lines += [f"- `{f}`: {n} mutants" for f, n in sorted(untested.items())]
    accepted = sorted((module_of(n, modules), n) for n in equivalent if statuses.get(n) == "survived" and module_of(n, modules))
    lines += ["", f"## Accepted equivalent mutants ({len(accepted)}; not counted, each with why it changes nothing)", ""]
    lines += [f"- `{n}` ({m}): {equivalent[n]}" for m, n in accepted]
    survived = sorted((m, n) for m, n in survivors if statuses[n] == "survived")
    lines += ["", f"## Survivors ({len(survived)})", ""]
    for module, name in survived:
        lines += [f"### {name} ({module})", "", "```diff", diff(name), "```", ""]
    MUTANTS.mkdir(exist_ok=True)
    (MUTANTS / "mutation-report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = {
        "score": overall,
        "fail_under": fail_under / 100,
        "modules": {m: {**dict(c), "score": score(c)} for m, c in table},
        "survivors": [n for _, n in sorted(survivors)],
        "stale_equivalent": stale,
    }
    (MUTANTS / "mutation-report.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print("\n".join(lines[5 : 7 + len(table)]))
    print(f"\nreport: {MUTANTS / 'mutation-report.md'}")
    if check and (overall is None or overall * 100 < fail_under or unchecked or stale):
        print(f"mutation score {'-' if overall is None else f'{100 * overall:.1f} %'} (fail under {fail_under:.0f} %)")
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="mutmut run over the scope, then the report")
    p_run.add_argument("modules", nargs="*", help="modules of [tool.mutmut.scope] (default: all)")
    p_run.add_argument("--survivors", action="store_true", help="re-run only last run's survivors")
    p_run.add_argument("--max-children", type=int, default=2)
    p_run.add_argument(
        "--only", action="append", metavar="GLOB", help="only these mutant-name globs (one function's, while testing it)"
    )
    p_run.add_argument("--changed", metavar="REF", help="only the modules whose source differs from REF (e.g. origin/main)")
    p_run.add_argument("--check", action="store_true", help="exit 1 when the score is under fail_under")
    p_report = sub.add_parser("report", help="the report from mutmut's last results")
    p_report.add_argument("--check", action="store_true", help="exit 1 when the score is under fail_under")
    args = parser.parse_args(argv)
    only_modules = None
    if args.command == "run":
        modules = args.modules
        if args.only and modules:
            parser.error(f"--only takes one glob each (repeat --only for more); {modules[0]!r} is not a glob of it")
        if args.changed:
            if modules or args.only or args.survivors:
                parser.error("--changed chooses the modules itself: give no MODULE, --only or --survivors with it")
            modules = only_modules = touched(changed_files(args.changed), scope())
            if not modules:
                print(f"no module in the mutation scope differs from {args.changed}: nothing to run")
                return 0
            print(f"modules changed since {args.changed}: {', '.join(modules)}")
        code = run(modules, args.survivors, args.max_children, args.only)
        if code not in (0, 1):
            return code
    return report(args.check, only_modules)


if __name__ == "__main__":
    sys.exit(main())
