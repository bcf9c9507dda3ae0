"""Eval suites: the registry (one entry per eval), seeded faults and the validity matrix."""
