"""`harness import --propose-probes`: a judge model proposes more probes from the messages before the cut, written
after the user's or generated ones and marked model-written; its options are refused where they would do nothing; a
judge that fails is an ERROR (exit 4) with nothing written. The CLI runs against `harness serve`'s stand-in judge
(which proposes none) as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from harness.cli.main import main
from harness.errors import EXIT_BAD_INPUT, EXIT_ERROR, EXIT_OK, ProviderFailed
from harness.reference.local import local_server
from harness.reference.serve import Fault
from harness.scenarios.schema import load_scenarios
from harness.sessions.importer import import_session
from tests.sessions.test_import import PROBES, _files, _session

pytestmark = pytest.mark.slow  # a loopback server

PROPOSED = [
    {"question": "Which command ran first?", "expected": ["step 0"], "type": "command", "message": 2},
    {"question": "Past the cut", "expected": ["x"], "type": "value", "message": 99},
]


@pytest.fixture
def server():
    served = local_server(0)
    served.state.reset()
    yield served
    served.state.reset()


def test_proposed_probes_follow_the_users_marked_model_written_and_each_left_out_says_why(tmp_path: Path) -> None:
    source, probes = _files(tmp_path, _session(6))
    judge = GenericFakeChatModel(messages=iter([AIMessage(content=json.dumps(PROPOSED))]))
    done = import_session("openai", source, tmp_path / "cases", cut="8", probes=probes, propose=judge)
    assert (done.proposed, len(done.probes)) == (1, 3)
    assert done.left_out == ("item 1: message 99 is not one of the 8 messages before the cut",)
    (case,) = load_scenarios([tmp_path / "cases" / "sessions.jsonl"])
    assert [(p.id, p.origin) for p in case.probes] == [("p1", "user"), ("p2", "user"), ("model-1", "model")]
    assert case.followups[-1] == "Which command ran first?"


def test_a_judge_that_fails_writes_nothing(tmp_path: Path) -> None:
    source, _ = _files(tmp_path, _session(6))

    class Broken(GenericFakeChatModel):
        def _generate(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            raise ConnectionError("upstream reset")

    with pytest.raises(ProviderFailed, match=r"the judge model failed \(ConnectionError: upstream reset\)"):
        import_session("openai", source, tmp_path / "cases", propose=Broken(messages=iter([])))
    assert not (tmp_path / "cases").exists()


def test_through_harness_serve_the_stand_in_judge_proposes_none_and_says_so(tmp_path: Path, server, capsys) -> None:
    source, probes = _files(tmp_path, _session(6))
    out = tmp_path / "cases"
    judge = ["--judge-model", "openai:reference-judge", "--judge-base-url", server.url]
    code = main(["import", "openai", source, "--out", str(out), "--probes", probes, "--propose-probes", *judge])
    assert code == EXIT_OK
    printed = capsys.readouterr().out
    assert f"probes: {len(PROBES)} from" in printed
    assert "probes proposed by openai:reference-judge: 0 (origin: model), 0 left out" in printed
    assert sum(server.state.stats()["requests"].values()) == 1  # one proposal request, answered
    assert len(load_scenarios([out / "sessions.jsonl"])[0].probes) == len(PROBES)


def test_a_served_judge_error_is_exit_4_and_nothing_is_written(tmp_path: Path, server, capsys) -> None:
    source, _ = _files(tmp_path, _session(6))
    server.add_fault(Fault("500", count=None, scope="judge"))
    out = tmp_path / "cases"
    judge = ["--judge-model", "openai:reference-judge", "--judge-base-url", server.url]
    code = main(
        ["import", "openai", source, "--out", str(out), "--propose-probes", *judge, "--judge-model-kwargs", "max_retries=0"]
    )
    assert code == EXIT_ERROR
    err = capsys.readouterr().err
    assert "--propose-probes: the judge model failed (" in err and "Error code: 500" in err and "nothing was written" in err
    assert not out.exists()


@pytest.mark.parametrize(
    "extra, said",
    [
        (["--propose-probes"], "--propose-probes: give a live --judge-model provider:name"),
        (["--propose-probes", "--judge-model", "reference"], "the in-process reference judge proposes no probes"),
        (["--judge-model", "openai:gpt-5.2"], "--judge-model is for --propose-probes"),
        (["--judge-base-url", "http://127.0.0.1:9/v1"], "--judge-base-url is for --propose-probes"),
    ],
)
def test_judge_options_that_would_do_nothing_are_refused_and_nothing_is_written(tmp_path: Path, capsys, extra, said) -> None:
    source, _ = _files(tmp_path, _session(6))
    assert main(["import", "openai", source, "--out", str(tmp_path / "cases"), *extra]) == EXIT_BAD_INPUT
    assert said in capsys.readouterr().err
    assert not (tmp_path / "cases").exists()
