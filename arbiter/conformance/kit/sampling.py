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

from arbiter.conformance.kit.capabilities import EVERYTHING, Capabilities
from arbiter.conformance.kit.engines import Reply
from arbiter.conformance.kit.grading import Grade, Part, Result, judge, move_key
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
    """A disagreement's cause, computed from what differs and not from the rule under which
    the move was asked: its ``subject`` (an obligation, an illegal code, a declaration, an
    outcome's reason — or the rule a correct move is judged by), ``how`` the engine departs
    (:data:`CAUSES`), and the ``situation`` where it matters (:func:`situation_of`). One bug is
    one signature, met through a verdict or a list of legal moves alike."""

    subject: str
    how: str
    situation: str

    def __str__(self) -> str:
        return " · ".join(part for part in self if part)


#: How an engine departs from the referee.
REFUSED: Final = "refused"  # refused (or left out) a move the referee allows
ALLOWED: Final = "allowed"  # allowed a move the referee refuses or flags
LABEL: Final = "label"  # both refuse (or flag) it, named otherwise
OUTCOME: Final = "outcome"  # the deal's outcome
ANSWER: Final = "answer"  # an answer of another kind (a list for none, none for a list)
REPLAY: Final = "replay"  # a replay that parts from the referee's (the checker's vectors)
CAUSES: Final = (REFUSED, ALLOWED, LABEL, OUTCOME, ANSWER, REPLAY)


def situation_of(position: Position, move: Move | None = None) -> str:
    """Where a play matters: on lead, a trick won by a trump (of a suit led that is not
    trumps), the partner winning (with partner relief), or the suit led winning; declarations
    and the end of a deal have none of their own."""
    deal = position.deal
    if deal.over or position.standing.over:
        return "over"
    if move is not None and move.kind != PLAY:
        return ""
    if not deal.trick:
        return "lead"
    if deal.relief and deal.win_seat == partner(deal.turn):
        return "partner_wins"
    if deal.trump not in (NO_TRUMP, deal.led_suit) and deal.win_card // 10 == deal.trump:
        return "trumped"
    return "suit_led_wins"


def subject_of(position: Position, judgement: Judgement) -> str:
    """What a move is about: for a refused or flagged move its code or obligation, for a
    correct one the rule it is judged by (``montar``, ``lead``, ``sing``...)."""
    return rule_of(position, judgement).partition(":")[2] or rule_of(position, judgement)


class Asked(NamedTuple):
    """One question of a position: what it asks, and the referee's answer."""

    ask: Ask
    move: Move | None
    expect: dict[str, Any]


def line(
    qid: str,
    asked: Asked,
    log_text: str,
    position_text: str | None,
    protocol: int = PROTOCOL_VERSION,
) -> bytes:
    """A question's line, the log and the position given already encoded (the same bytes as
    ``dumps(protocol.question(...))``)."""
    parts = ['{"id":', dumps(qid)]
    if position_text is not None:
        parts.append(f',"protocol":{protocol}')
    parts.append(f',"ask":"{asked.ask.value}"')
    if asked.move is not None:
        parts += [',"move":', dumps(asked.expect["move"])]
    parts += [',"log":', log_text]
    if position_text is not None:
        parts += [',"position":', position_text]
    parts.append("}\n")
    return "".join(parts).encode()


def questions_at(
    position: Position,
    rng: random.Random,
    asks: Sequence[Ask],
    last: Sequence[Move],
    caps: Capabilities = EVERYTHING,
) -> list[Asked]:
    """What is asked at a position: its legal moves, and verdicts on a sample of moves (once
    the deal is over, the last move tried again) — of declarations only when the engine
    declares them as moves."""
    out = []
    if Ask.LEGAL_MOVES in asks:
        out.append(Asked(Ask.LEGAL_MOVES, None, legal_answer(position)))
    if Ask.VERDICT in asks:
        over = position.deal.over or position.standing.over
        judged = after_the_end(position, last) if over else sample(position, rng)
        for move, judgement in judged:
            if caps.declares or move.kind == PLAY:
                out.append(Asked(Ask.VERDICT, move, verdict_expect(position, move, judgement)))
    return out


def verdict_cause(
    position: Position, judgement: Judgement, said: dict[str, Any], parts: dict[Part, Grade]
) -> tuple[str, str]:
    """The subject and how of a verdict the engine got wrong, from the parts that failed."""
    ours, theirs = judgement.verdict.value, said.get("verdict")
    subject = subject_of(position, judgement)
    if parts.get(Part.KIND) is Grade.FAIL:
        if ours == "ok" and theirs in ("illegal", "renuncio"):
            return subject, REFUSED
        if ours != "ok" and theirs == "ok":
            return subject, ALLOWED
        return subject, LABEL
    if parts.get(Part.LABEL) is Grade.FAIL:
        return subject, LABEL
    return "", OUTCOME


def _outcome_reason(expect: dict[str, Any]) -> str:
    outcome = expect.get("outcome")
    return str(outcome.get("reason")) if isinstance(outcome, dict) else "none"


def signature_of(
    position: Position,
    asked: Asked,
    said: dict[str, Any],
    parts: dict[Part, Grade],
    declares: bool = True,
) -> Signature:
    """The cause of a disagreement: for a verdict, from the two verdicts (or the outcomes);
    for the legal moves, from the first move (in a stable order) the engine left out — a
    correct move refused — or allowed too (a declaration only when ``declares``)."""
    if asked.ask is Ask.VERDICT:
        assert asked.move is not None
        judgement = position.judge(asked.move)
        subject, how = verdict_cause(position, judgement, said, parts)
        if how == OUTCOME:
            return Signature(_outcome_reason(asked.expect), OUTCOME, "")
        return Signature(subject, how, situation_of(position, asked.move))
    expected = asked.expect["legal_moves"]
    given = said.get("legal_moves")
    if expected is None or not isinstance(given, list):
        return Signature("legal_moves", ANSWER, situation_of(position))
    header = position.header
    wanted = {move_key(m): m for m in expected}
    told = {move_key(m): m for m in given}
    for how, keys, moves in (
        (REFUSED, sorted(set(wanted) - set(told)), wanted),
        (ALLOWED, sorted(set(told) - set(wanted)), told),
    ):
        for key in keys:
            try:
                move = Move.from_json(moves[key], len(header.players), header.notation)
            except ArbiterError:
                return Signature("legal_moves", ANSWER, "unreadable")
            if move.kind != PLAY and not declares:
                continue
            judgement = position.judge(move)
            return Signature(subject_of(position, judgement), how, situation_of(position, move))
    return Signature("legal_moves", ANSWER, situation_of(position))


def graded(asked: Asked, reply: Reply, ruleset: str, caps: Capabilities = EVERYTHING) -> Result:
    return judge(Vector("", ruleset, "", asked.ask, {}, asked.expect), reply, caps)
