"""One version of deepagents (or langchain, langgraph ...) against another: the ``versions:`` axis of a spec.

    versions:
      deepagents: ["0.7.6", "0.7.32"]      # arms deepagents==0.7.6 and deepagents==0.7.32 (several packages: every combination)

    versions:                              # or named pin sets: each arm pins its packages together
      - name: lock                         # no pins: the lock as it is (checked on every package a row records)
      - name: lock-2026-11-26
        pins: {langchain: "1.4.7", langchain-core: "1.7.2", anthropic: "2.12.0"}
      - name: newest
        lock: newest.lock                  # another lock file (beside the spec) in place of requirements.lock

Each version arm runs in its own environment (`ensure_env`: requirements.lock with the arm's pins as uv overrides and
the harness from this checkout, cached by a hash of them; this interpreter's when it has the pins), its cells in
worker processes of that environment's Python (`run_arm_cells`); the parent stays the only writer and checks that
every row ran the versions its arm pinned. An arm whose deepagents is outside the adapter's `SUPPORTED_DEEPAGENTS` is
refused (ConfigError, exit 2) before anything runs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._paths import REPO_ROOT
from harness._version import RECORDED_PACKAGES, package_versions
from harness.errors import ConfigError, HarnessError

LOCK = REPO_ROOT / "requirements.lock"
ENVS_ENV_VAR = "COMPACTION_HARNESS_ENVS"
READY = ".ready"  # written last: a directory without it is a creation that did not finish, made again


def normalize(name: str) -> str:
    """A package name as PyPI compares them (PEP 503): lower case, runs of ``-_.`` as one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class VersionArm:
    """One arm of a versions axis: the packages it pins, each to one version, and its name when the spec named it (a
    named arm without pins is the lock as it is, `resolved` against it)."""

    pins: tuple[tuple[str, str], ...]
    name: str | None = None
    lock: str | None = None  # another lock file the arm's environment is made from (a path); None: requirements.lock

    @property
    def label(self) -> str:
        """The arm's name in rows and reports: the name the spec gave it, else ``deepagents==0.7.6`` (several pins
        joined by commas)."""
        return self.name or ",".join(f"{name}=={version}" for name, version in self.pins)

    def resolved(self, lock: Mapping[str, str]) -> VersionArm:
        """The arm as it runs, ``lock`` the pins of the lock it is made from (`arm_lock`): an arm without pins, or with
        a lock of its own, pins that lock's version of every package a row records, its own pins over them (so its
        environment is checked as any arm's is); any other arm as it is."""
        if self.pins and self.lock is None:
            return self
        locked = {name: lock[name] for name in sorted(RECORDED) if name in lock}
        return VersionArm(tuple({**locked, **dict(self.pins)}.items()), self.name, self.lock)

    def override_text(self) -> str:
        """The uv overrides file: one ``name==version`` a line."""
        return "".join(f"{name}=={version}\n" for name, version in self.pins)


RECORDED = frozenset(normalize(p) for p in RECORDED_PACKAGES)  # what a row records (`check_row_versions` reads it)


def parse_versions(value: Mapping[str, list[str]] | list[dict[str, Any]], where: str) -> tuple[VersionArm, ...]:
    """The ``versions:`` of a spec, in the shape `harness.runs.spec.SpecFile` has checked, as arms in the order
    written: a mapping (package -> list of version strings), every combination; or a list of named pin sets
    (`parse_pin_sets`). Raises ConfigError naming ``where`` for a package the rows do not record."""
    if isinstance(value, list):
        return parse_pin_sets(value, where)
    for name in value:
        _check_recorded(name, f"{where}: versions")
    axes = [[(normalize(name), v) for v in versions] for name, versions in value.items()]
    return tuple(VersionArm(tuple(combo)) for combo in itertools.product(*axes))


