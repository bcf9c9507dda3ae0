"""No secret in anything the harness writes or prints, on every failure path that could carry one.

Fake keys are set for OpenAI, Anthropic and LangSmith; `harness serve` plays a provider that
echoes the Authorization header in its 401 body (as some do), and LangSmith is refused.
Every file written (traces decompressed) and everything printed is searched for each key
and for a 16-character piece of it.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.redact import redact
from harness.reference.serve import Fault, serving

pytestmark = [pytest.mark.live, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
KEYS = {
    "OPENAI_API_KEY": "sk-proj-FAKEfake0123456789abcdefghijklmnop",
    "ANTHROPIC_API_KEY": "sk-ant-api03-FAKEfake0123456789abcdefghij",
    "LANGSMITH_API_KEY": "lsv2_pt_FAKEfake0123456789abcdef_0123456789",
    "MY_SERVICE_TOKEN": "tok-FAKEfake-0123456789abcdefg",
}


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    return {**env, **KEYS, "LANGSMITH_ENDPOINT": "http://127.0.0.1:9"}


def _leaks(text: str) -> list[str]:
    return [name for name, key in KEYS.items() if key in text or key[8:24] in text]


def _written(root: Path) -> str:
    parts = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            parts.append((gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8", "replace"))
    return "\n".join(parts)


def test_redact_masks_keys_from_the_environment_headers_and_key_shapes(monkeypatch):
    for name, key in KEYS.items():
        monkeypatch.setenv(name, key)
    text = (
        "Incorrect API key provided: Bearer sk-proj-FAKEfake0123456789abcdefghijklmnop. headers {'x-api-key': 'lsv2_pt_other123456789'}"
        f" {KEYS['MY_SERVICE_TOKEN']} Authorization: Bearer abc.def-ghi-123456 sk-unrelated-0123456789abcdef"
    )
    clean = redact(text)
    assert not _leaks(clean) and "lsv2_pt_other" not in clean and "abc.def" not in clean and "sk-unrelated" not in clean
    assert "Incorrect API key provided" in clean  # the message stays readable


def test_names_of_secrets_are_kept_their_values_are_masked(monkeypatch):
    """The redactor rewrote help text: "with LANGSMITH_API_KEY: [REDACTED] a compact trace summary"."""
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)  # only the shapes decide here, not known values
    prose = [
        "with LANGSMITH_API_KEY: upload a compact trace summary per case (default) or every model call (full)",
        "api_key: required, read from the environment",
        "Authorization: the header a provider reads",
        "Bearer authentication is what the endpoint expects",
    ]
    for text in prose:
        assert redact(text) == text
    secrets = {
        "LANGSMITH_API_KEY: lsv2_pt_0123456789abcdef_live": "lsv2_pt_",
        "OPENAI_API_KEY=sk-proj-abcdefghij0123": "sk-proj",
        "api_key: hunter2hunter2": "hunter2",
        "{'api_key': 'AbCdEfGhIjKl'}": "AbCdEf",
        "Authorization: Basic dXNlcjpwYXNz": "dXNlcjpwYXNz",
        "authorization=Bearer abc.def-ghi-123456": "abc.def",
        "x-api-key: abcdefghijklmnopqrstuvwxyz": "abcdefghijklmnop",
    }
    for text, piece in secrets.items():
        clean = redact(text)
        assert piece not in clean and "[REDACTED]" in clean, clean


def test_help_text_reaches_the_terminal_unredacted():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "evals/", "--help", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0 and "with LANGSMITH_API_KEY: upload a compact trace summary" in out.stdout, out.stdout[-3000:]
    assert "[REDACTED]" not in out.stdout


def test_a_provider_that_echoes_the_key_leaks_nothing_anywhere(tmp_path):
    with serving() as server:
        server.add_fault(Fault("auth", count=None, scope="agent", after=3))
        base = [
            "--model",
            "openai:reference-agent",
            "--summary-model",
            "openai:reference-summarizer",
            "--base-url",
            server.url,
            "--model-kwargs",
            "max_retries=0",
        ]
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "harness",
                "run",
                *base,
                "--cases",
                "needle-h24k-d000",
                "--out",
                str(tmp_path / "runs"),
                "--run-id",
                "r",
            ],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
            cwd=ROOT,
        )
        assert run.returncode == 4, run.stderr
        evals = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "evals/test_evals.py",
                "-m",
                "needle",
                "-k",
                "needle-h24k-d000",
                "-p",
                "no:cacheprovider",
                *base,
                "--runs-dir",
                str(tmp_path / "evals"),
            ],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
            cwd=ROOT,
        )
        assert "1 error" in evals.stdout.strip().splitlines()[-1], evals.stdout[-2000:]
        spec = tmp_path / "spec.yaml"
        spec.write_text(
            yaml.safe_dump(
                {
                    "name": "secrets",
                    "model": "openai:reference-agent",
                    "summary_model": "openai:reference-summarizer",
                    "base_url": server.url,
                    "model_kwargs": {"max_retries": 0},
                    "variants": ["deepagents-default"],
                    "thresholds": ["20%"],
                    "scenarios": {"cases": ["needle-h24k-d000"]},
                }
            )
        )
        exp = subprocess.run(
            [sys.executable, "-m", "harness", "experiment", "run", str(spec), "--out", str(tmp_path / "exp")],
            capture_output=True,
            text=True,
            env=_env(),
            timeout=300,
            cwd=ROOT,
        )
        assert exp.returncode == 4 and "warning: LangSmith" in exp.stdout, exp.stdout[-2000:] + exp.stderr[-2000:]
    echoed = (tmp_path / "runs" / "r" / "results.jsonl").read_text()
    assert "Incorrect API key provided" in echoed and "[REDACTED]" in echoed  # the error is kept, its key is not
    for name, text in (
        ("harness run", run.stdout + run.stderr),
        ("pytest", evals.stdout + evals.stderr),
        ("experiment", exp.stdout + exp.stderr),
        ("files", _written(tmp_path)),
    ):
        assert not _leaks(text), f"{name} leaked {_leaks(text)}"
