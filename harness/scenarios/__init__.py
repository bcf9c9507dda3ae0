"""Eval cases as data: the row schema, loading, and the deterministic generators."""
