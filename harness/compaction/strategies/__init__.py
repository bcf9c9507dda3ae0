"""Compaction strategies: each one module that builds its middleware from released packages.

A strategy takes deepagents' summarization slot in `create_deep_agent`'s stack (deepagents
replaces a default entry by ``.name``, and its summarization entry is named
``SummarizationMiddleware``) and may add middleware inside it, ahead of the recorder:

| name | built from | a lost fact comes back from |
|---|---|---|
| deepagents-summarization | deepagents `SummarizationMiddleware` | the offloaded history file (read_file) |
| langchain-summarization | langchain `SummarizationMiddleware` (rewrites state, no offload) | nowhere but the summary |
| observation-masking | langchain `ContextEditingMiddleware` + `ClearToolUsesEdit` | calling the tool again |
| sliding-window | `langchain_core.messages.trim_messages` in a request middleware | nowhere |
| hybrid | masking, plus deepagents summarization counted on the masked request | the tool, or the history file |
| none | nothing: the control arm | (nothing is lost) |
| anthropic-compaction | `ChatAnthropic(context_management=compact_20260112)`, the slot vacated | nowhere but the provider's summary |
| anthropic-context-editing | `ChatAnthropic(context_management=clear_tool_uses_20250919)`, the slot vacated | calling the tool again |
| openai-compaction | `ChatOpenAI(use_responses_api=True, context_management=compaction)`, the slot vacated | nowhere but the summary |
| custom | a user's ``module:function(messages, token_count) -> messages`` | whatever it keeps |

deepagents' argument truncation is a setting of its summarization middleware, so it is
active only under the strategies that use it (deepagents-summarization, hybrid); eviction
of large tool results (the filesystem middleware) is independent of the strategy. The provider-native strategies
compact on the provider's side: their stack names the provider and its model's settings, and
`harness.agent.native_models` builds the agent model from them (offline: the reference agent behind a loopback
`harness serve`).
"""
