"""The rules a conformance vector exercises, and which rulesets each applies to.

Every name is derived from the engine, never written down twice: the obligations from
:class:`~arbiter.engine.obligations.Obligation`, the illegal codes from
:class:`~arbiter.engine.state.IllegalCode`, the outcome reasons from
:class:`~arbiter.engine.scoring.Reason`, and every value of every option from the
:class:`~arbiter.engine.rulesets.OptionSpec` of each ruleset. What the kit adds is where each
one applies, read from the ruleset's data (does it have a stock, declared cantes, a tute...),
and the names of the checks the engine has no enum for: setup faults (:class:`SetupFault`),
declarations, calls, draws, free play, French notation, events after the match.

A rule name is ``family`` or ``family:detail``: ``obligation:montar``, ``illegal:no_stock``,
``outcome:over_100``, ``option:match_target=5``, ``declaration:exchange``, ``call:two-pairs``,
``situation:trumped-split``, ``setup:duplicate-card``, ``contrafallar``, ``draws``,
``free-play``, ``french-notation``, ``after-match``. docs/conformance.md lists them with what
each vector shows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from enum import Enum, StrEnum
from functools import partial
from typing import Any, Final, TypeVar

from arbiter.conformance.kit.dealing import option_values
from arbiter.conformance.kit.protocol import Family, family_of
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import RULESETS, OptionSpec, Ruleset
from arbiter.engine.scoring import Reason
from arbiter.engine.state import IllegalCode
from devtools.vectors.situations import ARISES, Situation

Applies = Callable[[Ruleset], bool]
E = TypeVar("E", bound=Enum)


class Declaration(StrEnum):
    """The declarations a log records as events (docs/rules.md §4.1-§4.3)."""

    SING = "sing"
    TUTE = "tute"
    EXCHANGE = "exchange"


class Call(StrEnum):
    """Calls in the trick (docs/rules.md §4.4): the first makes trump and scores 40, later
    ones score 20, and one trick may hold two pairs (four or five players)."""

    FIRST = "first"
    LATER = "later"
    TWO_PAIRS = "two-pairs"


class SetupFault(StrEnum):
    """Ways a log is refused before any event is played (a 422 naming the field)."""

    CARDS_FORM = "cards-form"  # both hands and deck, or neither
    HAND_COUNT = "hand-count"  # not one hand per seat
    HAND_SIZE = "hand-size"  # a hand of the wrong size
    UNKNOWN_CARD = "unknown-card"  # a code that names no card
    CARD_NOT_IN_PACK = "card-not-in-pack"  # a card the ruleset's pack leaves out
    DUPLICATE_CARD = "duplicate-card"
    MISSING_CARD = "missing-card"
    STOCK = "stock"  # a stock missing (tute-2p) or given where there is none
    TRUMP_CARD = "trump-card"  # missing, not the dealer's, or given where there is none
    DEALER = "dealer"  # not a seat
    PLAYERS = "players"  # the wrong number, or names empty or repeated
    NOTATION = "notation"  # neither spanish nor french
    UNKNOWN_OPTION = "unknown-option"  # an option the ruleset does not have
    OPTION_VALUE = "option-value"  # a value the option does not allow
    EVENT = "event"  # a malformed event
    UNFINISHED_DEAL = "unfinished-deal"  # a deal before the last left unfinished


def _always(_: Ruleset) -> bool:
    return True


def _declared(r: Ruleset) -> bool:
    return r.cantes == "declared"


def _has_declarations(r: Ruleset) -> bool:
    return _declared(r) or r.tute or r.exchange


def _calls(r: Ruleset) -> bool:
    return r.cantes == "in_trick"


def _by_points(r: Ruleset) -> bool:
    return r.outcome == "most_points"


def _by_losers(r: Ruleset) -> bool:
    return r.outcome in ("cabron", "gana_pierde")


def _complete(enum: type[E], table: Mapping[E, Applies]) -> dict[E, Applies]:
    """``table`` checked to hold every member of ``enum``: a member added to the engine's enum
    must be placed here before the kit imports."""
    missing = set(enum) - set(table)
    if missing:
        raise RuntimeError(f"the conformance kit does not place {sorted(map(str, missing))}")
    return {member: table[member] for member in enum}


def _three_or_more(r: Ruleset) -> bool:
    # A trump can lie in the trick before a player void in the suit led only when someone
    # besides the leader has played: with two players, pisar never arises.
    return max(r.players) >= 3


OBLIGATIONS: Final = _complete(
    Obligation,
    {
        Obligation.ASISTIR: _always,
        Obligation.MONTAR: _always,
        Obligation.FALLAR: _always,
        Obligation.PISAR: _three_or_more,
    },
)
ILLEGAL: Final = _complete(
    IllegalCode,
    {
        IllegalCode.MATCH_OVER: _always,
        IllegalCode.DEAL_OVER: _always,
        IllegalCode.OUT_OF_TURN: _always,
        IllegalCode.CARD_NOT_IN_HAND: _always,
        IllegalCode.NOT_IN_RULESET: lambda r: not (_declared(r) and r.tute and r.exchange),
        IllegalCode.NOT_ON_LEAD: _has_declarations,
        IllegalCode.NO_TRICK_WON: _declared,
        IllegalCode.CANTE_ALREADY_DECLARED: _declared,
        IllegalCode.SUIT_ALREADY_SUNG: _declared,
        IllegalCode.PAIR_NOT_HELD: _declared,
        IllegalCode.TUTE_NOT_HELD: lambda r: r.tute,
        IllegalCode.NO_STOCK: lambda r: r.exchange,
        IllegalCode.SEVEN_NOT_HELD: lambda r: r.exchange,
    },
)
OUTCOMES: Final = _complete(
    Reason,
    {
        Reason.POINTS: _by_points,
        Reason.LAST_TRICK: _by_points,
        Reason.TIE: _by_points,
        Reason.TUTE: lambda r: r.tute,
        Reason.RENUNCIO: _always,
        Reason.NO_TRICKS: _by_losers,
        Reason.OVER_100: lambda r: r.outcome == "cabron",
        Reason.TIED: _by_losers,
        Reason.MIDDLE: lambda r: r.outcome == "cabron",
        Reason.EXTREMES: lambda r: r.outcome == "gana_pierde",
    },
)
DECLARATIONS: Final = _complete(
    Declaration,
    {
        Declaration.SING: _declared,
        Declaration.TUTE: lambda r: r.tute,
        Declaration.EXCHANGE: lambda r: r.exchange,
    },
)
CALLS: Final = _complete(
    Call,
    {
        Call.FIRST: _calls,
        Call.LATER: _calls,
        # a trick of four or five cards can hold two kings and two horses
        Call.TWO_PAIRS: lambda r: _calls(r) and max(r.players) >= 4,
    },
)
SETUP: Final = _complete(
    SetupFault,
    {
        **dict.fromkeys(SetupFault, _always),
        SetupFault.CARD_NOT_IN_PACK: lambda r: any(
            rank is not None for rank in r.removed_rank.values()
        ),
    },
)


#: Options that can change no answer in some rulesets, and where they can.
OPTION_EXERCISED: Final[dict[str, Callable[[Ruleset, Any], bool]]] = {
    # it is about pisar (above)
    "trump_when_cannot_overtrump": lambda r, _: _three_or_more(r),
}


def exercised(ruleset: Ruleset, spec: OptionSpec, value: Any) -> bool:
    """Whether some log of ``ruleset`` answers differently with this option value."""
    check = OPTION_EXERCISED.get(spec.name)
    return check is None or check(ruleset, value)


# --- names ---------------------------------------------------------------------------------------


def value_text(value: Any) -> str:
    """An option value as a rule name writes it: ``true``, ``5``, ``none``, ``[10,11]``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return json.dumps(list(value), separators=(",", ":"))
    return str(value)


