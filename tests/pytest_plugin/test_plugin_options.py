"""The plugin's options on its two fronts (`harness.pytest_plugin.options.add_options`): the same options, one help
text each, the user's front prefixed."""

from __future__ import annotations

from _pytest.config.argparsing import Parser

from harness.pytest_plugin.options import OWN, USER, Front, add_options
from harness.suites.registry import STANDARD_EVALS


def _helps(front: Front) -> dict[str, str]:
    parser = Parser()
    add_options(parser, front, "evals" if front is OWN else None)
    return {
        name: str(option.attrs().get("help")) for group in parser._groups for option in group.options for name in option.names()
    }  # noqa: SLF001


def test_strategy_and_evals_say_the_same_on_both_fronts():
    own, user = _helps(OWN), _helps(USER)
    for name in ("strategy", "evals"):
        said = {
            own[OWN.flag(name)],
            user[USER.flag(name)].replace("MODULE:ATTR", "a built-in name (harness/compaction/strategies/) or MODULE:ATTR"),
        }
        assert len(said) == 1, said
    assert ", ".join(STANDARD_EVALS) in own["--evals"]
    assert "skipped with the reason" in user["--compaction-strategy"]
    # every option of the harness's own front is the user's, prefixed (the user's front lacks the validity matrix's
    # and LangSmith's, and the hidden evals directory)
    assert {USER.flag(n[2:].replace("-", "_")) for n in own} - set(user) == {
        "--compaction-validity-full",
        "--compaction-langsmith-traces",
        "--compaction-harness-evals-dir",
    }
