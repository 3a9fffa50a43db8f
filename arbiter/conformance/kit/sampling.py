"""The questions play-testing asks at one point of a game, what the referee answers them, and
what sets a disagreement apart (:class:`Signature`).

At a :class:`~arbiter.engine.position.Position` of the engine, :func:`sample` judges every move
worth trying there — each card of the seat to act, each declaration of it and of another seat,
a card of another seat's, one nobody holds — and keeps one per kind of move and verdict (a legal
play, a renuncio of each obligation possible there, an illegal event of each code possible
there). :func:`label` names a verdict (``ok``, ``renuncio:montar``, ``illegal:no_stock``) and
:func:`rule_of` the kit's rule a move exercises. The answers are the referee's own
(:func:`~arbiter.conformance.kit.referee_answers.verdict_answer`), so a game played against an
engine is judged exactly as the vectors are.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from arbiter.conformance.kit.engines import Reply
from arbiter.conformance.kit.grading import Result, judge, move_key
from arbiter.conformance.kit.protocol import PROTOCOL_VERSION, Ask, Vector, dumps
from arbiter.conformance.kit.referee_answers import verdict_answer
from arbiter.engine.cards import SUIT_MASK, Suit, cards_of
from arbiter.engine.errors import ArbiterError
from arbiter.engine.moves import PLAY, Move, TuteOf
from arbiter.engine.obligations import NO_TRUMP, broken_obligation
from arbiter.engine.position import Judgement, Position, Ruling
from arbiter.engine.rulesets import partner
from arbiter.engine.state import IllegalCode

#: Codes that almost every position can draw: asked at a position with this probability only,
#: so that the questions go to the rarer ones (and the games run faster).
COMMON: Final = frozenset(
    {
        IllegalCode.OUT_OF_TURN,
        IllegalCode.CARD_NOT_IN_HAND,
        IllegalCode.NOT_ON_LEAD,
        IllegalCode.NOT_IN_RULESET,
    }
)
COMMON_RATE: Final = 0.1


def label(judgement: Judgement) -> str:
    """``ok``, ``renuncio:<obligation>`` or ``illegal:<code>``."""
    if judgement.renuncio is not None:
        return f"renuncio:{judgement.renuncio.obligation.value}"
    if judgement.code is not None:
        return f"illegal:{judgement.code.value}"
    return Ruling.OK.value


def kind_name(move: Move) -> str:
    """A move's ``type`` as the log writes it."""
    return str(move.to_json("spanish")["type"])


def rule_of(position: Position, judgement: Judgement) -> str:
    """The kit's rule a move exercises: its illegal code, the obligation a renuncio breaks, the
    declaration made, or for a correct play the obligation it is judged by (``lead`` for a
    card led)."""
    if judgement.code is not None:
        return f"illegal:{judgement.code.value}"
    if judgement.renuncio is not None:
        return f"obligation:{judgement.renuncio.obligation.value}"
    move = judgement.move
    if move.kind != PLAY:
        return f"declaration:{kind_name(move)}"
    deal = position.deal
    if not deal.trick:
        return "lead"
    if not deal.strict:
        return "free-play"
    if deal.relief and deal.win_seat == partner(move.seat):
        return "option:partner_relief=true"
    hand, led, trump = deal.hands[move.seat], deal.led_suit, deal.trump
    if not hand & SUIT_MASK[led] and (trump == NO_TRUMP or not hand & SUIT_MASK[trump]):
        return "contrafallar"
    return f"obligation:{broken_obligation(move.card, hand, led, trump).value}"


def legal_answer(position: Position) -> dict[str, Any]:
    """The referee's answer to ``legal_moves`` here (null once the deal or the match is over)."""
    deal = position.deal
    if deal.over or position.standing.over:
        return {"legal_moves": None}
    notation = position.header.notation
    return {"legal_moves": [m.to_json(notation) for m in deal.legal_moves()]}


def _declarations(seat: int) -> list[Move]:
    moves = [Move.sing(seat, s) for s in Suit] + [Move.tute(seat, of) for of in TuteOf]
    return [*moves, Move.exchange(seat)]


def candidates(position: Position) -> list[Move]:
    """The moves worth judging at a position: every card and declaration of the seat to act;
    a card and the declarations of the next seat; a card nobody holds or another seat's."""
    deal = position.deal
    players = deal.players
    seat = deal.turn
    other = (seat + 1) % players
    moves = [Move.play(seat, c) for c in cards_of(deal.hands[seat])]
    moves += _declarations(seat)
    theirs = cards_of(deal.hands[other])
    if theirs:
        moves.append(Move.play(other, theirs[0]))
        moves.append(Move.play(seat, theirs[-1]))  # a card the seat does not hold
    played = [c for _, c in deal.trick]
    if played:
        moves.append(Move.play(seat, played[0]))
    moves += _declarations(other)
    return moves


