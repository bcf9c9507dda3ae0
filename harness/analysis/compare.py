"""Statistics for comparing arms: intervals, paired tests against a baseline, pass@k.

- A rate (a yes/no metric) is reported as its mean with a Wilson 95 % interval; any
  other metric with a percentile-bootstrap 95 % interval of the mean.
- An arm is compared with the baseline on paired units: the same case, threshold
  and trial (and eval; a case run as no eval pairs only with itself run as no eval). Rates use
  an exact McNemar test on the discordant pairs; other metrics a sign-flip permutation test
  on the paired differences (exact up to 16 pairs, else 20,000 seeded random flips with p = (b + 1) / (m + 1), never 0). Both are checked
  against scipy.stats (binomtest, permutation_test) in the tests. The difference's interval is a paired bootstrap. p values
  are Holm-adjusted across the arms compared for one metric and threshold, and
  "significant" means adjusted p < 0.05.
- pass@k (at least one of k trials passes) and pass^k (all k pass) use the unbiased
  estimators over n trials per case, averaged over cases.

Every figure carries its n. Bootstrap and permutation draws are seeded: the same
results give the same report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from harness.compaction.config import DEFAULT_STRATEGY, ContextSize
from harness.rows import eval_label
from harness.runs.results import VALID, row_outcome
from harness.scoring.metrics import RATE_METRICS, VALUE_METRICS
from harness.scoring.scorers import ERROR, FAIL, INVALID, KNOWN_UPSTREAM, PASS
from harness.stats import wilson

ALPHA = 0.05
BOOTSTRAP = 2000
PERMUTATIONS = 20_000
SEED = 20261122
UNIT = ["case_id", "threshold", "trial"]


def pairing_unit(frame: pd.DataFrame) -> list[str]:
    """The paired unit of ``frame``: the same case, threshold and trial, and the same eval when the frame names it (a
    case run as two evals is two units, never paired across evals; a case run as no eval pairs only with the same
    case run as no eval: `cells_frame` labels it "<kind> cases, no eval")."""
    return [*UNIT, "eval"] if "eval" in frame.columns else UNIT


def cells_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per case run: ids, ``eval`` (what it ran as, `harness.rows.eval_label`: an ad-hoc run's is "<kind>
    cases, no eval", never the eval of its kind), ``outcome`` (PASS / FAIL / INVALID), ``valid``, ``passed`` (every
    check held; None for an invalid run, which counts in no rate), and every metric."""
    out = []
    for row in rows:
        result, reasons = row_outcome(row)
        valid = result in VALID
        item = {
            "arm": row.get("arm"),
            "eval": eval_label(row),
            "strategy": row.get("strategy", DEFAULT_STRATEGY),
            "threshold": row.get("threshold") or _threshold_label(row.get("config", {})),
            "case_id": row["case_id"],
            "kind": row["kind"],
            "trial": row.get("trial", 0),
            "outcome": result,
            "invalid_reasons": ",".join(reasons) if result == INVALID else "",
            "error_cause": ",".join(reasons) if result == ERROR else "",
            "valid": valid,
            "passed": (result == PASS) if valid else None,
            "simulated": row.get("simulated"),
            "needle_depth": (row.get("case") or {}).get("needle_depth"),
            "haystack_tokens": (row.get("case") or {}).get("haystack_tokens"),
        }
        item.update(row.get("metrics", {}))
        if not is_priced(row):
            item["cost_usd"] = None  # a simulated run is not priced (see is_priced)
        out.append(item)
    return pd.DataFrame(out)


def is_priced(row: Mapping[str, Any]) -> bool:
    """Whether a run's cost means anything: not when it is simulated (a reference model, offline or served by
    ``harness serve``, played a part). Those bill nothing, so their 0.0 list price is no cost, and beside a live model
    it would price the run as if half of it were free."""
    return not row.get("simulated")


def covered_kinds(frame: pd.DataFrame, metric: str) -> list[str]:
    """The case kinds a metric is measured on (where any run has a value; ``passed`` covers every kind): an INVALID
    or ERROR run of one of these kinds is a run the metric's figure left out, one of another kind is not."""
    if "kind" not in frame.columns:
        return []
    rows = frame if metric == "passed" or metric not in frame.columns else frame[frame[metric].notna()]
    return sorted(set(rows["kind"].dropna()))


