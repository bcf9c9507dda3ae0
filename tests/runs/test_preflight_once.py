"""The plan's pre-flight asks every live model's server once: every door asks before it imports the agent stack
(`harness.runs.early.early_checks`) and tells the plan's pre-flight so (``endpoints_answered``), which then does not
ask again; a caller that did not ask (a direct `run_cases`) has its pre-flight ask. tests/cli/test_preflight_doors.py
counts the requests each door sends to a live server."""

from __future__ import annotations

import pytest

from harness.agent.endpoints import Endpoint
from harness.compaction.variants import make_config
from harness.errors import EndpointUnreachable
from harness.runs.jobs import RunSettings, preflight
from harness.suites.execute import find_case

DEAD = Endpoint("http://127.0.0.1:9")  # nothing listens on the discard port here


def _live_settings(monkeypatch: pytest.MonkeyPatch) -> RunSettings:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    return RunSettings("openai:gpt-test", None, (DEAD, DEAD))


def test_the_plan_pre_flight_asks_a_live_server_unless_the_caller_already_did(monkeypatch):
    settings, config = _live_settings(monkeypatch), make_config("forced-20")
    cases = [find_case("needle-h24k-d010")]
    with pytest.raises(EndpointUnreachable, match="127.0.0.1:9"):
        preflight([("", config)], cases, settings, progress=lambda line: None)
    asked: list[object] = []
    monkeypatch.setattr("harness.agent.models.check_endpoints_answer", lambda *endpoints, **kw: asked.append(endpoints))
    preflight([("", config)], cases, settings, progress=lambda line: None, endpoints_answered=True)
    assert asked == []  # told the servers were asked: not asked again
    preflight([("", config)], cases, settings, progress=lambda line: None)
    assert len(asked) == 1


def test_harness_run_tells_the_run_its_servers_were_asked(monkeypatch):
    """`cmd_run` asks the servers itself (before the imports) and passes ``endpoints_answered=True`` to the run."""
    import harness.cli.runs as runs_cli
    import harness.runs.run as run_module

    seen: dict[str, object] = {}

    class Stop(Exception):
        pass

    def fake_run_cases(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    from harness.runs.early import EarlyChecks

    def early(*args, **kwargs):
        seen.setdefault("early", True)
        return EarlyChecks(endpoints_answered=True)

    monkeypatch.setattr(run_module, "run_cases", fake_run_cases)
    monkeypatch.setattr("harness.runs.early.early_checks", early)
    from harness.cli.main import build_parser

    args = build_parser().parse_args(["run", "--kind", "needle", "--limit", "1"])
    with pytest.raises(Stop):
        runs_cli.cmd_run(args)
    assert seen["early"] is True and seen["endpoints_answered"] is True
