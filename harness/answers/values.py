"""How a known value may be written: its pattern (case, separators, units, a time's forms), `normal` and `same_value`,
and what counts as value-shaped."""

from __future__ import annotations

import re

_UNITS: dict[str, tuple[str, ...]] = {
    "kg": ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "kilogramme", "kilogrammes"),
    "g": ("g", "gram", "grams"),
    "lb": ("lb", "lbs", "pound", "pounds"),
    "t": ("t", "tonne", "tonnes", "ton", "tons"),
    "rows": ("row", "rows"),
    "units": ("unit", "units"),
    "items": ("item", "items"),
    "pallets": ("pallet", "pallets"),
    "days": ("d", "day", "days"),
    "hours": ("h", "hr", "hrs", "hour", "hours"),
    "minutes": ("min", "mins", "minute", "minutes"),
    "seconds": ("s", "sec", "secs", "second", "seconds"),
    "ms": ("ms", "millisecond", "milliseconds"),
    "mb": ("mb", "megabyte", "megabytes"),
    "gb": ("gb", "gigabyte", "gigabytes"),
    "pct": ("pct", "percent", "%"),
    "kb": ("kb", "kilobyte", "kilobytes"),
    "tb": ("tb", "terabyte", "terabytes"),
    "bytes": ("b", "byte", "bytes"),
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    "m": ("m", "metre", "metres", "meter", "meters"),
    "cm": ("cm",),
    "mm": ("mm",),
    "l": ("l", "litre", "litres", "liter", "liters"),
    "ml": ("ml",),
    "oz": ("oz", "ounce", "ounces"),
    "records": ("record", "records"),
    "entries": ("entry", "entries"),
    "lines": ("line", "lines"),
    "pieces": ("piece", "pieces", "pcs"),
    "boxes": ("box", "boxes"),
    "cartons": ("carton", "cartons"),
    "crates": ("crate", "crates"),
    "weeks": ("wk", "wks", "week", "weeks"),
    "months": ("mo", "month", "months"),
    "years": ("yr", "yrs", "year", "years"),
    "usd": ("usd", "dollar", "dollars"),
    "eur": ("eur", "euro", "euros"),
}
_UNIT_OF = {word: unit for unit, words in _UNITS.items() for word in words}
_ANY_UNIT = "|".join(sorted((re.escape(w) for w in _UNIT_OF), key=len, reverse=True))
_SEP = r"[\s\-_:.]{0,2}"  # between the parts of a value as written: "487 kg", "487kg", "19:00", "4457 KESTREL"
_LEFT = r"(?<![A-Za-z0-9/])"
_RIGHT = r"(?![A-Za-z0-9]|[\-_:.–][A-Za-z0-9]|,\d)"  # "4457-KESTREL-2" and "pg-160" are other values


def _parts(value: str) -> list[str]:
    return re.findall(r"[A-Za-z0-9]+|%", value)


def value_pattern(value: str) -> re.Pattern[str]:
    """How ``value`` may be written in an answer: case aside, its parts joined by a space, hyphen, colon, dot or
    nothing, a unit by any of its names ("487-kg": "487 kg", "487 kilograms"), and a unit left out when the rest is a
    number ("487"), unless another unit follows ("487 lb" is another value)."""
    parts = _parts(value)
    if not parts:
        return re.compile(r"(?!x)x")
    time = re.fullmatch(r"(\d{1,2})[-:.h](\d{2})", value.strip())
    if time and int(time.group(1)) < 24 and int(time.group(2)) < 60:
        return _time_pattern(int(time.group(1)), int(time.group(2)))
    pieces = []
    for part in parts:
        unit = _UNIT_OF.get(part.lower())
        pieces.append("(?:" + "|".join(re.escape(w) for w in _UNITS[unit]) + ")" if unit else re.escape(part))
    unit_last = _UNIT_OF.get(parts[-1].lower()) is not None and len(parts) > 1
    if unit_last and all(p.isdigit() for p in parts[:-1]):
        head = _SEP.join(pieces[:-1])
        body = rf"{head}(?:{_SEP}{pieces[-1]}|(?!{_SEP}(?:{_ANY_UNIT})(?![A-Za-z]))(?!\s*(?:–|-|to|or)\s*\d))"
    else:
        body = _SEP.join(pieces)
    return re.compile(_LEFT + body + _RIGHT, re.IGNORECASE)


def _time_pattern(hour: int, minute: int) -> re.Pattern[str]:
    """A time of day as answers write it: 19:00, 19.00, 19h00, 19-00, 1900 (hours), 7:00 PM, 7 pm (minute 00)."""
    h24 = [f"{hour:02d}", str(hour)]  # the same twice from 10 on
    forms = [rf"(?:{'|'.join(h24)})\s?[:.h\-]\s?{minute:02d}(?!\s?[ap]\.?m\b)", rf"{hour:02d}{minute:02d}(?:\s?h(?:ou)?rs?\b)?"]
    h12, half = (hour % 12 or 12), ("p" if hour >= 12 else "a")
    forms.append(rf"{h12}(?:\s?[:.]\s?{minute:02d})\s?{half}\.?m\.?")
    if minute == 0:
        forms.append(rf"{h12}\s?{half}\.?m\.?")
    return re.compile(_LEFT + "(?:" + "|".join(forms) + ")" + r"(?![A-Za-z0-9]|[\-_:][A-Za-z0-9])", re.IGNORECASE)


def normal(value: str) -> str:
    """A value's comparable form: lower case, unit words by one name, separators dropped ("487 kg" -> "487kg")."""
    return "".join(_UNIT_OF.get(p.lower(), p.lower()) for p in _parts(value))


def same_value(a: str | None, b: str | None) -> bool:
    """``a`` and ``b`` are the same value as an answer may write it ("19:00" and "19-00"; "487 kg" and "487-kg")."""
    return a is not None and b is not None and normal(a) == normal(b)


# Unknown values: letters and digits joined by a hyphen or colon, or letters and digits together; never a path, a
# document id the harness's cases use (DOC-007), or an ordinal word.
_UNKNOWN = re.compile(
    r"(?<![A-Za-z0-9/\-_.])(?:[A-Za-z0-9]+(?:[\-:][A-Za-z0-9]+)+|(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{2,})(?![A-Za-z0-9/\-_]|\.[A-Za-z0-9])"
)
_NOT_A_VALUE = re.compile(
    r"^(?:DOC-\d+|\d+(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)+|\d+[a-z]?|[A-Za-z]+-?\d{1,2}:\d\d.*)$", re.IGNORECASE
)


def _value_shaped(token: str) -> bool:
    """An unknown token that reads as a value: it has a digit, or is written in capitals with a hyphen (BASALT-OPS)."""
    if re.fullmatch(r"DOC-\d+", token):  # in capitals (the next rule's form); any other case is _NOT_A_VALUE's
        return False
    if re.fullmatch(r"[A-Z0-9]+(?:-[A-Z0-9]+)+", token) and re.search(r"[A-Z]", token):
        return True
    if _NOT_A_VALUE.match(token):  # a time of day ("19:00") is none of its forms, so it reads as a value below
        return False
    return bool(re.search(r"\d", token))
