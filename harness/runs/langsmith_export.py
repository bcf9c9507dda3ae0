"""LangSmith experiments from an experiment directory, through the real SDK.

Each arm x threshold becomes one LangSmith experiment over the same examples (one
example per case). The agent runs are already done, so the target replays each cell's
stored outputs (answers, scores, metrics) and one evaluator turns every score into
feedback under its stable key. Metadata: arm, trigger, keep, window, model,
summarizer model, harness version, git commit, dataset hash.

Without LANGSMITH_API_KEY the same code runs with uploads off against a client whose
endpoint is a closed local port, so nothing waits on the network, and a summary of the
local results goes to ``langsmith.json``. With a key, the examples are uploaded once
(dataset named after the scenario files' hashes), each experiment is uploaded, and the
comparison link is printed.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness import __version__
from harness.report.experiment_report import load_experiment
from harness.scenarios.schema import Scenario, load_scenarios

_NAMESPACE = uuid.UUID("6f1c0f43-1d2b-4c8e-9a57-3f0c2a7e5b10")
OFFLINE_URL = "http://127.0.0.1:9"  # discard port: refused at once, never waited on


def offline_client():  # noqa: ANN201
    from langsmith import Client

    return Client(api_url=OFFLINE_URL, api_key="offline-no-upload", info={}, tracing_sampling_rate=0.0, auto_batch_tracing=False)


def _example_inputs(scenario: Scenario | None, case_id: str, kind: str) -> dict[str, Any]:
    if scenario is None:
        return {"case_id": case_id, "kind": kind}
    return {"case_id": case_id, "kind": kind, "task": scenario.task, "followups": list(scenario.followups)}


def _reference(scenario: Scenario | None) -> dict[str, Any]:
    if scenario is None:
        return {}
    if scenario.needles:
        return {"answer": scenario.needles[0].answer, "needle_depth": scenario.needle_depth}
    return {"expected_steps": [f"{s.tool} {s.target}".strip() for s in scenario.expected_steps]}


def export_experiment(
    path: str | Path, *, client: Any = None, upload: bool | None = None, progress: Callable[[str], None] = print
) -> dict[str, Any]:
    """One LangSmith experiment per arm x threshold. With an upload, LangSmith is asked first and every request
    is bounded (`harness.runs.langsmith_session`): when it does not answer, or fails midway, the export runs locally
    instead, says so, and langsmith.json records what was not uploaded. It never raises for LangSmith's sake."""
    path = Path(path)
    upload = bool(os.environ.get("LANGSMITH_API_KEY")) if upload is None else upload
    if not upload:
        return _export(path, client or offline_client(), False, progress)
    session = None
    if client is None:
        from harness.runs.langsmith_session import bounded_client, preflight

        client, session = bounded_client()
        problem = preflight(client)
        if problem:
            return _upload_failed(path, problem, session, progress)
    try:
        summary = _export(path, client, True, progress)
    except Exception as exc:  # noqa: BLE001
        from harness.redact import redact

        return _upload_failed(path, f"upload failed midway: {type(exc).__name__}: {redact(str(exc))[:160]}", session, progress)
    if session is not None:
        summary["requests"] = session.stats()
        (path / "langsmith.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return summary


def _upload_failed(path: Path, problem: str, session: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    progress(f"warning: LangSmith: {problem}. The experiments are built locally; nothing more is uploaded.")
    summary = _export(path, offline_client(), False, lambda _: None)
    summary["upload_failed"] = problem
    if session is not None:
        summary["requests"] = session.stats()
    (path / "langsmith.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return summary


def _export(path: Path, client: Any, upload: bool, progress: Callable[[str], None]) -> dict[str, Any]:
    from langsmith import evaluate
    from langsmith.schemas import Example

    meta, rows, _ = load_experiment(path)
    scenarios = {s.id: s for s in load_scenarios(meta["spec"].get("scenarios", {}).get("datasets") or None)}
    data_hash = "-".join(f"{k.split('.')[0]}{v}" for k, v in sorted(meta["datasets"].items()))
    cases = sorted({(r["case_id"], r["kind"]) for r in rows})
    example_ids = {case: uuid.uuid5(_NAMESPACE, f"{data_hash}:{case}") for case, _ in cases}

    dataset_id: Any = uuid.UUID(int=0)
    dataset_name = f"compaction-harness-{data_hash}"
    if upload:
        if client.has_dataset(dataset_name=dataset_name):
            dataset_id = client.read_dataset(dataset_name=dataset_name).id
        else:
            dataset = client.create_dataset(dataset_name, description="Compaction harness scenarios (one example per case).")
            dataset_id = dataset.id
            client.create_examples(
                dataset_id=dataset_id,
                examples=[
                    {
                        "id": example_ids[c],
                        "inputs": _example_inputs(scenarios.get(c), c, k),
                        "outputs": _reference(scenarios.get(c)),
                    }
                    for c, k in cases
                ],
            )
    now = datetime.now(UTC)
    examples = {
        c: Example(
            id=example_ids[c],
            dataset_id=dataset_id,
            inputs=_example_inputs(scenarios.get(c), c, k),
            outputs=_reference(scenarios.get(c)),
            created_at=now,
        )
        for c, k in cases
    }

    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        groups[(row["arm"], row.get("threshold", "-"))].append(row)
    experiments = []
    for (arm, threshold), group in sorted(groups.items()):
        by_case: dict[str, list[dict]] = defaultdict(list)
        for row in sorted(group, key=lambda r: r["trial"]):
            by_case[row["case_id"]].append(row)
        trials = min(len(v) for v in by_case.values())
        queue = {case: list(v[:trials]) for case, v in by_case.items()}

        def target(inputs: dict, _queue=queue) -> dict:
            row = _queue[inputs["case_id"]].pop(0)
            return {
                "answers": row["answers"],
                "error": row["error"],
                "scores": row["scores"],
                "metrics": row["metrics"],
                "cell_id": row.get("cell_id"),
                "events": row["events"],
            }

        def feedback(run, example) -> dict:  # noqa: ANN001
            scores = (run.outputs or {}).get("scores", {})
            return {"results": [{"key": k, "score": float(v)} for k, v in scores.items() if isinstance(v, (bool, int, float))]}

        config = group[0]["config"]
        metadata = {
            "arm": arm,
            "strategy": config.get("strategy", "deepagents-summarization"),
            "trigger": threshold,
            "keep": config.get("keep"),
            "window": config.get("window"),
            "summary_prompt": config.get("summary_prompt_name"),
            "model": group[0]["agent_model"],
            "summary_model": group[0]["summary_model"],
            "simulated": group[0]["simulated"],
            "trials": trials,
            "harness_version": __version__,
            "git_commit": meta.get("git_commit"),
            "dataset_hash": data_hash,
            "harness_experiment": meta["experiment"],
        }
        results = evaluate(
            target,
            data=[examples[c] for c in sorted(by_case)],
            evaluators=[feedback],
            experiment_prefix=f"{meta['experiment']}-{arm}-{threshold}",
            metadata=metadata,
            client=client,
            upload_results=upload,
            num_repetitions=trials,
            max_concurrency=0,
        )
        frame = results.to_pandas()
        feedback_cols = [c for c in frame.columns if c.startswith("feedback.")]
        experiments.append(
            {
                "arm": arm,
                "threshold": threshold,
                "experiment": results.experiment_name,
                "prefix": f"{meta['experiment']}-{arm}-{threshold}",
                "runs": len(frame),
                "feedback_means": {c[len("feedback.") :]: round(float(frame[c].mean()), 4) for c in feedback_cols},
            }
        )
        progress(
            f"langsmith: {results.experiment_name}: {len(frame)} runs, {len(feedback_cols)} feedback keys"
            + ("" if upload else " (local, not uploaded)")
        )
    summary: dict[str, Any] = {"uploaded": upload, "dataset": dataset_name, "experiments": experiments}
    if upload:
        summary["comparison_url"] = _comparison_url(client, dataset_id, [str(e["experiment"]) for e in experiments])
        progress(f"langsmith: compare the experiments at {summary['comparison_url']}")
    (path / "langsmith.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    return summary


def _comparison_url(client: Any, dataset_id: Any, names: list[str]) -> str:
    try:
        ids = [str(client.read_project(project_name=n).id) for n in names]
        dataset = client.read_dataset(dataset_id=dataset_id)
        base = getattr(dataset, "url", None) or f"{client._host_url}/datasets/{dataset_id}"  # noqa: SLF001
        return f"{base}/compare?selectedSessions={','.join(ids)}"
    except Exception as exc:  # noqa: BLE001 - the link is a convenience; the upload already happened
        return f"(could not build the link: {exc})"