def parse_pin_sets(value: list[dict[str, Any]], where: str) -> tuple[VersionArm, ...]:
    """``versions:`` as a list of named pin sets, ``{name: NAME, pins: {package: version, ...}, lock: FILE}`` each: one
    arm each, labelled by its name, pinning its packages together (no pins: the lock as it is), its environment made
    from ``lock`` (a lock file, relative to the spec's directory) when given, else requirements.lock. What the shape
    cannot say is a ConfigError naming ``where``, the arm (``versions[i]`` and its name) and the field: a package the
    rows do not record, a lock file that is not there, a pin set the same as another's."""
    arms: list[VersionArm] = []
    for i, item in enumerate(value):
        at = f"{where}: versions[{i}] ({item['name']})"
        pins = item.get("pins") or {}
        for package in pins:
            _check_recorded(package, f"{at}: pins")
        lock = item.get("lock")
        if lock is not None:
            path = Path(where).parent / lock
            if not path.is_file():
                raise ConfigError(f"{at}: lock: no such file {path}")
            lock = str(path.resolve())
        arms.append(VersionArm(tuple((normalize(p), v) for p, v in pins.items()), item["name"], lock))
    for i, arm in enumerate(arms):
        for j, other in enumerate(arms[:i]):
            if sorted(arm.pins) == sorted(other.pins) and arm.lock == other.lock:
                raise ConfigError(
                    f"{where}: versions[{i}] ({arm.name}): pins: the same as versions[{j}] ({other.name}): one arm twice"
                )
    return tuple(arms)


def _check_recorded(name: str, at: str) -> None:
    """A package the rows record (`RECORDED_PACKAGES`), or a ConfigError at ``at``."""
    if normalize(name) not in RECORDED:
        raise ConfigError(
            f"{at}: {normalize(name)!r} is not a package the rows record, so no row could show it ran the pinned "
            f"version; a package is one of {', '.join(RECORDED_PACKAGES)}"
        )


def lock_pins(text: str) -> dict[str, str]:
    """{package: version} of every ``name==version`` line of a lock file (names normalized)."""
    pins = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)", line.strip())
        if match:
            pins[normalize(match.group(1))] = match.group(2)
    return pins


def read_lock(lock: Path = LOCK) -> str:
    """requirements.lock's text; a ConfigError when the harness runs from an installed wheel, not a checkout."""
    if not lock.is_file():
        raise ConfigError(f"versions: an arm's environment is made from {lock}, which is not there (run from a checkout)")
    return lock.read_text(encoding="utf-8")


def installs(arm: VersionArm, pins: dict[str, str]) -> dict[str, str]:
    """What the arm's environment pins: the lock's pins (``pins``; an arm with a lock of its own: that lock's) with the
    arm's overriding."""
    own = lock_pins(read_lock(Path(arm.lock))) if arm.lock else pins
    return {**own, **dict(arm.pins)}


def arm_lock(arm: VersionArm, default: str) -> str:
    """The text of the lock ``arm``'s environment is made from: its own lock file, else ``default`` (requirements.lock)."""
    return read_lock(Path(arm.lock)) if arm.lock else default


def check_supported(arms: Sequence[VersionArm], pins: dict[str, str], where: str) -> None:
    """Refuse (ConfigError: exit 2) an arm whose deepagents, pinned by the arm or else by the lock, is outside the
    adapter's `SUPPORTED_DEEPAGENTS`, naming the arm, the version and the range."""
    from harness._deepagents_adapter import SUPPORTED_DEEPAGENTS, supports_deepagents  # langchain_core: not at load_spec

    low, high = SUPPORTED_DEEPAGENTS
    for arm in arms:
        version = installs(arm, pins).get("deepagents")
        if version is None or not supports_deepagents(version):
            raise ConfigError(
                f"{where}: versions: arm {arm.label} installs deepagents {version or '(not pinned)'}, outside the range "
                f"the harness's adapter supports ({low} to {high}, harness/_deepagents_adapter.py SUPPORTED_DEEPAGENTS)"
            )


def envs_dir() -> Path:
    """Where arm environments are cached: $COMPACTION_HARNESS_ENVS, else ~/.cache/compaction-harness/envs."""
    configured = os.environ.get(ENVS_ENV_VAR)
    return Path(configured) if configured else Path.home() / ".cache" / "compaction-harness" / "envs"


def env_key(lock_text: str, arm: VersionArm) -> str:
    """The cache key of an arm's environment: the lock, the pins, this Python's version and the checkout the harness
    is installed from (editable, so code changes need no new environment, and two checkouts never share one)."""
    payload = json.dumps([lock_text, arm.override_text(), list(sys.version_info[:2]), str(REPO_ROOT)])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ArmEnv:
    """Where an arm runs: the Python to start, whether it was created just now, and what creating it cost."""

    python: str
    path: Path | None  # None: this interpreter's own environment
    created: bool
    seconds: float


