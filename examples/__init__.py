"""Examples of what the harness runs: a user's own deep agent assembly (`examples.my_agent`)."""
