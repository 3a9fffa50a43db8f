"""What an engine says it does, declared once (docs/conformance.md, "Capabilities").

Protocol 3 begins with ``{"id": "capabilities", "ask": "capabilities"}``, answered
``{"id": ..., "capabilities": {...}}``; ``--capabilities JSON|FILE`` gives them (or overrides
some of them) from the command line. An engine that answers ``unsupported`` — or cannot answer
the question at all — is a protocol 2 engine: every part of every question is asked and graded,
as before. :class:`Capabilities` says what the kit asks and grades, and :func:`untested` what it
therefore leaves untested for this engine, and why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Final

from arbiter.conformance.kit.engines import Engine
from arbiter.engine.rulesets import RULESETS

NOTATIONS: Final = ("spanish", "french")
#: Each capability's allowed values (a tuple of strings), or ``bool``, or ``list`` (of names).
CHOICES: Final[dict[str, Any]] = {
    "rulesets": list,
    "notations": list,
    "options": ("defaults", "any"),
    "renuncio": ("flags", "blocks"),
    "obligations": bool,
    "illegal_codes": bool,
    "declarations": ("moves", "automatic", "none"),
    "outcomes": bool,
    "replay": bool,
}
#: The question that opens protocol 3.
QUESTION: Final = {"id": "capabilities", "ask": "capabilities"}


class CapabilityError(ValueError):
    """Capabilities that cannot be read: an unknown name, a value not allowed."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the engine does. The defaults are a protocol 2 engine's: everything."""

    rulesets: tuple[str, ...] = tuple(RULESETS)
    notations: tuple[str, ...] = NOTATIONS
    options: str = "any"
    renuncio: str = "flags"
    obligations: bool = True
    illegal_codes: bool = True
    declarations: str = "moves"
    outcomes: bool = True
    replay: bool = True
    #: whether the engine (or the command line) declared them: False for protocol 2
    declared: bool = False

    @property
    def blocks(self) -> bool:
        return self.renuncio == "blocks"

    @property
    def declares(self) -> bool:
        """Whether declarations are moves the engine is asked about."""
        return self.declarations == "moves"

    def with_values(self, values: Mapping[str, Any]) -> Capabilities:
        """These capabilities with ``values`` over them (a :class:`CapabilityError` for a name
        or value not allowed)."""
        changed: dict[str, Any] = {}
        for name, value in values.items():
            allowed = CHOICES.get(name)
            if allowed is None:
                raise CapabilityError(f"unknown capability {name!r}")
            changed[name] = _value(name, value, allowed)
        return replace(self, **changed, declared=True)

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "declared"}
        return {**out, "rulesets": list(self.rulesets), "notations": list(self.notations)}


def _value(name: str, value: Any, allowed: Any) -> Any:
    if allowed is bool:
        if not isinstance(value, bool):
            raise CapabilityError(f"capability {name!r} must be true or false")
        return value
    if allowed is list:
        known = tuple(RULESETS) if name == "rulesets" else NOTATIONS
        if not isinstance(value, list) or not value or any(v not in known for v in value):
            raise CapabilityError(f"capability {name!r} must be a list of {', '.join(known)}")
        return tuple(v for v in known if v in value)
    if value not in allowed:
        raise CapabilityError(f"capability {name!r} must be one of {', '.join(allowed)}")
    return value


#: A protocol 2 engine's: everything asked, everything graded.
EVERYTHING: Final = Capabilities()


def parse(text: str) -> dict[str, Any]:
    """``--capabilities``: a JSON object, or the name of a file holding one."""
    source = text
    if not text.lstrip().startswith("{"):
        try:
            source = Path(text).read_text(encoding="utf-8")
        except OSError as err:
            raise CapabilityError(f"cannot read {text}: {err.strerror or err}") from None
    try:
        values = json.loads(source)
    except ValueError as err:
        raise CapabilityError(f"--capabilities is not JSON: {err}") from None
    if not isinstance(values, dict):
        raise CapabilityError("--capabilities must be a JSON object")
    EVERYTHING.with_values(values)  # refused now, before the engine is started
    return values


def ask(engine: Engine, overrides: Mapping[str, Any] | None = None) -> Capabilities:
    """The engine's capabilities: its answer to the opening question, with ``overrides`` over
    them. An answer without capabilities (``unsupported``, a trouble, anything else) is a
    protocol 2 engine's. Capabilities the engine declares wrongly are a :class:`CapabilityError`."""
    reply = engine.ask(dict(QUESTION))
    declared = reply.answer.get("capabilities") if reply.answer is not None else None
    caps = EVERYTHING
    if isinstance(declared, dict):
        caps = caps.with_values(declared)
    if overrides:
        caps = caps.with_values(overrides)
    return caps


def untested(caps: Capabilities) -> list[str]:
    """Word keys (``kit.untested.*``) of what these capabilities leave untested, in order."""
    out = []
    if set(caps.rulesets) != set(RULESETS):
        out.append("rulesets")
    if set(caps.notations) != set(NOTATIONS):
        out.append("notations")
    if caps.options == "defaults":
        out.append("options")
    if caps.blocks:
        out.append("blocks")
    elif not caps.obligations:
        out.append("obligations")
    if not caps.illegal_codes:
        out.append("illegal_codes")
    if not caps.declares:
        out.append(f"declarations_{caps.declarations}")
    if not caps.outcomes:
        out.append("outcomes")
    if not caps.replay:
        out.append("replay")
    return out


def untested_fields(caps: Capabilities) -> dict[str, Any]:
    """The fields the words of :func:`untested` name: the rulesets and notations left out."""
    return {
        "rulesets": ", ".join(r for r in RULESETS if r not in caps.rulesets),
        "notations": ", ".join(n for n in NOTATIONS if n not in caps.notations),
    }
