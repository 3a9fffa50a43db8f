"""The ``position`` of a question (protocol 2): what an engine needs to answer without replaying the
log, made from the engine's position view (docs/conformance.md, "The position").

:func:`position_json` is the engine's :class:`~arbiter.engine.position.PositionView` as the page's
steps show it (:func:`arbiter.report.view_dict`, without its ``legal_moves``: those are what the
engine is asked), with the header (ruleset, every option in force, players, notation), the deal's
place in the match, the renuncios made so far (the first one decides the deal) and the match
standing. :func:`position_of` is the position a log leads to, or None when the referee has none
to give (a log it refuses, or one whose replay stops at an illegal event).

:class:`Judge` goes the other way, for the shipped adapter: this project's engine set to a
position read from its JSON alone (through the engine's own field list, as a sealed token is
read), answering legal moves and verdicts as the referee does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arbiter.conformance.kit.referee_answers import verdict_answer
from arbiter.engine.cards import POINTS, Card, format_card, parse_card, parse_suit
from arbiter.engine.errors import ArbiterError, LogError
from arbiter.engine.log import Header, parse_header
from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.obligations import NO_TRUMP, beats
from arbiter.engine.position import Position
from arbiter.engine.records import Decisive, DecisiveKind, Renuncio
from arbiter.engine.rulesets import CanteStyle
from arbiter.engine.scoring import MatchStanding
from arbiter.engine.state import POSITION_FIELDS, DealState
from arbiter.report import match_dict, view_dict

#: What the view shows that the question must not: the answer to a ``legal_moves`` question.
_NOT_SHOWN: Final = frozenset({"legal_moves"})


def _options(header: Header) -> dict[str, Any]:
    """Every option of the ruleset with the value in force (ranks as a list)."""
    values = {}
    for spec in header.ruleset.option_specs:
        value = getattr(header.options, spec.name)
        values[spec.name] = list(value) if isinstance(value, tuple) else value
    return values


def _renuncio(v: Renuncio, header: Header) -> dict[str, Any]:
    card = format_card(v.card, header.notation)
    return {"event": v.event, "seat": v.seat, "card": card, "obligation": v.obligation.value,
            "trick": v.trick}  # fmt: skip


def position_json(position: Position) -> dict[str, Any]:
    """The ``position`` of a question asked at this point of the match."""
    header = position.header
    view = position.view()
    shown = {k: v for k, v in view_dict(view, header).items() if k not in _NOT_SHOWN}
    return {
        "ruleset": header.ruleset.name,
        "options": _options(header),
        "players": list(header.players),
        "notation": header.notation,
        "deal": view.deal,
        "dealer": view.dealer,
        "mano": view.mano,
        **shown,
        "renuncios": [_renuncio(v, header) for v in position.deal.violations],
        "match": match_dict(header, position.standing),
    }


def position_of(log: object) -> dict[str, Any] | None:
    """The position ``log`` leads to, or None when the referee has none: it refuses the log, or
    its replay stops at an illegal event."""
    try:
        return position_of_log(log)
    except ArbiterError:
        return None


def position_of_log(log: object) -> dict[str, Any]:
    """The position ``log`` leads to; an :class:`ArbiterError` (with the pointer of the field
    or the event) when the referee refuses the log or its replay stops at an illegal event."""
    match = replay(log)
    illegal = match.illegal
    if illegal is not None:
        where: tuple[str | int, ...] = ("deals", illegal.deal)
        if illegal.event is not None:
            where += ("events", illegal.event)
        raise LogError(f"the log is invalid here ({illegal.code.value})", where)
    if not match.deals:
        raise LogError("no deal to play", ("deals",))
    return position_json(match.position())


# --- reading a position back: the shipped adapter's engine ----------------------------------------


def _trick_state(plays: list[tuple[int, Card]], trump: int) -> dict[str, Any]:
    """The trick's derived fields: its points, the suit led, the winning card and seat."""
    if not plays:
        return {"trick_points": 0, "led_suit": -1, "win_card": -1, "win_seat": -1}
    win_seat, win_card = plays[0]
    for seat, card in plays[1:]:
        if beats(card, win_card, trump):
            win_seat, win_card = seat, card
    return {
        "trick_points": sum(POINTS[c] for _, c in plays),
        "led_suit": plays[0][1] // 10,
        "win_card": win_card,
        "win_seat": win_seat,
    }


