"""The five rulesets of docs/rules.md §6 and their options.

A :class:`Ruleset` is static data: who plays, which pack, how trump is fixed, which
declarations exist and how deals and matches are decided. The options a log may override are
declared once per ruleset as :class:`OptionSpec`; :func:`resolve_options` checks a log's
overrides and returns a frozen :class:`Options` read by the hot path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final, Literal

from arbiter.engine.cards import HORSE, KING, PACK_SIZE, RANKS, Suit
from arbiter.engine.errors import MAX_COLLECTED, ArbiterError, ArbiterErrors, OptionError


class TrumpSource(StrEnum):
    """Where a deal's trump comes from."""

    STOCK = "stock"  # the turned card under the stock (tute-2p)
    DEALER = "dealer"  # the dealer's last card, shown (tute-3p, tute-4p)
    CALL = "call"  # the first call in a trick (cabrón, gana-pierde): no trump before it


class CanteStyle(StrEnum):
    """How king and horse of one suit score."""

    DECLARED = "declared"  # sung by the winner of the trick just completed
    IN_TRICK = "in_trick"  # called when both fall in one trick, by its winner


class OutcomeRule(StrEnum):
    """How a finished deal is decided (docs/rules.md §6)."""

    MOST_POINTS = "most_points"
    CABRON = "cabron"  # who loses the hand: no trick, over 100, tied, the middle score
    GANA_PIERDE = "gana_pierde"  # no trick loses; the most and the fewest points win


class MatchRule(StrEnum):
    """What a match counts, and so which counter of the standing ends it."""

    DEALS = "deals"  # deals won, up to match_target
    LOSER_POINTS = "loser_points"  # hands lost, up to loser_target
    TOKENS = "tokens"  # rounds won, up to token_target


class TieRule(StrEnum):
    """A tie for the most points that the last trick does not break (most-points rulesets)."""

    DRAWN = "drawn"  # nobody wins the deal
    SHARED = "shared"  # every tied player wins it (tute-3p)


class RenuncioAward(StrEnum):
    """Who wins a deal that a renuncio decided against the offender's side."""

    OTHERS = "others"  # every other side
    BEST_OTHER = "best_other"  # the best of the others on points (tute-3p)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option a log may set: its type, default, allowed values and meaning."""

    name: str
    type: Literal["integer", "boolean", "string", "ranks"]
    default: Any
    description: str
    allowed: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: object) -> Any:
        """The value, normalised, or :class:`OptionError` saying what is allowed."""
        if self.type == "boolean":
            if isinstance(value, bool):
                return value
            raise OptionError(f"{self.name} must be true or false", (self.name,))
        if self.type == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                raise OptionError(f"{self.name} must be an integer", (self.name,))
        elif self.type == "string":
            if not isinstance(value, str):
                raise OptionError(f"{self.name} must be a string", (self.name,))
        else:
            return _check_ranks(self.name, value)
        if self.allowed is not None and value not in self.allowed:
            choices = ", ".join(str(v) for v in self.allowed)
            raise OptionError(f"{self.name} must be one of {choices}", (self.name,))
        if self.minimum is not None and value < self.minimum:  # type: ignore[operator]
            raise OptionError(f"{self.name} must be at least {self.minimum}", (self.name,))
        if self.maximum is not None and value > self.maximum:  # type: ignore[operator]
            raise OptionError(f"{self.name} must be at most {self.maximum}", (self.name,))
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "array" if self.type == "ranks" else self.type,
            "default": list(self.default) if isinstance(self.default, tuple) else self.default,
            "description": self.description,
        }
        if self.allowed is not None:
            out["allowed"] = list(self.allowed)
        if self.type == "ranks":
            out["allowed"] = list(RANKS)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


def _check_ranks(name: str, value: object) -> tuple[int, int]:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v in RANKS for v in value)
        and value[0] != value[1]
    ):
        low, high = sorted(value)
        return (low, high)
    raise OptionError(f"{name} must be two different ranks out of {list(RANKS)}", (name,))


