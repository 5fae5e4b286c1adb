"""JSON documents that carry their schema version (``"schema": N``): live events and ``summary.json``.

``load_versioned`` reads one into a dict and refuses anything that is not a JSON object of the version this
reader knows; ``field_errors`` says, for a pydantic validation that failed, which field is wrong and why, in one
line. Each document keeps its own error type (``EventError``, ``SummaryError``), so callers catch what they read.
"""

from __future__ import annotations

import json
from typing import Type

from pydantic import ValidationError

__all__ = ["load_versioned", "field_errors"]


def load_versioned(payload: str | bytes, schema: int, what: str, error: Type[Exception]) -> dict:
    """The JSON object ``payload`` holds, whose ``schema`` is ``schema``; raises ``error`` (naming ``what``, e.g.
    "an event") for text that is not JSON, not an object, or of another version."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise error(f"{what} is JSON: {exc}") from None
    if not isinstance(data, dict):
        raise error(f"{what} is a JSON object, got {type(data).__name__}")
    if data.get("schema") != schema:
        noun = what.split(" ", 1)[-1]
        raise error(f"{noun} schema {data.get('schema')!r} is not supported (this reader reads {schema})")
    return data


def field_errors(exc: ValidationError, *, skip: int = 0, top: str = "") -> str:
    """``exc``'s errors as ``field.path: message; ...`` (``skip``: leading path parts to leave out, such as a
    union's tag; ``top``: the name for an error of the whole document)."""
    return "; ".join(f"{'.'.join(map(str, e['loc'][skip:])) or (e['loc'][0] if e['loc'] else top)}: {e['msg']}"
                     for e in exc.errors())
