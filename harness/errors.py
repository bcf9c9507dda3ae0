"""The harness's own exceptions: each names what was wrong and where."""

from __future__ import annotations

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, EXIT_SKIPPED, EXIT_ERROR = 0, 1, 2, 3, 4
"""The exit codes of every command (`harness`, and a pytest eval session where it sets one; docs/live.md's table):
here, at the bottom of the layers, so that a pytest session can exit 4 as the CLI does (`harness.cli.options`
re-exports them)."""


class HarnessError(Exception):
    """Base class: a user-facing error the CLI prints without a traceback."""


class WorkerFailed(HarnessError):
    """A worker process (the spawn pool's, a version arm's) died or wrote what is not a result: the run could not finish
    its cases. Not the user's mistake: exit 4 (`EXIT_ERROR`), as for a provider outage, never 2."""


class ConfigError(HarnessError):
    """An invalid compaction setting (threshold, window, variant, prompt)."""


class DatasetError(HarnessError):
    """A malformed scenario file or row. The message names file, row and field."""

    def __init__(self, path: str, row: int | None, field: str | None, problem: str, case_id: str | None = None):
        self.path, self.row, self.field, self.problem, self.case_id = path, row, field, problem, case_id
        super().__init__(f"{dataset_location(path, row, field, case_id)}: {problem}")


def dataset_location(path: str, row: int | None, field: str | None, case_id: str | None = None) -> str:
    """Where in a scenario file: ``path: row N (id 'x'): field 'f'`` (a DatasetError's and a load warning's prefix)."""
    where = path
    if row is not None:
        where += f": row {row}"
        if case_id:
            where += f" (id {case_id!r})"
    if field:
        where += f": field {field!r}"
    return where


class LiveModelUnavailable(HarnessError):
    """A live provider model was requested but cannot be used here (no key, no package)."""


class ProviderFailed(HarnessError):
    """A live model failed outside any case (the judge proposing a session's probes at import): the CLI exits 4 (an
    ERROR, not bad input) and nothing was written."""


class EndpointUnreachable(HarnessError):
    """Nothing answers at a live model's base URL: found before the run, so no case spends its retries on it.
    The CLI exits 4 (an ERROR, not bad input)."""


class ProviderOutage(Exception):
    """A case ended in ERROR (a provider error after every retry): recorded and counted in no rate, never a failed
    eval (`harness.runs.executor.EvalSession.run_eval` raises it; pytest reports it as an error)."""
