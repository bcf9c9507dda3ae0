"""LangSmith: the one bounded client of a process (`session`), the one writer of experiments and pytest cases by one
feedback rule (`export`), and a replayed case's model calls as ``llm`` runs (`llm`)."""
