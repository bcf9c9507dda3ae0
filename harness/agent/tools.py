"""Tools a scenario gives the agent besides deepagents' own filesystem tools.

``fetch_document`` serves the scenario's documents. Its results live only in the
conversation (not in the agent's filesystem), so once summarized away a fact from a
document can be recovered only from the offloaded history.
"""

from __future__ import annotations

from collections.abc import Mapping

from langchain_core.tools import StructuredTool


def fetch_document_tool(documents: Mapping[str, str]) -> StructuredTool:
    docs = dict(documents)

    def fetch_document(doc_id: str) -> str:
        """Fetch one document from the archive by its id (for example DOC-001) and return its full text."""
        text = docs.get(doc_id)
        if text is None:
            return f"Error: no document with id {doc_id!r}"
        return text

    return StructuredTool.from_function(fetch_document)


def tools_for(documents: Mapping[str, str]) -> list[StructuredTool]:
    return [fetch_document_tool(documents)] if documents else []
