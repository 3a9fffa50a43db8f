"""The referee's answers: engine results shaped as the bodies of docs/api.md.

:func:`replay` adjudicates a log (``POST /v1/replays``) and :func:`validate` judges one proposed
move (``POST /v1/moves/validate``). Both take the JSON-shaped log of docs/api.md and return objects
whose ``to_dict(lang)`` is the response body (``state_id`` is added by the service). Messages
come from :mod:`arbiter.i18n`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbiter.engine.cards import card_codes, display_order, format_card, format_suit
from arbiter.engine.errors import ArbiterError, LogError
from arbiter.engine.log import GameLog, parse_event, parse_log
from arbiter.engine.match import (
    Illegal,
    MatchState,
    MoveJudgement,
    advance,
    apply_move,
    judge_move,
)
from arbiter.engine.scoring import Outcome, sides
from arbiter.engine.state import (
    EVENT_TYPES,
    LAST_TRICK_BONUS,
    PLAY,
    SING,
    TUTE,
    TUTE_OF,
    DealState,
    Event,
    Renuncio,
)
from arbiter.i18n import Lang, Phrases


class Replay:
    """The adjudication of a log: every deal, the match standing, who acts next."""

    def __init__(self, match: MatchState) -> None:
        self.match = match

    @property
    def status(self) -> str:
        return self.match.status

    def to_dict(self, lang: Lang = "en") -> dict[str, Any]:
        words = _phrases(self.match, lang)
        return {
            "state_id": None,
            "status": self.status,
            "illegal": _illegal(self.match, words),
            "deals": [_deal(self.match, r.state, r.outcome, words) for r in self.match.deals],
            "match": _match(self.match),
            "next": _next(self.match, words),
        }

    def scores_dict(self, lang: Lang = "en") -> dict[str, Any]:
        """The body of ``POST /v1/scores``: only scores, sides, outcome and violations."""
        words = _phrases(self.match, lang)
        return {
            "status": self.status,
            "illegal": _illegal(self.match, words),
            "deals": [
                _deal_scores(self.match, r.state, r.outcome, words) for r in self.match.deals
            ],
            "match": _match(self.match),
        }


class Verdict:
    """The judgement of one proposed move on a match state."""

    def __init__(self, match: MatchState, judgement: MoveJudgement) -> None:
        self.match = match
        self.judgement = judgement

    @property
    def legal(self) -> bool:
        return self.judgement.verdict == "ok"

    def after(self) -> MatchState:
        """The state once the move is made (only for a legal move)."""
        return apply_move(self.match, self.judgement.move)

    def to_dict(self, lang: Lang = "en") -> dict[str, Any]:
        j = self.judgement
        words = _phrases(self.match, lang)
        notation = self.match.notation
        state = self.match.current
        if j.verdict == "illegal":
            assert j.code is not None
            message = _illegal_message(self.match, j.code.value, j.move, words)
        elif j.verdict == "renuncio":
            assert state is not None and j.obligation is not None
            record = Renuncio(
                state.events_applied,
                j.move.seat,
                j.move.arg,
                j.obligation,
                j.correct,
                len(state.tricks),
                state.led_suit,
                state.win_card,
            )
            message = renuncio_message(record, state, words)
        else:
            message = _ok_message(j.move, state, words)
        return {
            "legal": self.legal,
            "verdict": j.verdict,
            "obligation": None if j.obligation is None else j.obligation.value,
            "code": None if j.code is None else j.code.value,
            "message": message,
            "correct": [format_card(c, notation) for c in display_order(j.correct)]
            if j.verdict == "renuncio"
            else None,
            "legal_moves": [] if state is None else _moves(state, notation),
            "state_id": None,
        }


# --- entry points ----------------------------------------------------------------------------


def replay(log: Mapping[str, Any] | GameLog) -> Replay:
    """Adjudicate a whole log (the JSON-shaped dict of docs/api.md, or an already parsed one)."""
    parsed = log if isinstance(log, GameLog) else parse_log(log)
    return Replay(advance(MatchState.for_log(parsed), parsed))


def validate(log: Mapping[str, Any] | MatchState, move: Mapping[str, Any]) -> Verdict:
    """Judge ``move`` on the position at the end of ``log`` (or on a match state)."""
    match = log if isinstance(log, MatchState) else replay(log).match
    if match.illegal is not None:
        ill = match.illegal
        where: tuple[str | int, ...] = ("deals", ill.deal)
        if ill.event is not None:
            where += ("events", ill.event)
        raise LogError(
            f"the log is invalid here ({ill.code.value}); fix it before validating a move", where
        )
    try:
        event = parse_event(move, len(match.players), match.notation)
    except ArbiterError as err:
        raise err.at("move") from None
    return Verdict(match, judge_move(match, event))


# --- pieces of the bodies ----------------------------------------------------------------------


def _phrases(match: MatchState, lang: Lang) -> Phrases:
    return Phrases(lang, match.notation, match.players)


def move_dict(event: Event, notation: str) -> dict[str, Any]:
    """An event as the JSON object of the log."""
    kind, seat, arg = event
    out: dict[str, Any] = {"type": EVENT_TYPES[kind], "seat": seat}
    if kind == PLAY:
        out["card"] = format_card(arg, notation)  # type: ignore[arg-type]
    elif kind == SING:
        out["suit"] = format_suit(arg, notation)  # type: ignore[arg-type]
    elif kind == TUTE:
        out["of"] = TUTE_OF[arg]
    return out


def _moves(state: DealState, notation: str) -> list[dict[str, Any]]:
    return [move_dict(m, notation) for m in state.legal_moves()]


def _deal(
    match: MatchState, state: DealState, outcome: Outcome | None, words: Phrases
) -> dict[str, Any]:
    notation = match.notation
    codes = card_codes(notation)
    tricks = [
        {
            "leader": t.leader,
            "plays": [{"seat": s, "card": codes[c]} for s, c in t.plays],
            "winner": t.winner,
            "points": t.points,
            "draws": [{"seat": s, "card": codes[c]} for s, c in t.draws],
        }
        for t in state.tricks
    ]
    if state.trick:
        tricks.append(
            {
                "leader": state.leader,
                "plays": [{"seat": s, "card": codes[c]} for s, c in state.trick],
                "winner": None,
                "points": None,
                "draws": [],
            }
        )
    body: dict[str, Any] = {
        "dealer": state.dealer,
        "mano": (state.dealer + 1) % state.players,
        "trump": None if state.trump_suit is None else format_suit(state.trump, notation),
        "finished": state.over,
        "tricks": tricks,
        "cantes": [
            {
                "seat": c.seat,
                "suit": format_suit(c.suit, notation),
                "points": c.points,
                "trick": c.trick,
            }
            for c in state.cantes
        ],
        "exchanges": [
            {"seat": e.seat, "gave": codes[e.gave], "took": codes[e.took]} for e in state.exchanges
        ],
        **_deal_scores(match, state, outcome, words),
    }
    if match.ruleset.stock:
        body["stock_left"] = state.stock_left
    return body


def _deal_scores(
    match: MatchState, state: DealState, outcome: Outcome | None, words: Phrases
) -> dict[str, Any]:
    """What ``/v1/scores`` keeps of a deal: violations, scores, outcome and (pairs) sides."""
    totals = state.totals()
    last = state.last_trick_winner
    body: dict[str, Any] = {
        "violations": [_violation(v, state, words) for v in state.violations],
        "scores": [
            {
                "seat": s,
                "tricks": state.tricks_won[s],
                "card_points": state.card_points[s],
                "cantes": state.cante_points[s],
                "last_trick": LAST_TRICK_BONUS if s == last else 0,
                "total": totals[s],
            }
            for s in range(state.players)
        ],
        "outcome": None if outcome is None else _outcome(state, outcome, words),
    }
    if match.ruleset.pairs:
        body["sides"] = [
            {"seats": list(side), "total": sum(totals[s] for s in side)}
            for side in sides(match.ruleset, state.players)
        ]
    return body


def _violation(v: Renuncio, state: DealState, words: Phrases) -> dict[str, Any]:
    notation = words.notation
    return {
        "event": v.event,
        "seat": v.seat,
        "card": format_card(v.card, notation),
        "kind": "renuncio",
        "obligation": v.obligation.value,
        "correct": [format_card(c, notation) for c in display_order(v.correct)],
        "trick": v.trick,
        "message": renuncio_message(v, state, words),
    }


def renuncio_message(v: Renuncio, state: DealState, words: Phrases) -> str:
    """«Renuncio de ana en la baza 14: jugó el cuatro de bastos teniendo oros; ...»."""
    return words.text(
        f"renuncio.{v.obligation.value}",
        name=words.name(v.seat),
        trick=v.trick + 1,
        card=words.card(v.card),
        led=words.suit(v.led_suit),
        winning=words.card(v.winning),
        trump="" if state.trump_suit is None else words.suit(state.trump),
        correct=words.cards(display_order(v.correct)),
    )


def _outcome(state: DealState, outcome: Outcome, words: Phrases) -> dict[str, Any]:
    offender = "" if state.decisive is None else words.name(state.decisive.seat)
    result = ""
    if outcome.reason == "tie" and outcome.winners:
        result = words.text("tie.all", winners=words.names(outcome.winners))
    elif outcome.reason == "tie":
        result = words.text("tie.nobody")
    message = words.text(
        f"reason.{outcome.reason}",
        winners=words.names(outcome.winners),
        losers=words.names(outcome.losers),
        offender=offender,
        result=result,
    )
    return {
        "winners": list(outcome.winners),
        "losers": list(outcome.losers),
        "reason": outcome.reason,
        "message": message,
    }


def _match(match: MatchState) -> dict[str, Any]:
    st = match.standing
    return {
        "standings": [
            {
                "seat": s,
                "player": match.players[s],
                "deals_won": st.deals_won[s],
                "loser_points": st.loser_points[s],
                "tokens": st.tokens[s],
            }
            for s in range(len(match.players))
        ],
        "over": st.over,
        "winners": list(st.winners),
        "losers": list(st.losers),
    }


def _next(match: MatchState, words: Phrases) -> dict[str, Any] | None:
    if match.status != "in_progress":
        return None
    state = match.current
    assert state is not None
    return {
        "seat": state.turn,
        "player": words.name(state.turn),
        "legal_moves": _moves(state, match.notation),
    }


def _illegal(match: MatchState, words: Phrases) -> dict[str, Any] | None:
    ill: Illegal | None = match.illegal
    if ill is None:
        return None
    return {
        "deal": ill.deal,
        "event": ill.event,
        "code": ill.code.value,
        "message": _illegal_message(match, ill.code.value, ill.move, words),
    }


def _act(move: Event, words: Phrases) -> str:
    kind, _, arg = move
    if kind == PLAY:
        return words.text("act.play", card=words.card(arg))
    if kind == SING:
        return words.text("act.sing", suit=words.suit(arg))
    if kind == TUTE:
        return words.text("act.tute", of=words.text(f"of.{TUTE_OF[arg]}"))
    return words.text("act.exchange")


def _illegal_message(match: MatchState, code: str, move: Event | None, words: Phrases) -> str:
    if move is None:  # a deal given after the end of the match
        return words.text("illegal.match_over_deal")
    state = match.deals[-1].state if match.deals else None
    kind, seat, arg = move
    trump = "" if state is None or state.trump_suit is None else words.suit(state.trump)
    return words.text(
        f"illegal.{code}",
        name=words.name(seat),
        act=_act(move, words),
        turn=words.name(state.turn) if state is not None else "",
        card=words.card(arg) if kind == PLAY else "",
        suit=words.suit(arg) if kind == SING else "",
        of=words.text(f"of.{TUTE_OF[arg]}") if kind == TUTE else "",
        ruleset=match.ruleset.name,
        trump=trump,
    )


def _ok_message(move: Event, state: DealState | None, words: Phrases) -> str:
    kind, seat, arg = move
    name = words.name(seat)
    if kind == PLAY:
        return words.text("ok.play", name=name, card=words.card(arg))
    if kind == SING:
        points = 40 if state is not None and arg == state.trump else 20
        return words.text("ok.sing", name=name, suit=words.suit(arg), points=points)
    if kind == TUTE:
        return words.text("ok.tute", name=name, of=words.text(f"of.{TUTE_OF[arg]}"))
    turned = state.stock[-1] if state is not None and state.stock else 0
    return words.text("ok.exchange", name=name, card=words.card(turned))
