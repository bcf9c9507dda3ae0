"""The one LangSmith writer: experiments from an experiment directory through the real SDK (`export_experiment`), and
each case of a pytest session through the langsmith pytest plugin (`log_test_case`), both by one feedback rule
(`feedback_for`).

Each arm x threshold becomes one LangSmith experiment over the same examples (one
example per case). The agent runs are already done, so the target replays each cell's
stored outputs (answers, scores, metrics) and one evaluator turns the scores into
feedback. Metadata (`experiment_metadata`, which a pytest session's experiment carries too): arm, strategy, trigger,
keep, window, summary prompt, models, harness version, git commit; and the trials and the dataset hash.

What keys what:

- **The dataset** is named after the scenario files the experiment read and their
  content hashes (``compaction-harness-goal<sha>-needle<sha>``): experiments over the
  same files land in the same dataset, and LangSmith compares them there.
- **An example's id** is a uuid5 of the dataset name, the case id and a hash of the
  example's content (inputs and reference outputs). Every export lists which of its
  examples the dataset already holds and creates the missing ones, so every run
  references an example that exists, whichever subset of cases an earlier export
  uploaded. A case whose content changed gets a new id, never the old example.

Each replayed case carries its model calls as child ``llm`` runs with ``usage_metadata`` (agent, summarizer, subagent,
tool, and a provider's compaction passes: `harness.langsmith.llm`), so the experiments' token and cost columns fill.

Feedback means what the local report means: ``outcome`` (PASS, FAIL, INVALID, ERROR or KNOWN_UPSTREAM, a
category with no score) for every run; the validity scores for every run that did not end
in ERROR; ``passed`` (1 when every check held) and every check and measurement only for
valid runs (PASS or FAIL). LangSmith's feedback columns average a key over the runs that
carry it, so its ``passed`` column is the local pass rate over valid runs, never diluted
by an INVALID or errored run (`FEEDBACK_COVERAGE`, also written to ``langsmith.json``). A pytest session's cases
carry the same feedback (`log_test_case`).

Without LANGSMITH_API_KEY the same code runs with uploads off against a client whose
endpoint is a closed local port, so nothing waits on the network; the experiments are
named ``<experiment>-<arm>-<threshold>`` and a summary of them goes to ``langsmith.json``.
With a key, uploads share the process's one bounded LangSmith client
(`harness.langsmith.session.connect`), LangSmith appends a short suffix to each
experiment's name to keep it unique, and the comparison link is printed. The SDK's own
console output (a beta warning about ``upload_results``, a start line, progress bars) is
kept off the console; the CLI sets ``TQDM_DISABLE``, tqdm's documented switch.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import uuid
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness._version import __version__
from harness.compaction.config import DEFAULT_STRATEGY
from harness.rows import CellRow, ExperimentMeta
from harness.runs.results import LEGACY_VALIDITY_KEYS, VALID, read_experiment, row_outcome
from harness.scenarios.schema import Scenario, load_scenarios
from harness.scoring.scorers import ERROR, PASS

_NAMESPACE = uuid.UUID("6f1c0f43-1d2b-4c8e-9a57-3f0c2a7e5b10")
OFFLINE_URL = "http://127.0.0.1:9"  # discard port: refused at once, never waited on
FEEDBACK_COVERAGE = {
    "outcome": "every run: PASS, FAIL, INVALID, ERROR or KNOWN_UPSTREAM, a category (no score, nothing averaged)",
    "validity scores (the row's `validity` keys, e.g. compacted)": "every run that did not end in ERROR",
    "passed, every check and every measurement": "valid runs only (PASS or FAIL), as the local report counts them",
}


def offline_client():  # noqa: ANN201
    from langsmith import Client

    return Client(api_url=OFFLINE_URL, api_key="offline-no-upload", info={}, tracing_sampling_rate=0.0, auto_batch_tracing=False)


def _example_inputs(scenario: Scenario | None, case_id: str, kind: str) -> dict[str, Any]:
    if scenario is None:
        return {"case_id": case_id, "kind": kind}
    inputs = {"case_id": case_id, "kind": kind, "task": scenario.task, "followups": list(scenario.followups)}
    return {**inputs, **session_example_inputs(scenario)}


def session_example_inputs(scenario: Scenario) -> dict[str, Any]:
    """A session case's example carries its session: where it was imported from and cut, and the recorded prefix the
    case continues (redacted, as every output is); nothing for any other case."""
    if scenario.session is None:
        return {}
    from dataclasses import asdict

    from harness.redact import redact

    def scrubbed(value: Any) -> Any:  # noqa: ANN401 - a recorded message's field: every string in it redacted
        if isinstance(value, str):
            return redact(value)
        if isinstance(value, list):
            return [scrubbed(v) for v in value]
        return {k: scrubbed(v) for k, v in value.items()} if isinstance(value, dict) else value

    session = {**asdict(scenario.session), "compactions": list(scenario.session.compactions)}
    return {"session": session, "conversation": [scrubbed(m) for m in scenario.conversation]}


def session_reference(scenario: Scenario) -> dict[str, Any]:
    """A session case's reference outputs: its probes (question, right and stale answers, type, stating message)."""
    keys = ("id", "question", "type", "message", "origin")
    return {
        "probes": [
            {**{k: getattr(p, k) for k in keys}, "expected": list(p.expected), "stale": list(p.stale)} for p in scenario.probes
        ]
    }