def sample(
    position: Position, rng: random.Random, common_rate: float = COMMON_RATE
) -> list[tuple[Move, Judgement]]:
    """One move of each (type, verdict) the position allows, chosen at random among those —
    those of the :data:`COMMON` codes only with ``common_rate``."""
    groups: dict[tuple[int, str], list[tuple[Move, Judgement]]] = {}
    for move in candidates(position):
        judged = position.judge(move)
        groups.setdefault((move.kind, label(judged)), []).append((move, judged))
    out = []
    for group in groups.values():
        if judged_common(group[0][1]) and rng.random() >= common_rate:
            continue
        out.append(group[rng.randrange(len(group))])
    return out


def judged_common(judgement: Judgement) -> bool:
    return judgement.code is not None and judgement.code in COMMON


def verdict_expect(position: Position, move: Move, judgement: Judgement) -> dict[str, Any]:
    """The referee's ``expect`` for a verdict on ``move`` here, with its ``move``."""
    return {**verdict_answer(position, judgement), "move": move.to_json(position.header.notation)}


def after_the_end(position: Position, last: Sequence[Move]) -> list[tuple[Move, Judgement]]:
    """Once the deal is over: the last move tried again (``deal_over``, or ``match_over``)."""
    return [(move, position.judge(move)) for move in last[-1:]]


class Signature(NamedTuple):
    """A disagreement, told apart from others: what was asked, the rule the move exercises,
    the referee's verdict on it and the engine's (``left out`` or ``allowed`` for a move of the
    legal moves)."""

    ask: str
    rule: str
    referee: str
    engine: str


class Asked(NamedTuple):
    """One question of a position: what it asks, and the referee's answer."""

    ask: Ask
    move: Move | None
    expect: dict[str, Any]


def line(qid: str, asked: Asked, log_text: str, position_text: str | None, notation: str) -> bytes:
    """A question's line, the log and the position given already encoded (the same bytes as
    ``dumps(protocol.question(...))``)."""
    parts = ['{"id":', dumps(qid)]
    if position_text is not None:
        parts.append(f',"protocol":{PROTOCOL_VERSION}')
    parts.append(f',"ask":"{asked.ask.value}"')
    if asked.move is not None:
        parts += [',"move":', dumps(asked.expect["move"])]
    parts += [',"log":', log_text]
    if position_text is not None:
        parts += [',"position":', position_text]
    parts.append("}\n")
    return "".join(parts).encode()


def questions_at(
    position: Position, rng: random.Random, asks: Sequence[Ask], last: Sequence[Move]
) -> list[Asked]:
    """What is asked at a position: its legal moves, and verdicts on a sample of moves (once
    the deal is over, the last move tried again)."""
    out = []
    if Ask.LEGAL_MOVES in asks:
        out.append(Asked(Ask.LEGAL_MOVES, None, legal_answer(position)))
    if Ask.VERDICT in asks:
        over = position.deal.over or position.standing.over
        judged = after_the_end(position, last) if over else sample(position, rng)
        for move, judgement in judged:
            out.append(Asked(Ask.VERDICT, move, verdict_expect(position, move, judgement)))
    return out


def _said_label(said: dict[str, Any]) -> str:
    kind = said.get("verdict")
    detail = said.get({"renuncio": "obligation", "illegal": "code"}.get(str(kind), ""))
    return f"{kind}:{detail}" if detail else str(kind)


def _outcome_label(said: Any) -> str:
    """``outcome:<reason>:<winners>`` of an outcome (or of an answer that holds one)."""
    outcome = said.get("outcome", said) if isinstance(said, dict) else None
    if not isinstance(outcome, dict):
        return "outcome:none"
    winners = outcome.get("winners")
    shown = ",".join(map(str, sorted(winners))) if isinstance(winners, list) else winners
    return f"outcome:{outcome.get('reason')}:{shown}"


def signature_of(position: Position, asked: Asked, said: dict[str, Any]) -> Signature:
    """What sets this disagreement apart: for the legal moves, the first move (in a stable
    order) the engine left out or allowed too; for a verdict, the two verdicts."""
    header = position.header
    if asked.ask is Ask.VERDICT:
        assert asked.move is not None
        judgement = position.judge(asked.move)
        ours, theirs = label(judgement), _said_label(said)
        if ours == theirs:  # the verdicts agree: the outcome does not
            ours, theirs = _outcome_label(asked.expect["outcome"]), _outcome_label(said)
        return Signature(asked.ask.value, rule_of(position, judgement), ours, theirs)
    expected = asked.expect["legal_moves"] or []
    given = said.get("legal_moves")
    given = given if isinstance(given, list) else []
    wanted = {move_key(m): m for m in expected}
    told = {move_key(m): m for m in given}
    for side, keys, moves in (
        ("left out", sorted(set(wanted) - set(told)), wanted),
        ("allowed", sorted(set(told) - set(wanted)), told),
    ):
        for key in keys:
            try:
                move = Move.from_json(moves[key], len(header.players), header.notation)
            except ArbiterError:
                return Signature(asked.ask.value, "legal_moves", "unreadable", side)
            judgement = position.judge(move)
            return Signature(asked.ask.value, rule_of(position, judgement), label(judgement), side)
    return Signature(asked.ask.value, "legal_moves", "a list", "no list")


def graded(asked: Asked, reply: Reply, ruleset: str) -> Result:
    return judge(Vector("", ruleset, "", asked.ask, {}, asked.expect), reply)
