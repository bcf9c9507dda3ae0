"""Offline, deterministic reference models that drive the real deepagents middleware."""

from harness.reference.models import AGENT_NAME, SUMMARIZER_NAME, ReferenceAgentModel, ReferenceSummarizerModel

__all__ = ["AGENT_NAME", "SUMMARIZER_NAME", "ReferenceAgentModel", "ReferenceSummarizerModel"]