#: The enum that names the details of a family's rules.
_DETAILS: Final[dict[Family, type[StrEnum]]] = {
    Family.OBLIGATION: Obligation,
    Family.ILLEGAL: IllegalCode,
    Family.OUTCOME: Reason,
    Family.DECLARATION: Declaration,
    Family.CALL: Call,
    Family.SETUP: SetupFault,
    Family.SITUATION: Situation,
}


def rule(family: Family, detail: str = "") -> str:
    """A rule's name: ``family``, or ``family:detail`` (a member of the family's enum)."""
    if family in _DETAILS:
        detail = _DETAILS[family](detail).value
    return f"{family.value}:{detail}" if detail else family.value


obligation = partial(rule, Family.OBLIGATION)
illegal = partial(rule, Family.ILLEGAL)
outcome = partial(rule, Family.OUTCOME)
declaration = partial(rule, Family.DECLARATION)
call = partial(rule, Family.CALL)
setup = partial(rule, Family.SETUP)
situation = partial(rule, Family.SITUATION)


def option_rule(name: str, value: Any) -> str:
    return rule(Family.OPTION, f"{name}={value_text(value)}")


def rules_for(ruleset: Ruleset) -> tuple[str, ...]:
    """Every rule that applies to ``ruleset``, in the order of the coverage table."""

    def where(table: Mapping[Any, Applies]) -> list[Any]:
        return [member for member, applies in table.items() if applies(ruleset)]

    options = [
        option_rule(s.name, v)
        for s in ruleset.option_specs
        for v in option_values(s)
        if exercised(ruleset, s, v)
    ]
    rules = [
        *map(obligation, where(OBLIGATIONS)),
        rule(Family.CONTRAFALLAR),
        *map(illegal, where(ILLEGAL)),
        *map(outcome, where(OUTCOMES)),
        *options,
        *map(declaration, where(DECLARATIONS)),
        *map(call, where(CALLS)),
    ]
    if ruleset.stock:
        rules += [rule(Family.DRAWS), rule(Family.FREE_PLAY)]
    rules += [*map(situation, where(ARISES))]
    rules += [rule(Family.FRENCH), *map(setup, where(SETUP)), rule(Family.AFTER_MATCH)]
    return tuple(rules)


def coverage_rules() -> dict[str, tuple[str, ...]]:
    """Ruleset name → the rules that apply to it (the rows of the coverage table)."""
    return {name: rules_for(ruleset) for name, ruleset in RULESETS.items()}


def all_rules() -> tuple[str, ...]:
    """Every rule of any ruleset, family by family, each in the order of the rulesets'."""
    seen: dict[str, None] = {}
    by_ruleset = coverage_rules().values()
    for family in Family:
        for rules in by_ruleset:
            seen.update(dict.fromkeys(r for r in rules if family_of(r) is family))
    return tuple(seen)
