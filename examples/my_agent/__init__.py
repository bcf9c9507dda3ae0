"""An example of your own deep agent, as `harness run --agent examples.my_agent.agent:make` runs it (docs/your-agent.md)."""