def _reference(scenario: Scenario | None) -> dict[str, Any]:
    if scenario is None:
        return {}
    if scenario.probes:
        return session_reference(scenario)
    if scenario.needles:
        return {"answer": scenario.needles[0].answer, "needle_depth": scenario.needle_depth}
    return {"expected_steps": [f"{s.tool} {s.target}".strip() for s in scenario.expected_steps]}


def example_record(dataset_name: str, scenario: Scenario | None, case_id: str, kind: str) -> dict[str, Any]:
    """A case's example: its id is keyed by the dataset, the case and the example's content (see the module doc)."""
    inputs, outputs = _example_inputs(scenario, case_id, kind), _reference(scenario)
    content = hashlib.sha256(json.dumps([inputs, outputs], sort_keys=True, default=str).encode()).hexdigest()[:16]
    return {
        "id": uuid.uuid5(_NAMESPACE, f"{dataset_name}:{case_id}:{content}"),
        "inputs": inputs,
        "outputs": outputs,
        "metadata": {"case_id": case_id, "content_sha": content},
    }


def feedback_for(row_outputs: dict[str, Any]) -> list[dict[str, Any]]:
    """The feedback of one replayed run (`FEEDBACK_COVERAGE`): what LangSmith averages is what the local report counts."""
    outcome = row_outputs["outcome"]
    validity = set(row_outputs["validity"])
    numeric = {k: float(v) for k, v in row_outputs["scores"].items() if isinstance(v, (bool, int, float))}
    results: list[dict[str, Any]] = [{"key": "outcome", "value": outcome}]
    if outcome != ERROR:
        results += [{"key": k, "score": v} for k, v in numeric.items() if k in validity]
    if outcome in VALID:
        results.append({"key": "passed", "score": float(outcome == PASS)})
        results += [{"key": k, "score": v} for k, v in numeric.items() if k not in validity]
    return results


def experiment_metadata(
    config: Mapping[str, Any],
    *,
    arm: str,
    trigger: Any,
    model: str | None,
    summary_model: str | None,
    simulated: Any,
    git_commit: str | None,
    agent: str | None = None,
) -> dict[str, Any]:
    """The metadata every LangSmith experiment carries, an export's (one per arm x threshold) and a pytest session's:
    the arm, its compaction settings (``config``: a config's ``to_dict``, which omits the default strategy), the
    models, whether they were simulated, the harness version and the git commit; ``agent``: the user's own assembly
    the cases ran on (`harness.agent.assembly`), only when there is one."""
    return {
        "arm": arm,
        "strategy": config.get("strategy", DEFAULT_STRATEGY),
        "trigger": trigger,
        "keep": config.get("keep"),
        "window": config.get("window"),
        "summary_prompt": config.get("summary_prompt_name"),
        "model": model,
        "summary_model": summary_model,
        "simulated": simulated,
        "harness_version": __version__,
        "git_commit": git_commit,
        **({"agent": agent} if agent is not None else {}),
    }


