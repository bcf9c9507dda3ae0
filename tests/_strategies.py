"""A user's own compaction strategy, as `--strategy tests._strategies:keep_task_and_last_six` names it."""


def keep_task_and_last_six(messages, token_count):  # noqa: ANN001, ANN201
    if token_count < 12_000 or len(messages) <= 7:
        return messages
    tail = messages[-6:]
    while tail and tail[0].type == "tool":  # never start on a tool result without its call
        tail = tail[1:]
    return [messages[0], *tail]


NOT_CALLABLE = 3
