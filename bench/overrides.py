"""``KEY=VALUE`` overrides of a settings dataclass's fields, for the benches that compare two configurations
(``borel_cost.py`` over ``BorelSettings``, ``leads.py`` over ``PlaySettings``)."""

from __future__ import annotations

import dataclasses
import sys


def overrides(cls, pairs: list[str]) -> dict:
    """{field: value} for ``pairs`` (``"key=value"``), each value read by its field's annotation (bool, int, float,
    else text; ``int | None`` as int). An unknown key exits with the fields there are."""
    known = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    out = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if key not in known:
            sys.exit(f"error: {key!r} is not a {cls.__name__} field (one of {', '.join(sorted(known))})")
        kind = known[key]
        if kind.startswith("bool"):
            out[key] = value.lower() in ("1", "true", "yes", "on")
        elif kind.startswith("int"):
            out[key] = int(value)
        elif kind.startswith("float"):
            out[key] = float(value)
        else:
            out[key] = value
    return out