def _deal_state(header: Header, data: Mapping[str, Any]) -> DealState:
    ruleset, notation = header.ruleset, header.notation
    players = len(header.players)
    trump = NO_TRUMP if data["trump"] is None else parse_suit(data["trump"], notation)
    turned = -1 if data.get("turned") is None else parse_card(data["turned"], notation)
    trick = data["trick"]
    plays = [(p["seat"], parse_card(p["card"], notation)) for p in trick["plays"]]
    trick_no: int = trick["number"]
    cantes = data["cantes"]
    declared = ruleset.cantes == CanteStyle.DECLARED
    cante_points = [0] * players
    sung = 0
    for c in cantes:
        cante_points[c["seat"]] += c["points"]
        sung |= 1 << parse_suit(c["suit"], notation)
    stock_left: int = data.get("stock_left", 0)
    first = data["renuncios"][0] if data["renuncios"] else None
    leader: int = trick["leader"]
    fields: dict[str, Any] = {
        "dealer": data["dealer"],
        "hands": [sum(1 << parse_card(c, notation) for c in hand) for hand in data["hands"]],
        # The cards of the stock are unknown but the turned one, drawn last: only its size and
        # last card are read before the stock runs out, which ends every deal it is in.
        "stock": [max(turned, 0)] * stock_left,
        "stock_pos": 0,
        "turned": turned,
        "trump": trump,
        "turn": leader if data["turn"] is None else data["turn"],
        "leader": leader,
        "trick": plays,
        **_trick_state(plays, trump),
        "strict": not ruleset.stock or stock_left == 0,
        "trick_no": trick_no,
        "tricks_won": list(data["tricks_won"]),
        "card_points": list(data["card_points"]),
        "cante_points": cante_points,
        "sung": sung if declared else 0,
        "cantes_this_lead": sum(1 for c in cantes if c["trick"] == trick_no - 1) if declared else 0,
        "calls": 0 if declared else len(cantes),
        # the winner of a trick leads the next
        "last_winner": leader if trick_no > 0 else -1,
        "decisive": None
        if first is None
        else Decisive(DecisiveKind.RENUNCIO, first["seat"], first["event"]),
        "over": data["over"],
        "events_applied": data["event"],
    }
    state = DealState(ruleset, header.options, players)
    for name in POSITION_FIELDS:
        setattr(state, name, fields[name])
    return state


def read_position(data: Mapping[str, Any]) -> Position:
    """This project's engine at the point a question's ``position`` describes."""
    raw_header = {k: data[k] for k in ("ruleset", "options", "players", "notation")}
    header = parse_header(raw_header)
    match = data["match"]
    rows = match["standings"]
    standing = MatchStanding.from_fields(
        [
            [r["deals_won"] for r in rows],
            [r["loser_points"] for r in rows],
            [r["tokens"] for r in rows],
            match["over"],
            match["winners"],
            match["losers"],
        ]
    )
    return Position(header, standing, data["deal"] + 1, _deal_state(header, data))


class Judge:
    """This project's engine answering from a question's ``position`` alone."""

    def __init__(self, position: Mapping[str, Any]) -> None:
        self.position = read_position(position)

    def legal_moves(self) -> list[dict[str, Any]] | None:
        """Every move open to the seat to act (None once the deal or the match is over)."""
        position = self.position
        if position.deal.over or position.standing.over:
            return None
        notation = position.header.notation
        return [m.to_json(notation) for m in position.deal.legal_moves()]

    def verdict(self, move: object) -> dict[str, Any]:
        """The verdict on ``move`` (an event of docs/api.md), as the referee answers it."""
        header = self.position.header
        event = Move.from_json(move, len(header.players), header.notation)
        return verdict_answer(self.position, self.position.judge(event))