@dataclass(frozen=True, slots=True)
class Options:
    """Every option with its value in force; options a ruleset does not have keep defaults."""

    match_target: int = 3
    tie_break: str = "last_trick"
    cantes_per_trick: int = 1
    trump_when_cannot_overtrump: bool = True
    partner_relief: bool = False
    tute_requires_trick_won: bool = False
    exchange_requires_trick_won: bool = False
    renuncio_penalty: str = "lose_deal"
    loser_target: int = 4
    token_target: int = 3
    call_ranks: tuple[int, int] = (HORSE, KING)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from the defaults, JSON-ready (a new dict each time)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in _overrides(self)}


_DEFAULTS: Final = Options()


# Bounded: logs choose their options, and a client must not grow the memo without end.
@lru_cache(maxsize=256)
def _overrides(options: Options) -> tuple[tuple[str, Any], ...]:
    return tuple(
        (f.name, getattr(options, f.name))
        for f in fields(Options)
        if getattr(options, f.name) != getattr(_DEFAULTS, f.name)
    )


_O = OptionSpec
MATCH_TARGET = _O(
    "match_target", "integer", 3, "Deals a player (or side) must win to win the match.", (3, 5, 7)
)
TIE_BREAK = _O(
    "tie_break",
    "string",
    "last_trick",
    "On equal points the winner of the last trick takes the deal (last_trick), or nobody (none).",
    ("last_trick", "none"),
)
CANTES_PER_TRICK = _O(
    "cantes_per_trick", "integer", 1, "Cantes a player may declare for each trick won.",
    minimum=1, maximum=4,
)  # fmt: skip
TRUMP_WHEN_CANNOT_OVERTRUMP = _O(
    "trump_when_cannot_overtrump",
    "boolean",
    True,
    "A player void in the suit led who cannot overtrump must still play a trump.",
)
PARTNER_RELIEF = _O(
    "partner_relief",
    "boolean",
    False,
    "When the partner is winning the trick, a follower need not montar, fallar or pisar.",
)
TUTE_REQUIRES_TRICK_WON = _O(
    "tute_requires_trick_won",
    "boolean",
    False,
    "A tute may be declared only by a player who has won a trick (never on the first lead).",
)
EXCHANGE_REQUIRES_TRICK_WON = _O(
    "exchange_requires_trick_won",
    "boolean",
    False,
    "The seven of trumps may be exchanged only by a player leading after winning a trick.",
)
RENUNCIO_PENALTY = _O(
    "renuncio_penalty",
    "string",
    "lose_deal",
    "A renuncio loses the deal (lose_deal) or the whole match (lose_match) for the offender.",
    ("lose_deal", "lose_match"),
)
LOSER_TARGET = _O(
    "loser_target", "integer", 4, "Lost hands that lose the match.", minimum=1, maximum=100
)
TOKEN_TARGET = _O(
    "token_target", "integer", 3, "Rounds won that win the match.", minimum=1, maximum=100
)
CALL_RANKS = _O(
    "call_ranks",
    "ranks",
    (HORSE, KING),
    "The two ranks whose pair in one trick makes a call (king and horse).",
)

