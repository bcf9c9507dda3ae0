"""``harness serve``: the reference models behind real OpenAI- and Anthropic-compatible HTTP endpoints.

The live path (``init_chat_model("openai:...")``, the OpenAI SDK's retries and timeouts,
deepagents' live code paths) can only be trusted once it has met a server that misbehaves.
This one answers ``POST /v1/chat/completions`` (`chat`) with the reference agent policy (a request
that carries tools), the reference summarizer (a request without tools) or, when the request
names the model ``reference-judge``, the stand-in judge (`harness.reference.judge`), reports
``usage`` from the calibrated provider tokenizer, lists ``GET /v1/models`` (with vLLM's
``max_model_len``). The same models answer Anthropic's ``POST /v1/messages``
(`messages`: streaming, tool use, cache usage fields, native compaction and context
editing) and OpenAI's ``POST /v1/responses`` and ``POST /v1/responses/compact``
(`responses`: compaction items, ``previous_response_id``), each with a simulated
prompt cache (`harness.reference.prompt_cache`), scoped per run by the ``X-Harness-Cache-Scope`` header the harness's
live client sends per case run (`harness.agent.cache_scope`; without it the entries are shared). It injects faults on request, in each API's error shape:

    429       rate limited, with a Retry-After header
    500, 503  server errors
    stall     answer only after ``sleep`` seconds (past the client's timeout)
    context   the provider's context-length 400 (OpenAI's ``context_length_exceeded``, Anthropic's "prompt is too long")
    malformed a 200 whose body is not JSON
    empty     a 200 with no choices (no content blocks, no output items)
    auth      a 401 whose message echoes the key header (a provider that leaks keys)
    null-compaction       a native compaction that fails: a compaction block with null content (Anthropic), no
                          compaction item (OpenAI); fires only on a request that compacts
    compaction-midstream  a native compaction that fails mid-stream: an ``error`` event after the compaction block
                          (item) starts, or a 500 when the request is not streamed
    summary-continues, summary-tool-call, summary-reasoning-only, summary-canned, summary-authority
                          a 200 answering with text that is not a summary (`harness.reference.not_summaries`): the
                          next turn, a function call's JSON, reasoning alone (no text), LangChain's canned sentence,
                          an instruction in a system's voice; with ``@summary`` it answers deepagents' summary request

Faults are given at start (``--fault MODE[:COUNT][@agent|@summary|@judge]``) or at run time
(``POST /admin/faults`` with ``{"mode", "count", "scope", "after", "retry_after", "sleep"}``);
``GET /admin/stats`` returns request counts, the statuses answered (the API's routes, not /admin), peak concurrency, the time from the first
to the latest request and the server's CPU time; ``POST /admin/reset``
clears faults, counters, the prompt cache and stored responses. Answers are marked simulated
(``system_fingerprint``) so a run through the server is labelled as such. Loopback by default;
the server stops by itself after ``max_requests`` requests or ``max_seconds`` seconds.

The package: one module per API (`chat`, `messages`, `responses`), each a `ServedAPI` (`api`: the contract, and the
one path a fault takes on every API); what their wire shares (`wire`: the reference reply, body checks, OpenAI's
error body, server-sent events); the faults (`faults`); the server's state (`state`); the HTTP handler and server
(`http`). The names below are its public face, imported from their modules on first use.
"""

from harness._lazy import lazy_exports

__all__, __getattr__ = lazy_exports(
    __name__,
    {
        "APIS": "http",
        "DEFAULT_PORT": "http",
        "ReferenceServer": "http",
        "serving": "http",
        "Fault": "faults",
        "MODES": "faults",
        "COMPACTION_MODES": "faults",
        "SUMMARY_MODES": "faults",
        "ServerState": "state",
        "ResponseStore": "state",
        "ServedAPI": "api",
        "answer": "chat",
    },
)