def log_test_case(scenario: Scenario, row: Mapping[str, Any], scores: list[Any], trace: Any, testing: Any = None) -> list[str]:
    """The pytest path's writer (the LangSmith pytest plugin's ``langsmith.testing``, or ``testing``): the case's
    inputs, its outputs with a compact trace summary (no message bodies), and its feedback by the rule every LangSmith
    path uses (`feedback_for`): an INVALID or ERROR case carries its outcome and validity feedback only, never a check
    that would enter LangSmith's averaged columns. Returns the feedback keys logged."""
    if testing is None:
        from langsmith import testing
    testing.log_inputs(
        {"case_id": scenario.id, "kind": scenario.kind, "task": scenario.task, "followups": list(scenario.followups)}
    )
    summary = {}
    if trace is not None:
        summary = {
            "agent_call_tokens": [c["approx_tokens"] for c in trace.agent_calls()],
            "events": [{"type": e["type"], "call": e.get("call")} for e in trace.events],
            "summarizer_calls": len(trace.summarizer_calls()),
        }
    keys = ("outcome", "answers", "error", "events", "tokens")
    testing.log_outputs({**{k: row[k] for k in keys}, "trace_summary": summary})
    explanations = {s.key: s.explanation for s in scores}
    numeric = {k: v for k, v in (row.get("scores") or {}).items() if isinstance(v, (bool, int, float))}
    logged = []
    for fb in feedback_for({"outcome": row["outcome"], "validity": row.get("validity") or [], "scores": numeric}):
        if "score" in fb:
            testing.log_feedback(key=fb["key"], score=fb["score"], comment=(explanations.get(fb["key"]) or "")[:500])
        else:
            testing.log_feedback(key=fb["key"], value=fb["value"])
        logged.append(fb["key"])
    return logged


def export_experiment(
    path: str | Path, *, client: Any = None, upload: bool | None = None, progress: Callable[[str], None] = print
) -> dict[str, Any]:
    """One LangSmith experiment per arm x threshold. With an upload, LangSmith is asked first and every request
    is bounded (`harness.langsmith.session`): when it does not answer, or fails midway, the export runs locally
    instead, says so, and langsmith.json records what was not uploaded. It never raises for LangSmith's sake."""
    path = Path(path)
    if upload is None:
        from harness.langsmith.session import upload_requested

        upload = upload_requested()
        if not upload:
            progress(
                "langsmith: LANGSMITH_API_KEY is not set, so the experiments are built locally (langsmith.json), not uploaded"
            )
    if not upload:
        return _export(path, client or offline_client(), False, progress)
    session = None
    if client is None:
        from harness.langsmith.session import connect

        ls = connect()
        session = ls.session
        if ls.problem:
            return _upload_failed(path, ls.problem, session, progress)
        client = ls.client
    try:
        summary = _export(path, client, True, progress)
    except Exception as exc:  # noqa: BLE001
        from harness.redact import redact

        return _upload_failed(path, f"upload failed midway: {type(exc).__name__}: {redact(str(exc))[:160]}", session, progress)
    if session is not None:
        stats = summary["requests"] = session.stats()
        if session.open:  # the SDK logs a failed feedback or run upload and goes on: the breaker knows
            summary["upload_incomplete"] = f"stopped after {session.why_open()}; {stats['not_sent']} request(s) not sent"
            progress(f"warning: LangSmith: the upload is incomplete: {summary['upload_incomplete']}")
        _write(path, summary)
    return summary


def _write(path: Path, summary: dict[str, Any]) -> None:
    (path / "langsmith.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")