#: What each match system counts in the standing (``deals_won``, ``loser_points`` or ``tokens``)
#: and the option that says how many of them end the match.
MATCH_COUNTERS: Final[dict[MatchRule, tuple[str, str]]] = {
    MatchRule.DEALS: ("deals_won", MATCH_TARGET.name),
    MatchRule.LOSER_POINTS: ("loser_points", LOSER_TARGET.name),
    MatchRule.TOKENS: ("tokens", TOKEN_TARGET.name),
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """A variant of Tute: seats, pack, trump, declarations, deal outcome and match system. Its
    title is words (the catalogue's ``ruleset.<name>``, :func:`arbiter.i18n.ruleset_dict`)."""

    name: str
    description: str
    players: tuple[int, ...]
    #: cards dealt to each player, by number of players
    hand_size: Mapping[int, int]
    #: the rank removed from the 40-card pack, by number of players (None: whole pack)
    removed_rank: Mapping[int, int | None]
    trump_from: TrumpSource
    cantes: CanteStyle
    outcome: OutcomeRule
    match: MatchRule
    stock: bool = False
    tute: bool = False
    exchange: bool = False
    pairs: bool = False
    option_specs: tuple[OptionSpec, ...] = field(default=())
    #: most-points rulesets: a tie for the most points that the last trick does not break
    unbroken_tie: TieRule = TieRule.DRAWN
    #: who wins a deal decided by a renuncio
    renuncio_award: RenuncioAward = RenuncioAward.OTHERS

    def pack_size(self, players: int) -> int:
        """Cards in play: the 40 of the pack, less the four of the rank removed (if any)."""
        return PACK_SIZE - (0 if self.removed_rank[players] is None else len(Suit))

    def stock_size(self, players: int) -> int:
        """Cards of the stock as dealt (its turned card included): the pack less the hands."""
        return self.pack_size(players) - self.hand_size[players] * players if self.stock else 0

    def tricks(self, players: int) -> int:
        """Tricks in a deal: every card in play is played."""
        return self.pack_size(players) // players

    def option(self, name: str) -> OptionSpec | None:
        return _OPTION_SPECS[self.name].get(name)

    def to_dict(self) -> dict[str, Any]:
        counter, target = MATCH_COUNTERS[self.match]
        return {
            "name": self.name,
            "players": list(self.players),
            "cards_per_player": {str(n): self.hand_size[n] for n in self.players},
            "stock_size": {str(n): self.stock_size(n) for n in self.players},
            "description": self.description,
            "options": {spec.name: spec.to_dict() for spec in self.option_specs},
            "pairs": self.pairs,
            "stock": self.stock,
            "trump_from": self.trump_from.value,
            "cantes": self.cantes.value,
            "match": {"counter": counter, "target": target},
        }


_DECLARED_OPTIONS = (
    MATCH_TARGET,
    TIE_BREAK,
    CANTES_PER_TRICK,
    TRUMP_WHEN_CANNOT_OVERTRUMP,
    TUTE_REQUIRES_TRICK_WON,
    RENUNCIO_PENALTY,
)

RULESETS: Final[dict[str, Ruleset]] = {
    r.name: r
    for r in (
        Ruleset(
            name="tute-2p",
            description=(
                "Classic two-handed Tute: 8 cards each and a stock whose last card, turned up, "
                "fixes trump. Free play while the stock lasts, strict afterwards; cantes, tute "
                "and the exchange of the seven of trumps."
            ),
            players=(2,),
            hand_size={2: 8},
            removed_rank={2: None},
            trump_from=TrumpSource.STOCK,
            cantes=CanteStyle.DECLARED,
            outcome=OutcomeRule.MOST_POINTS,
            match=MatchRule.DEALS,
            stock=True,
            tute=True,
            exchange=True,
            option_specs=(*_DECLARED_OPTIONS, EXCHANGE_REQUIRES_TRICK_WON),
        ),
        Ruleset(
            name="tute-3p",
            description=(
                "Three players alone, the 2s removed, 12 cards each; the dealer's last card "
                "fixes trump. Strict play, cantes and tute."
            ),
            players=(3,),
            hand_size={3: 12},
            removed_rank={3: 2},
            trump_from=TrumpSource.DEALER,
            cantes=CanteStyle.DECLARED,
            outcome=OutcomeRule.MOST_POINTS,
            match=MatchRule.DEALS,
            tute=True,
            option_specs=_DECLARED_OPTIONS,
            unbroken_tie=TieRule.SHARED,
            renuncio_award=RenuncioAward.BEST_OTHER,
        ),
        Ruleset(
            name="tute-4p",
            description=(
                "Four players, seats 0 and 2 against 1 and 3, 10 cards each; the dealer's last "
                "card fixes trump. Strict play, cantes by the trick winner, tute wins the deal "
                "for the side."
            ),
            players=(4,),
            hand_size={4: 10},
            removed_rank={4: None},
            trump_from=TrumpSource.DEALER,
            cantes=CanteStyle.DECLARED,
            outcome=OutcomeRule.MOST_POINTS,
            match=MatchRule.DEALS,
            tute=True,
            pairs=True,
            option_specs=(*_DECLARED_OPTIONS, PARTNER_RELIEF),
        ),
        Ruleset(
            name="tute-cabron",
            description=(
                "Three players, the 2s removed, 12 cards each, no trump until the first call "
                "(king and horse in one trick). The middle score loses the hand; first to "
                "4 lost hands loses the match."
            ),
            players=(3,),
            hand_size={3: 12},
            removed_rank={3: 2},
            trump_from=TrumpSource.CALL,
            cantes=CanteStyle.IN_TRICK,
            outcome=OutcomeRule.CABRON,
            match=MatchRule.LOSER_POINTS,
            option_specs=(TRUMP_WHEN_CANNOT_OVERTRUMP, RENUNCIO_PENALTY, LOSER_TARGET, CALL_RANKS),
        ),
        Ruleset(
            name="tute-gana-pierde",
            description=(
                "Three to five players alone (3: aces removed, 12 each; 4: 10 each; 5: 8 each), "
                "no trump until the first call. Most and fewest points win the round; first to "
                "3 tokens wins."
            ),
            players=(3, 4, 5),
            hand_size={3: 12, 4: 10, 5: 8},
            removed_rank={3: 1, 4: None, 5: None},
            trump_from=TrumpSource.CALL,
            cantes=CanteStyle.IN_TRICK,
            outcome=OutcomeRule.GANA_PIERDE,
            match=MatchRule.TOKENS,
            option_specs=(TRUMP_WHEN_CANNOT_OVERTRUMP, RENUNCIO_PENALTY, TOKEN_TARGET, CALL_RANKS),
        ),
    )
}


#: Each ruleset's options by name (logs name them; a lookup must not scan).
_OPTION_SPECS: Final[dict[str, dict[str, OptionSpec]]] = {
    r.name: {spec.name: spec for spec in r.option_specs} for r in RULESETS.values()
}


#: The most players any ruleset seats.
MAX_PLAYERS: Final = max(n for r in RULESETS.values() for n in r.players)
#: A tuple of ``n`` zeros for every count of players.
_ZEROS: Final[tuple[tuple[int, ...], ...]] = tuple((0,) * n for n in range(MAX_PLAYERS + 1))


def zeros(players: int) -> list[int]:
    """A new list of a zero per seat: copied from a tuple, which costs the compiled build less
    than ``[0] * players`` (a list made, multiplied and freed)."""
    return list(_ZEROS[players])


#: Every option of any ruleset, once each, in the order the rulesets declare them.
OPTION_SPECS: Final[dict[str, OptionSpec]] = {
    spec.name: spec for r in RULESETS.values() for spec in r.option_specs
}


def partner(seat: int) -> int:
    """The partner of ``seat`` in pairs (tute-4p): seats 0 and 2 play against 1 and 3."""
    return (seat + 2) % 4


def get_ruleset(name: object) -> Ruleset:
    """The ruleset called ``name``, or :class:`OptionError` listing the known ones."""
    if isinstance(name, str) and name in RULESETS:
        return RULESETS[name]
    known = ", ".join(RULESETS)
    raise OptionError(f"unknown ruleset {name!r}; known: {known}", ("ruleset",))


def resolve_options(ruleset: Ruleset, overrides: Mapping[str, object] | None) -> Options:
    """A log's option overrides checked against the ruleset, merged over the defaults. Every
    bad option is reported (:class:`ArbiterErrors`), the first :data:`MAX_COLLECTED` by name."""
    if overrides is None or (isinstance(overrides, Mapping) and not overrides):
        return _DEFAULTS
    if not isinstance(overrides, Mapping):
        raise OptionError("options must be an object", ("options",))
    specs = _OPTION_SPECS[ruleset.name]
    values: dict[str, Any] = {}
    errors: list[ArbiterError] = []
    omitted = 0
    for name, value in overrides.items():
        spec = specs.get(name)
        if len(errors) >= MAX_COLLECTED:
            omitted += spec is None or not _valid(spec, value)
            continue
        try:
            if spec is None:
                raise OptionError(f"{ruleset.name} has no option {name!r}", (str(name),))
            values[name] = spec.check(value)
        except OptionError as err:
            errors.append(err.at("options"))
    if len(errors) == 1 and not omitted:
        raise errors[0]
    if errors:
        raise ArbiterErrors(errors, omitted)
    return Options(**values)


def _valid(spec: OptionSpec, value: object) -> bool:
    try:
        spec.check(value)
    except OptionError:
        return False
    return True
