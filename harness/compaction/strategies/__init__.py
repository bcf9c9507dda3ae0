"""Compaction strategies: each one module that builds its middleware from released packages.

A strategy takes deepagents' summarization slot in `create_deep_agent`'s stack (deepagents
replaces a default entry by ``.name``, and its summarization entry is named
``SummarizationMiddleware``) and may add middleware inside it, ahead of the recorder.

The strategies are listed once, by name, in `names.BUILTIN` (an installed package adds its own: `names`); what each
sends, what it is built from and where a lost fact comes back from is docs/strategies.md's table, one row per name in
that order (tests/compaction/test_strategies_names.py holds the two in step).

deepagents' argument truncation is a setting of its summarization middleware, so it is
active only under the strategies that use it (deepagents-summarization, hybrid); eviction
of large tool results (the filesystem middleware) is independent of the strategy. The provider-native strategies
compact on the provider's side: their stack names the provider and its model's settings, and
`harness.agent.native_models` builds the agent model from them (offline: the reference agent behind a loopback
`harness serve`).
"""