def _upload_failed(path: Path, problem: str, session: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    progress(f"warning: LangSmith: {problem}. The experiments are built locally; nothing more is uploaded.")
    summary = _export(path, offline_client(), False, lambda _: None)
    summary["upload_failed"] = problem
    if session is not None:
        summary["requests"] = session.stats()
    _write(path, summary)
    return summary


@contextlib.contextmanager
def _sdk_quiet() -> Iterator[None]:
    """The SDK's console chatter off: its beta warning for ``upload_results`` and the start line it prints (with a
    literal ``%s``: the SDK passes print() a logging-style format). Our own lines say what happened."""
    from langsmith._internal._beta_decorator import LangSmithBetaWarning

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore", LangSmithBetaWarning)
        yield


def _stale_files(meta: ExperimentMeta, scenarios: list[Scenario]) -> set[str]:
    """Scenario files whose content changed since the experiment ran (their cases' current text is not what ran)."""
    from harness.runs.run import dataset_hashes

    recorded = meta.get("datasets") or {}
    return {name for name, sha in dataset_hashes(scenarios).items() if name in recorded and recorded[name] != sha}


def _upload_examples(client: Any, dataset_name: str, records: list[dict[str, Any]]) -> tuple[Any, dict[str, int]]:
    """The dataset (made when new) and the examples it lacks (made now): every run will reference one that exists."""
    if client.has_dataset(dataset_name=dataset_name):
        dataset_id = client.read_dataset(dataset_name=dataset_name).id
    else:
        dataset_id = client.create_dataset(dataset_name, description="Compaction harness scenarios (one example per case).").id
    wanted = [r["id"] for r in records]
    present: set[str] = set()
    for start in range(0, len(wanted), 50):  # a bounded query string per request
        present |= {str(e.id) for e in client.list_examples(dataset_id=dataset_id, example_ids=wanted[start : start + 50])}
    missing = [r for r in records if str(r["id"]) not in present]
    if missing:
        client.create_examples(dataset_id=dataset_id, examples=missing)
    return dataset_id, {"examples": len(records), "created": len(missing), "already_there": len(records) - len(missing)}


def _feedback_summary(frame: Any) -> tuple[dict[str, float | None], dict[str, int]]:
    """Each numeric feedback key's mean and n over the runs that carry it, as LangSmith averages its columns."""
    means: dict[str, float | None] = {}
    counts: dict[str, int] = {}
    for column in [c for c in frame.columns if c.startswith("feedback.") and c != "feedback.outcome"]:
        values = frame[column].dropna()
        key = column[len("feedback.") :]
        counts[key] = len(values)
        means[key] = round(float(values.astype(float).mean()), 4) if len(values) else None
    return means, counts


def _export(path: Path, client: Any, upload: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    from langsmith import evaluate
    from langsmith.schemas import Example

    meta, rows = read_experiment(path)
    scenarios = {s.id: s for s in load_scenarios(meta["spec"].get("scenarios", {}).get("datasets") or None)}
    data_hash = "-".join(f"{k.split('.')[0]}{v}" for k, v in sorted(meta["datasets"].items()))
    dataset_name = f"compaction-harness-{data_hash}"
    cases = sorted({(r["case_id"], r["kind"]) for r in rows})
    stale = _stale_files(meta, [scenarios[c] for c, _ in cases if c in scenarios])
    if stale:
        progress(
            f"warning: {', '.join(sorted(stale))} changed since the experiment ran: their cases' examples carry only "
            "the case id and kind, not today's text"
        )
    content = {c: None if c not in scenarios or Path(scenarios[c].source).name in stale else scenarios[c] for c, _ in cases}
    records = {c: example_record(dataset_name, content[c], c, k) for c, k in cases}

    dataset_id: Any = uuid.UUID(int=0)
    example_counts = {"examples": len(records), "created": 0, "already_there": 0}
    if upload:
        dataset_id, example_counts = _upload_examples(client, dataset_name, list(records.values()))
    now = datetime.now(UTC)
    examples = {
        c: Example(
            id=r["id"], dataset_id=dataset_id, inputs=r["inputs"], outputs=r["outputs"], metadata=r["metadata"], created_at=now
        )
        for c, r in records.items()
    }

    groups: dict[tuple[str, str], list[CellRow]] = defaultdict(list)
    for row in rows:
        groups[(str(row["arm"]), row["threshold"])].append(row)
    experiments = []
    for (arm, threshold), group in sorted(groups.items()):
        by_case: dict[str, list[CellRow]] = defaultdict(list)
        for row in sorted(group, key=lambda r: r["trial"]):
            by_case[row["case_id"]].append(row)
        trials = min(len(v) for v in by_case.values())
        queue = {case: list(v[:trials]) for case, v in by_case.items()}
        replayed = [r for v in queue.values() for r in v]

        def target(inputs: dict, _queue=queue) -> dict:
            row = _queue[inputs["case_id"]].pop(0)
            _replay_calls(path, row)
            return {
                "outcome": row_outcome(row)[0],
                "validity": list(row.get("validity", LEGACY_VALIDITY_KEYS)),
                "answers": row["answers"],
                "error": row["error"],
                "scores": row["scores"],
                "metrics": row["metrics"],
                "cell_id": row.get("cell_id"),
                "events": row["events"],
                **({"session": row["session"]} if row.get("session") else {}),  # per probe: the arm's and the control's verdicts
            }

        def feedback(run, example) -> dict:  # noqa: ANN001
            return {"results": feedback_for(run.outputs or {})}

        name = f"{meta['experiment']}-{arm}-{threshold}"
        metadata = {
            **experiment_metadata(
                group[0]["config"],
                arm=arm,
                trigger=threshold,
                model=group[0]["agent_model"],
                summary_model=group[0]["summary_model"],
                simulated=group[0]["simulated"],
                git_commit=meta.get("git_commit"),
                agent=meta.get("agent"),
            ),
            "trials": trials,
            "dataset_hash": data_hash,
            "harness_experiment": meta["experiment"],
        }
        with _sdk_quiet():
            results = evaluate(
                target,
                data=[examples[c] for c in sorted(by_case)],
                evaluators=[feedback],
                experiment_prefix=name,
                description=f"harness experiment {meta['experiment']}: arm {arm} at threshold {threshold}, {trials} trial(s)",
                metadata=metadata,
                client=client,
                upload_results=upload,
                num_repetitions=trials,
                max_concurrency=0,
            )
        frame = results.to_pandas()
        means, counts = _feedback_summary(frame)
        outcomes = Counter(row_outcome(r)[0] for r in replayed)
        # Offline the SDK names its local run afresh at every step (a random adjective-noun): the name is ours.
        experiment_name = results.experiment_name if upload else name
        experiments.append(
            {
                "arm": arm,
                "threshold": threshold,
                "experiment": experiment_name,
                "prefix": name,
                "runs": len(frame),
                "outcomes": {k: outcomes[k] for k in sorted(outcomes)},
                "valid_runs": sum(outcomes[k] for k in VALID),
                "feedback_means": means,
                "feedback_n": counts,
            }
        )
        progress(
            f"langsmith: {experiment_name}: {len(frame)} runs ({', '.join(f'{n} {k}' for k, n in sorted(outcomes.items()))}), "
            f"{len(counts) + 1} feedback keys" + ("" if upload else " (local, not uploaded)")
        )
    summary: dict[str, Any] = {
        "uploaded": upload,
        "dataset": dataset_name,
        "examples": example_counts,
        "feedback_averaged_over": FEEDBACK_COVERAGE,
        "experiments": experiments,
    }
    if stale:
        summary["changed_scenario_files"] = sorted(stale)
    if upload:
        summary["comparison_url"] = _comparison_url(client, dataset_id, [str(e["experiment"]) for e in experiments])
        progress(f"langsmith: compare the experiments at {summary['comparison_url']}")
    _write(path, summary)
    return summary


def _replay_calls(path: Path, row: CellRow) -> None:
    """The case's model calls as ``llm`` runs under its replayed run (`harness.langsmith.llm`): LangSmith's
    token and cost columns come from them. A row without a trace file (deleted, or never written) logs none."""
    from harness.langsmith.llm import emit_llm_runs
    from harness.trace.schema import load_trace

    file = path / str(row.get("trace") or "")
    if row.get("trace") and file.is_file():
        emit_llm_runs(load_trace(file))


def _comparison_url(client: Any, dataset_id: Any, names: list[str]) -> str:
    try:
        ids = [str(client.read_project(project_name=n).id) for n in names]
        dataset = client.read_dataset(dataset_id=dataset_id)
        base = getattr(dataset, "url", None) or f"{client._host_url}/datasets/{dataset_id}"  # noqa: SLF001
        return f"{base}/compare?selectedSessions={','.join(ids)}"
    except Exception as exc:  # noqa: BLE001 - the link is a convenience; the upload already happened
        return f"(could not build the link: {type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''})"
