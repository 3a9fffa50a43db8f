"""Strict JSON text to Python values, read the same way by the HTTP API and the command.

:func:`loads` is orjson's reader (RFC 8259: no ``NaN``, no ``Infinity``, no comments, UTF-8
only, at most 1024 levels of nesting) with its errors turned into messages a client can act on:
a number too large for a 64-bit float (orjson reads integers past 64 bits as floats, so this is
also the 5,000-digit integer that Python's own ``json`` would refuse past its 4,300-digit
conversion limit) and ``NaN``/``Infinity`` are named as such, with their line and column.
"""

from __future__ import annotations

from typing import Any

import orjson

#: Literals some encoders write for non-finite floats; JSON has none of them.
_NON_FINITE = (b"NaN", b"Infinity", b"-Infinity", b"-NaN", b"+Infinity")


class JsonTextError(ValueError):
    """Text that is not JSON; the message says what and where."""


def loads(text: bytes | str) -> Any:
    """The value of the JSON ``text``; :class:`JsonTextError` if it is not strict JSON."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise JsonTextError(_explain(err, text)) from None


def _explain(err: orjson.JSONDecodeError, text: bytes | str) -> str:
    where = f"line {err.lineno}, column {err.colno}"
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    # orjson reports a bad literal at the character where it starts or just after its sign.
    start = err.pos - 1 if err.pos > 0 and raw[err.pos - 1 : err.pos] in (b"-", b"+") else err.pos
    if any(raw.startswith(literal, start) for literal in _NON_FINITE):
        column = err.colno - (err.pos - start)
        return f"NaN and Infinity are not JSON numbers (line {err.lineno}, column {column})"
    if "not valid UTF-8" in err.msg:
        return f"the text is not valid UTF-8 ({where})"
    if err.msg == "number is infinity when parsed as double":
        return (
            f"a number is too large ({where}): numbers must fit a 64-bit float "
            "(at most about 1.8e308)"
        )
    return f"{err.msg} ({where})"
