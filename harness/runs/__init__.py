"""Run directories, result rows, experiment specs and grids, LangSmith, bench."""
