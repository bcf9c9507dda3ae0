"""A session's probes: read from the user's probes file, or made by the offline generator from the messages before the cut.

A probes file is JSONL (one probe a line) or YAML (a list of probes): ``question``, ``expected`` (a string or a list),
``type`` (`harness.scenarios.model.SESSION_PROBE_TYPES`), ``message`` (the index of the message that states the
answer, before the cut), optionally ``stale`` (answers that must not be given) and ``id`` (default ``p<n>``). Each is
validated as a `SessionProbe`; a problem names the file, the line (JSONL) or item (YAML, counted from 1) and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import ConfigError, DatasetError
from harness.scenarios.model import SessionProbe
from harness.sessions.source import read_json_or_lines, read_text


def read_probes(path: str, cut: int) -> list[SessionProbe]:
    """The probes in ``path``, each stated before the cut (``message`` < ``cut``)."""
    from pydantic import TypeAdapter, ValidationError

    items = _items(path)
    adapter = TypeAdapter(SessionProbe)
    probes: list[SessionProbe] = []
    seen: set[str] = set()
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise DatasetError(path, n, None, f"a probe is an object, got {type(item).__name__}")
        item = {"id": f"p{n}", "origin": "user", **item}
        for key in ("expected", "stale"):  # one answer may be written without its list
            if isinstance(item.get(key), str):
                item[key] = [item[key]]
        try:
            probe = adapter.validate_python(item)
        except ValidationError as exc:
            error = exc.errors()[0]
            field = ".".join(str(p) for p in error["loc"]) or None
            raise DatasetError(path, n, field, error["msg"]) from None
        if probe.id in seen:
            raise DatasetError(path, n, "id", f"{probe.id!r} is given twice")
        seen.add(probe.id)
        if probe.message >= cut:
            raise DatasetError(
                path, n, "message", f"message {probe.message} is not before the cut ({cut} messages come before it)"
            )
        if set(probe.stale) & set(probe.expected):
            raise DatasetError(path, n, "stale", "an answer cannot be both expected and stale")
        probes.append(probe)
    if not probes:
        raise DatasetError(path, None, None, "no probes in the file")
    return probes


def _items(path: str) -> list[Any]:  # noqa: ANN401 - JSON or YAML values
    if Path(path).suffix.lower() in (".yaml", ".yml"):
        import yaml

        from harness._yaml import load_yaml

        try:
            data = load_yaml(read_text(path), path)
        except yaml.YAMLError as exc:
            raise DatasetError(path, None, None, f"invalid YAML: {exc}".splitlines()[0]) from None
        if not isinstance(data, list):
            raise DatasetError(path, None, None, "a YAML probes file is a list of probes")
        return data
    data = read_json_or_lines(path)
    return data if isinstance(data, list) else [data]


def generated_probes(messages: tuple[dict[str, Any], ...]) -> list[SessionProbe]:
    """The probes the offline generator makes from the messages before the cut (`harness.sessions.generate`); a
    ConfigError when it finds none (the session states nothing it can ask about: write a probes file)."""
    from harness.sessions.generate import generate_probes

    probes = list(generate_probes(list(messages)))
    if not probes:
        raise ConfigError(
            f"no probe could be generated from the {len(messages)} messages before the cut (no file written, command run, "
            "error, constraint or value stated once, outside the last messages): give the probes with --probes FILE"
        )
    return probes
