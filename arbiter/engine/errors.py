"""Typed errors of the engine: bad input that no table could have produced.

These are *input* errors (a malformed log, an impossible deal, an unknown option). Events that
a real table could not have produced but that are well-formed (playing out of turn, a cante
without the pair...) are not exceptions: they are :class:`~arbiter.engine.state.Illegal`
results of the replay (docs/rules.md §8).

Every error carries a ``path`` into the log (``("deals", 0, "hands", 1, 3)``), which the HTTP
layer turns into a JSON pointer, and a :class:`FaultCode` with the ``params`` its message names,
so that a client words it from its own catalogue rather than parsing the English ``message``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any, TypeGuard

PathPart = str | int
Path = tuple[PathPart, ...]


class FaultCode(StrEnum):
    """What is wrong with an input, stable across versions and languages (docs/api.md,
    "Errors"); ``INVALID`` for the faults that have no code of their own yet."""

    INVALID = "invalid"
    MISSING = "missing"
    NOT_OBJECT = "not_object"
    LIST_SIZE = "list_size"
    INT_RANGE = "int_range"
    CARD_CODE = "card_code"
    ONE_OF = "one_of"
    BOOLEAN = "boolean"
    MUST_BE = "must_be"
    DOES_NOT_FOLLOW = "does_not_follow"
    PLAY_SEAT = "play_seat"
    DRAW_SEAT = "draw_seat"
    DRAW_COUNT = "draw_count"
    TRICK_LEADER = "trick_leader"
    TABLE_LEADER = "table_leader"
    NO_STOCK = "no_stock"
    NO_EXCHANGE = "no_exchange"
    NO_TURNED_CARD = "no_turned_card"
    TRUMP_BY_CALL = "trump_by_call"
    TURNED_MISSING = "turned_missing"
    TRUMP_OF_TURNED = "trump_of_turned"
    EXCHANGE_BEFORE_TRICK = "exchange_before_trick"
    EXCHANGE_NOT_LEADER = "exchange_not_leader"
    EXCHANGE_NO_STOCK = "exchange_no_stock"
    RENUNCIO_NOT_PLAYED = "renuncio_not_played"
    RENUNCIO_IN_UNKNOWN_TRICK = "renuncio_in_unknown_trick"
    DECIDED_BY_RENUNCIO = "decided_by_renuncio"
    RENUNCIO_DECIDES = "renuncio_decides"
    CARD_NOT_IN_PACK = "card_not_in_pack"
    REPEATED = "repeated"
    HAND_SIZE = "hand_size"
    STOCK_SIZE = "stock_size"
    POINTS_BELOW_KNOWN = "points_below_known"
    POINTS_NOT_KNOWN_TRICKS = "points_not_known_tricks"
    UNKNOWN_POINTS_TOO_MANY = "unknown_points_too_many"
    UNKNOWN_POINTS_NOT_ALL = "unknown_points_not_all"
    DEAL_WITH_POSITION = "deal_with_position"


class ArbiterError(ValueError):
    """Base of every input error; ``path`` points at the offending field of the log, ``fault``
    (the answers' ``code``) says what is wrong and ``params`` holds the values its message
    names (JSON values)."""

    def __init__(
        self,
        message: str,
        path: Path = (),
        fault: FaultCode = FaultCode.INVALID,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.fault = fault
        self.params: dict[str, Any] = dict(params or {})

    def at(self, *prefix: PathPart) -> ArbiterError:
        """The same error, its path prefixed (errors are raised deep and located on the way up)."""
        self.path = (*prefix, *self.path)
        return self

    @property
    def pointer(self) -> str:
        """The path as an RFC 6901 JSON pointer."""
        return pointer(self.path)

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}" if self.path else self.message


#: The most errors one :class:`ArbiterErrors` keeps; any more are only counted.
MAX_COLLECTED = 100


class ArbiterErrors(ArbiterError):
    """Several input errors found in one pass (the options of a log, say): ``errors`` in the
    order found, at most :data:`MAX_COLLECTED`, and ``omitted`` more that were only counted."""

    def __init__(self, errors: list[ArbiterError], omitted: int = 0) -> None:
        super().__init__(errors[0].message, errors[0].path, errors[0].fault, errors[0].params)
        self.errors = errors
        self.omitted = omitted

    def at(self, *prefix: PathPart) -> ArbiterError:
        for err in self.errors:
            err.at(*prefix)
        # the first error's message may name a path too, prefixed with it
        self.path, self.message = self.errors[0].path, self.errors[0].message
        return self


class CardCodeError(ArbiterError):
    """A card or suit code that does not name a card of the notation in use."""

    def __init__(self, code: object, notation: str, what: str = "card") -> None:
        params = {"code": code, "notation": notation, "what": what}
        super().__init__(
            f"{code!r} is not a {notation} {what} code", (), FaultCode.CARD_CODE, params
        )
        self.code = code


class OptionError(ArbiterError):
    """An unknown option for the ruleset, or a value it does not allow."""


class SetupError(ArbiterError):
    """A deal whose cards are not a correct deal of the ruleset's pack."""


class LogError(ArbiterError):
    """A log that is malformed (wrong types, unknown names, unfinished deal before the last)."""


class RepeatedError(LogError):
    """A thing given a second time, at ``path``: the message names where it was first given
    (``first``) by a pointer as full as the error's own, both prefixed alike as the error is
    located on the way up (a position's card twice: ``/position/hands/1/0``, "this card is
    already at /position/hands/0/0")."""

    def __init__(self, what: str, first: Path, path: Path) -> None:
        self.what = what
        self.first = first
        super().__init__(
            f"{what} {pointer(first)}", path, FaultCode.REPEATED, {"first": pointer(first)}
        )

    def at(self, *prefix: PathPart) -> ArbiterError:
        self.first = (*prefix, *self.first)
        self.message = f"{self.what} {pointer(self.first)}"
        self.params["first"] = pointer(self.first)
        return super().at(*prefix)


def pointer(path: Path) -> str:
    """A path as an RFC 6901 JSON pointer."""
    parts = (str(p).replace("~", "~0").replace("/", "~1") for p in path)
    return "".join("/" + p for p in parts)


def is_object(raw: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether a parsed JSON value is an object. A parser's ``dict`` is tried first: the
    ``Mapping`` check alone is a call into :class:`abc.ABCMeta` per value (measured by the
    archive's profile: a few per game, in both builds)."""
    return type(raw) is dict or isinstance(raw, Mapping)


def is_array(raw: object) -> TypeGuard[Sequence[Any]]:
    """Whether a parsed JSON value is an array (a ``list`` first, as :func:`is_object`); a
    string is a ``Sequence`` but never a JSON array."""
    return type(raw) is list or (isinstance(raw, Sequence) and not isinstance(raw, str))
