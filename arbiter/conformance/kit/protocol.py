"""The vectors and the questions an engine is asked (docs/conformance.md, "The vectors" and
"The protocol").

A :class:`Vector` is one line of ``<ruleset>.jsonl``: ``{"id", "ruleset", "rule", "ask", "log",
"expect"}``, where ``log`` is a game log of docs/api.md, ``ask`` what the engine is asked about
it, and ``expect`` one of four answers — ``legal_moves``, ``verdict`` (with the ``move`` judged,
and the deal's ``outcome`` when the move ends it), ``replay`` or ``error`` (a log the referee
refuses, whatever it is asked). :meth:`Vector.question` is what the engine under test receives
about it, and nothing more: in protocol 2 the ``position`` the log leads to beside the log.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

#: The version of the vector format; a checker refuses a set of another version.
KIT_VERSION: Final = 2
#: The version of the questions: 3 opens with the engine's capabilities; 2 adds the ``position``
#: beside the log; 1 is the log alone.
PROTOCOL_VERSION: Final = 3
#: The players of the kit's logs (the examples' names), by seat.
NAMES: Final = ("ana", "bea", "carla", "dani", "eva")


class KitError(Exception):
    """A set of vectors that cannot be used: missing, altered, or of another version."""


class Ask(StrEnum):
    """What the engine under test is asked about a vector's log."""

    LEGAL_MOVES = "legal_moves"  # every move open to the player to act (order-free)
    VERDICT = "verdict"  # is this move ok, a renuncio or illegal?
    REPLAY = "replay"  # the adjudication of the whole log (or its refusal)


class Family(StrEnum):
    """The kinds of rule a vector exercises, in the order the coverage table lists them. A rule
    name is ``family`` or ``family:detail`` (``obligation:montar``, ``option:match_target=5``,
    ``draws``); docs/conformance.md lists them."""

    OBLIGATION = "obligation"
    CONTRAFALLAR = "contrafallar"  # holding neither the suit led nor a trump: any card
    ILLEGAL = "illegal"
    OUTCOME = "outcome"
    OPTION = "option"
    DECLARATION = "declaration"
    CALL = "call"
    DRAWS = "draws"
    FREE_PLAY = "free-play"
    SITUATION = "situation"  # a position engines get wrong
    FRENCH = "french-notation"
    SETUP = "setup"
    AFTER_MATCH = "after-match"


def family_of(rule: str) -> Family | None:
    """The family a rule name belongs to (None: a name of no family of the kit's)."""
    try:
        return Family(rule.partition(":")[0])
    except ValueError:
        return None


class Kind(StrEnum):
    """The kinds of ``expect``, named by the key that holds the answer."""

    LEGAL_MOVES = "legal_moves"
    VERDICT = "verdict"
    REPLAY = "replay"
    ERROR = "error"  # a log the referee refuses


#: The asks each kind of ``expect`` answers (a refusal answers any of them).
ASKED: Final[dict[Kind, tuple[Ask, ...]]] = {
    Kind.LEGAL_MOVES: (Ask.LEGAL_MOVES,),
    Kind.VERDICT: (Ask.VERDICT,),
    Kind.REPLAY: (Ask.REPLAY,),
    Kind.ERROR: (Ask.REPLAY, Ask.LEGAL_MOVES, Ask.VERDICT),
}
#: What the engine is asked for each kind of ``expect`` unless a vector says otherwise.
EXPECT_KINDS: Final = {kind: asks[0] for kind, asks in ASKED.items()}


def kind_of(expect: Mapping[str, Any]) -> Kind:
    """The kind of an ``expect`` (its first key that names one)."""
    return next(k for k in Kind if k in expect)


def events_in(log: Mapping[str, Any]) -> int:
    """How many events a log holds in all its deals (a vector's size)."""
    deals = log.get("deals")
    if not isinstance(deals, list):
        return 0
    return sum(len(d.get("events", [])) for d in deals if isinstance(d, Mapping))


def dumps(value: Any) -> str:
    """One line of compact JSON (the files' form, and the protocol's)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Vector:
    """One conformance vector."""

    id: str
    ruleset: str
    rule: str
    ask: Ask
    log: dict[str, Any]
    expect: dict[str, Any]

    @property
    def kind(self) -> Kind:
        return kind_of(self.expect)

    @property
    def events(self) -> int:
        return events_in(self.log)

    @property
    def move(self) -> dict[str, Any] | None:
        move = self.expect.get("move") if self.ask is Ask.VERDICT else None
        return move if isinstance(move, dict) else None

    def question(
        self, protocol: int = PROTOCOL_VERSION, position: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """What the engine under test receives (docs/conformance.md, "The protocol"): in
        protocol 2 with ``position`` (None: the referee has none for this log)."""
        return question(self.id, self.ask, self.log, self.move, protocol, position)

    def to_line(self) -> str:
        return dumps(
            {
                "id": self.id,
                "ruleset": self.ruleset,
                "rule": self.rule,
                "ask": self.ask.value,
                "log": self.log,
                "expect": self.expect,
            }
        )

    @classmethod
    def from_line(cls, line: str, where: str) -> Vector:
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as err:
            raise KitError(f"{where}: not JSON ({err.msg})") from None
        if not isinstance(raw, dict):
            raise KitError(f"{where}: a vector is a JSON object")
        for key, kind in (("id", str), ("ruleset", str), ("rule", str), ("ask", str)):
            if not isinstance(raw.get(key), kind):
                raise KitError(f"{where}: {key} must be a string")
        log, expect = raw.get("log"), raw.get("expect")
        if not isinstance(log, dict) or not isinstance(expect, dict):
            raise KitError(f"{where}: log and expect must be objects")
        if sum(k in expect for k in EXPECT_KINDS) != 1:
            raise KitError(f"{where}: expect must hold one of {', '.join(EXPECT_KINDS)}")
        if raw["ask"] not in ASKED[kind_of(expect)]:
            raise KitError(f"{where}: {kind_of(expect).value} does not answer {raw['ask']!r}")
        ask = Ask(raw["ask"])
        if ask is Ask.VERDICT and not isinstance(expect.get("move"), dict):
            raise KitError(f"{where}: a verdict names its move")
        return cls(raw["id"], raw["ruleset"], raw["rule"], ask, log, expect)


def question(
    id: str,
    ask: Ask,
    log: Mapping[str, Any],
    move: Mapping[str, Any] | None,
    protocol: int = PROTOCOL_VERSION,
    position: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A question, its fields in the order docs/conformance.md lists them: ``id``, ``protocol``
    (2), ``ask``, ``move`` (verdicts), ``log``, ``position`` (2; null when the referee has
    none)."""
    out: dict[str, Any] = {"id": id}
    if protocol >= 2:
        out["protocol"] = protocol
    out["ask"] = ask.value
    if move is not None:
        out["move"] = move
    out["log"] = log
    if protocol >= 2:
        out["position"] = position
    return out
