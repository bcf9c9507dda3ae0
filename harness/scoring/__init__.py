"""Scorers and per-case metrics, read from a trace alone."""
