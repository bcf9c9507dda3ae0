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
| custom | a user's ``module:function(messages, token_count) -> messages`` | whatever it keeps |

deepagents' argument truncation is a setting of its summarization middleware, so it is
active only under the strategies that use it (deepagents-summarization, hybrid); eviction
of large tool results (the filesystem middleware) is independent of the strategy.
"""
