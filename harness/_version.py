"""The harness's version, recorded in every run's metadata; bedrock, so any layer may import it."""

__version__ = "0.1.0"