Runner = Callable[[list[str]], None]


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise HarnessError(f"{' '.join(command[:4])} ... failed (exit {done.returncode}):\n{done.stderr[-2000:]}")


def find_uv() -> str:
    """The uv executable beside this Python or on PATH (requirements-dev.lock pins it)."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if not found:
        raise ConfigError("versions: arm environments are made with uv, which is not installed (pip install uv)")
    return found


def ensure_env(
    arm: VersionArm,
    lock_text: str,
    *,
    root: Path | None = None,
    run: Runner = _run,
    current: dict[str, str | None] | None = None,
    uv: str | None = None,
) -> ArmEnv:
    """The environment ``arm`` runs in: this interpreter's when it already has every pin (``current``: installed
    versions, default `package_versions` of the pinned packages), a cached one when made before, else a new one made
    with uv (``run`` runs each command; tests pass a fake)."""
    have = current if current is not None else package_versions(tuple(name for name, _ in arm.pins))
    if all(have.get(name) == version for name, version in arm.pins):
        return ArmEnv(sys.executable, None, False, 0.0)
    path = (root or envs_dir()) / env_key(lock_text, arm)
    python = str(path / "venv" / "bin" / "python")
    if (path / READY).is_file():
        return ArmEnv(python, path, False, 0.0)
    started = time.perf_counter()
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    (path / "requirements.lock").write_text(lock_text, encoding="utf-8")
    (path / "overrides.txt").write_text(arm.override_text(), encoding="utf-8")
    uv = uv or find_uv()
    run([uv, "venv", "--quiet", "--python", sys.executable, str(path / "venv")])
    install = [uv, "pip", "install", "--quiet", "--compile-bytecode", "--python", python]  # bytecode: docs/performance.md
    run([*install, "-r", str(path / "requirements.lock"), "--overrides", str(path / "overrides.txt")])
    run([*install, "--no-deps", "-e", str(REPO_ROOT)])
    seconds = round(time.perf_counter() - started, 2)
    (path / READY).write_text(json.dumps({"arm": arm.label, "python": python, "seconds": seconds}) + "\n", encoding="utf-8")
    return ArmEnv(python, path, True, seconds)


def check_row_versions(row: Mapping[str, Any], arm: VersionArm) -> None:
    """A row from an arm's worker must have run the versions the arm pins (a HarnessError otherwise: an environment
    that installed something else measured the wrong thing)."""
    recorded = {normalize(k): v for k, v in (row.get("packages") or {}).items()}
    wrong = [f"{name} {recorded.get(name)} (pinned {version})" for name, version in arm.pins if recorded.get(name) != version]
    if wrong:
        raise HarnessError(f"arm {arm.label}: cell {row.get('cell_id')} ran with {', '.join(wrong)}")


Emit = Callable[[Mapping[str, Any], dict[str, Any] | None], None]  # (row, trace), or (a not-run record, None)


def run_arm_cells(
    spec_path: str,
    python: str,
    cells: Sequence[tuple[Any, int]],
    workers: int,
    emit: Emit,
    replaced: dict[str, Any] | None = None,
    worker: Sequence[str] | None = None,
) -> None:
    """Run ``cells`` ((Cell, attempt) pairs) of one arm in ``workers`` processes of ``python`` (`harness.runs.worker`,
    through `harness.runs.pool.stream`; ``worker``: another command, for tests); ``emit(row, trace)`` here as each
    finishes. ``replaced``: the command line's settings for the spec (``max_rps``, ``max_tpm``: the grid's); each worker
    runs its share of ``workers`` cells in flight and of those limits (`harness.runs.pool.worker_share`)."""
    from harness.runs.pool import WORKER, stream, worker_share  # here: spec loading imports this module, not the pool

    chunks = [list(cells[i :: max(1, workers)]) for i in range(max(1, min(workers, len(cells))))]
    share = dict(replaced or {})
    share["concurrency"], rps, tpm = worker_share(workers, len(chunks), share.get("max_rps"), share.get("max_tpm"))
    share.update({k: v for k, v in (("max_rps", rps), ("max_tpm", tpm)) if v is not None})
    jobs = [
        {
            "spec": spec_path,
            "replace": share,
            "cells": [[c.arm, c.threshold, c.case_id, c.trial, attempt, c.eval] for c, attempt in chunk],
        }
        for chunk in chunks
    ]
    stream(python, jobs, lambda record: emit(record["row"], record["trace"]), worker or WORKER)
