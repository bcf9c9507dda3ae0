"""The agent under test: building the real deep agent, choosing models, running a case (offline or live)."""