def _threshold_label(config: dict) -> str:
    """A row's triggers as written on the command line (``20%+messages:60``), by `ContextSize`'s own label."""
    return "+".join(str(ContextSize.parse(size)) for size in config.get("trigger", [])) or "-"


def is_rate(series: pd.Series) -> bool:
    values = series.dropna()
    return bool(values.map(lambda v: isinstance(v, (bool, np.bool_))).all()) if len(values) else False


def mean_interval(values: Sequence[float], rate: bool, rng: np.random.Generator) -> tuple[float, float, float]:
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return math.nan, math.nan, math.nan
    if rate:
        r = wilson(int(arr.sum()), int(arr.size))
        return r.value, r.low, r.high
    if arr.size == 1:
        return float(arr[0]), math.nan, math.nan
    means = rng.choice(arr, size=(BOOTSTRAP, arr.size), replace=True).mean(axis=1)
    return float(arr.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def mcnemar_exact(base: np.ndarray, other: np.ndarray) -> float:
    """Two-sided exact McNemar p value on paired booleans."""
    b = int(np.sum(base & ~other))
    c = int(np.sum(~base & other))
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def sign_flip_p(diffs: np.ndarray, rng: np.random.Generator) -> float:
    """Two-sided permutation p value for a zero mean paired difference."""
    diffs = diffs[diffs != 0]
    n = diffs.size
    if n == 0:
        return 1.0
    observed = abs(diffs.mean())
    if n <= 16:
        signs = np.array([[1 if (i >> j) & 1 else -1 for j in range(n)] for i in range(2**n)])
    else:
        signs = rng.choice([-1, 1], size=(PERMUTATIONS, n))
    stats = np.abs((signs * diffs).mean(axis=1))
    hits = int(np.sum(stats >= observed - 1e-12))
    if n <= 16:  # every sign pattern, the observed one included: exact
        return hits / len(stats)
    return (hits + 1) / (len(stats) + 1)  # random flips: the observed pattern counts once, so p is never 0


def holm(pvalues: list[float]) -> list[float]:
    order = sorted(range(len(pvalues)), key=lambda i: pvalues[i])
    adjusted = [1.0] * len(pvalues)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def valid_only(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs that tested what they claim (frames without a ``valid`` column, e.g. old baselines, are all kept)."""
    return frame[frame["valid"].astype(bool)] if "valid" in frame.columns else frame


def coverage(frame: pd.DataFrame, arms: Sequence[str] = (), thresholds: Sequence[str] = ()) -> pd.DataFrame:
    """Per (arm, threshold, eval): runs, PASS, FAIL, INVALID, ERROR and why: what every rate covers and what it leaves
    out. Sorted by arm (in the order of ``arms``, e.g. baseline first, then the rest as they appear), threshold (in
    the order of ``thresholds``, else sorted) and eval (sorted)."""
    keys = ["arm", "threshold", *(["eval"] if "eval" in frame.columns else [])]
    records = []
    for group, rows in frame.groupby(keys, sort=False):
        outcomes = rows["outcome"] if "outcome" in rows else pd.Series(["PASS"] * len(rows))
        reasons = pd.Series([k for r in rows.get("invalid_reasons", pd.Series(dtype=str)) for k in str(r).split(",") if k])
        records.append(
            {
                **dict(zip(keys, group)),
                "runs": len(rows),
                "PASS": int((outcomes == PASS).sum()),
                "FAIL": int((outcomes == FAIL).sum()),
                "INVALID": int((outcomes == INVALID).sum()),
                "invalid because": ", ".join(f"{k} ({n})" for k, n in reasons.value_counts().items()) or "-",
                "ERROR": int((outcomes == ERROR).sum()),
                "error causes": ", ".join(
                    f"{k} ({n})"
                    for k, n in rows.get("error_cause", pd.Series(dtype=str)).loc[lambda c: c != ""].value_counts().items()
                )
                or "-",
                **({KNOWN_UPSTREAM: known} if (known := int((outcomes == KNOWN_UPSTREAM).sum())) else {}),
            }
        )
    arm_rank = {a: i for i, a in enumerate(dict.fromkeys([*arms, *frame["arm"]]))}
    threshold_rank = {t: i for i, t in enumerate(dict.fromkeys([*thresholds, *sorted(frame["threshold"].unique())]))}
    records.sort(key=lambda r: (arm_rank[r["arm"]], threshold_rank[r["threshold"]], str(r.get("eval", ""))))
    return pd.DataFrame(records)


def compare(frame: pd.DataFrame, baseline: str, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (threshold, arm, metric): n, mean and interval over valid runs, and the paired difference from the baseline.

    Invalid and errored runs count in no figure: ``n`` is the valid runs with a value, ``excluded`` the runs left
    out that the figure would have counted (of the case kinds the metric is measured on, ``covered_kinds``: a goal
    case left out is not excluded from a needle rate), of which ``errors`` ended in ERROR (a provider error) and the
    rest were INVALID. ``n_differ`` is how many pairs differ from the baseline at all.
    """
    metrics = [m for m in (metrics or ("passed", *RATE_METRICS, *VALUE_METRICS)) if m in frame.columns]
    kinds = {m: covered_kinds(frame, m) for m in metrics}
    rng = np.random.default_rng(SEED)
    records = []
    for threshold, all_t in frame.groupby("threshold", sort=True):
        by_t = valid_only(all_t)
        left_out = all_t[~all_t["valid"].astype(bool)] if "valid" in all_t.columns else all_t.iloc[:0]
        unit = pairing_unit(by_t)
        base_rows = by_t[by_t["arm"] == baseline].set_index(unit)
        for metric in metrics:
            mine = left_out[left_out["kind"].isin(kinds[metric])] if "kind" in left_out.columns else left_out
            excluded = mine.groupby("arm").size()
            errors = mine[mine["outcome"] == ERROR].groupby("arm").size() if "outcome" in mine else pd.Series(dtype=int)
            upstream = (
                mine[mine["outcome"] == KNOWN_UPSTREAM].groupby("arm").size() if "outcome" in mine else pd.Series(dtype=int)
            )
            rate = metric == "passed" or is_rate(frame[metric])
            block = []
            for arm in dict.fromkeys(all_t["arm"]):
                rows = by_t[by_t["arm"] == arm]
                values = rows[metric].dropna()
                mean, low, high = mean_interval(values.astype(float).tolist(), rate, rng)
                rec = {
                    "threshold": threshold,
                    "arm": arm,
                    "metric": metric,
                    "rate": rate,
                    "n": int(values.size),
                    "excluded": int(excluded.get(arm, 0)),
                    "errors": int(errors.get(arm, 0)),
                    "upstream": int(upstream.get(arm, 0)),
                    "mean": mean,
                    "low": low,
                    "high": high,
                    "baseline": arm == baseline,
                    "diff": math.nan,
                    "diff_low": math.nan,
                    "diff_high": math.nan,
                    "n_pairs": 0,
                    "n_differ": 0,
                    "p": math.nan,
                }
                if arm != baseline and not base_rows.empty:
                    paired = rows.set_index(unit)[[metric]].join(base_rows[[metric]], rsuffix="_base", how="inner").dropna()
                    if len(paired):
                        a = paired[f"{metric}_base"].to_numpy(dtype=float)
                        b = paired[metric].to_numpy(dtype=float)
                        d = b - a
                        boots = (
                            rng.choice(d, size=(BOOTSTRAP, d.size), replace=True).mean(axis=1)
                            if d.size > 1
                            else np.array([d.mean()])
                        )
                        rec.update(
                            diff=float(d.mean()),
                            diff_low=float(np.percentile(boots, 2.5)),
                            diff_high=float(np.percentile(boots, 97.5)),
                            n_pairs=int(d.size),
                            n_differ=int(np.count_nonzero(d)),
                            p=mcnemar_exact(a.astype(bool), b.astype(bool)) if rate else sign_flip_p(d, rng),
                        )
                block.append(rec)
            tested = [r for r in block if not math.isnan(r["p"])]
            for r, adj in zip(tested, holm([r["p"] for r in tested])):
                r["p_adj"] = adj
            for r in block:
                r.setdefault("p_adj", math.nan)
                r["significant"] = bool(r["p_adj"] < ALPHA) if not math.isnan(r["p_adj"]) else False
            records.extend(block)
    return pd.DataFrame(records)


def pass_at_k(frame: pd.DataFrame, metric: str = "passed") -> pd.DataFrame:
    """pass@k and pass^k per (threshold, arm) for k = 1..trials, averaged over cases."""
    records = []
    totals = frame.groupby(["threshold", "arm"]).size()
    for (threshold, arm), rows in valid_only(frame).groupby(["threshold", "arm"], sort=True):
        excluded = int(totals.get((threshold, arm), len(rows)) - len(rows))
        per_case = rows.dropna(subset=[metric]).groupby("case_id")[metric].agg(["sum", "count"])
        if per_case.empty:
            continue
        n_trials = int(per_case["count"].min())
        for k in range(1, n_trials + 1):
            at = [1 - math.comb(int(n - c), k) / math.comb(int(n), k) for c, n in zip(per_case["sum"], per_case["count"])]
            hat = [math.comb(int(c), k) / math.comb(int(n), k) for c, n in zip(per_case["sum"], per_case["count"])]
            records.append(
                {
                    "threshold": threshold,
                    "arm": arm,
                    "k": k,
                    "pass@k": float(np.mean(at)),
                    "pass^k": float(np.mean(hat)),
                    "cases": int(len(per_case)),
                    "trials": n_trials,
                    "runs excluded (INVALID or ERROR)": excluded,
                }
            )
    return pd.DataFrame(records)


def format_cell(rec: Mapping[Any, Any]) -> str:
    """'82% [64%, 92%] n=30' for a rate, '1,234 [1,100, 1,350] n=30' otherwise; ' (4 invalid, 1 ERROR excluded)' when
    runs were left out."""
    excluded = int(rec.get("excluded") or 0)
    errors = int(rec.get("errors") or 0)
    upstream = int(rec.get("upstream") or 0)  # KNOWN_UPSTREAM: excluded, but not invalid
    invalid = excluded - errors - upstream
    parts = [
        f"{invalid} invalid" if invalid else "",
        f"{errors} ERROR" if errors else "",
        f"{upstream} known upstream" if upstream else "",
    ]
    tail = f" ({', '.join(p for p in parts if p)} excluded)" if excluded else ""
    if rec["n"] == 0 or math.isnan(rec["mean"]):
        return f"n/a (n={rec['n']}){tail}"
    if rec["rate"]:
        return f"{rec['mean']:.0%} [{rec['low']:.0%}, {rec['high']:.0%}] n={rec['n']}{tail}"
    if math.isnan(rec["low"]):
        return f"{_num(rec['mean'])} n={rec['n']}{tail}"
    return f"{_num(rec['mean'])} [{_num(rec['low'])}, {_num(rec['high'])}] n={rec['n']}{tail}"


def _num(x: float, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"{x:{sign},.0f}" if abs(x) >= 100 else f"{x:{sign}.3g}"


def format_diff(rec: Mapping[Any, Any]) -> str:
    """'-66.7 pts [-83.3, -50] p=9.54e-06 * (n=30)': the paired difference from the baseline, its interval, the
    Holm-adjusted p (* when significant) and the pairs; 'no pair differs (n=30)' when every pair is equal."""
    if rec["baseline"]:
        return "baseline"
    if rec["n_pairs"] == 0:
        return "no pairs"
    if rec.get("n_differ") == 0:
        return f"no pair differs (n={rec['n_pairs']})"
    scale, unit = (100, " pts") if rec["rate"] else (1, "")
    star = " *" if rec["significant"] else ""
    d, lo, hi = (_num(rec[k] * scale, signed=True) for k in ("diff", "diff_low", "diff_high"))
    return f"{d}{unit} [{lo}, {hi}] p={rec['p_adj']:.3g}{star} (n={rec['n_pairs']})"
