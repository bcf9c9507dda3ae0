"""The harness's version, recorded in every run's metadata, and the versions of the packages under test, recorded in
every result row; bedrock, so any layer may import it."""

from __future__ import annotations

__version__ = "0.1.0"

RECORDED_PACKAGES = (
    "deepagents",
    "langchain",
    "langchain-core",
    "langgraph",
    "langchain-openai",
    "langchain-anthropic",
    "langsmith",
    "langgraph-prebuilt",
    "anthropic",
    "openai",
)
"""The packages whose versions decide what a compaction does: a row records each (`package_versions`). The provider
SDKs are among them: the client that sends the request decides what a provider receives (a versions arm that pins
them is checked against them)."""


def package_versions(packages: tuple[str, ...] = RECORDED_PACKAGES) -> dict[str, str | None]:
    """{package: installed version, None when not installed} in this interpreter's environment."""
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in packages:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out
