"""The referee's answers: engine results shaped as the bodies of docs/api.md.

:class:`Replay` is the adjudication of a log (the body of ``POST /v1/replays``, and the smaller
one of ``POST /v1/scores``); :class:`Verdict` is the judgement of one proposed move (``POST
/v1/moves/validate``). Their ``to_dict(lang)`` is the response body; :mod:`arbiter.service`
makes them. Messages come from :mod:`arbiter.i18n`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, get_args

from arbiter.engine.cards import (
    PACK_SIZE,
    Notation,
    card_codes,
    display_order,
    format_card,
    format_suit,
)
from arbiter.engine.errors import ArbiterError, ArbiterErrors, FaultCode, LogError
from arbiter.engine.given import read_position
from arbiter.engine.log import DEFAULT_LIMITS, Header, Limits
from arbiter.engine.match import Illegal, MatchState, Status
from arbiter.engine.moves import EVENT_TYPES, PLAY, SING, TUTE, TUTE_OF, Move
from arbiter.engine.obligations import NO_TRUMP, Obligation
from arbiter.engine.position import Judgement, Position, PositionView, Ruling
from arbiter.engine.records import Cante, Decisive, DecisiveKind, Exchange, Renuncio, Trick
from arbiter.engine.rulesets import MAX_PLAYERS, Ruleset
from arbiter.engine.scoring import MatchStanding, Outcome, Reason, sides
from arbiter.engine.setup import mano
from arbiter.engine.state import (
    LAST_TRICK_BONUS,
    DealState,
    IllegalCode,
    cante_cards,
    cante_points,
    declaration_cards,
)
from arbiter.engine.view_fields import VIEW_FIELDS
from arbiter.frozen import FrozenDict, thawed
from arbiter.i18n import Lang, Phrases


def _text(member: StrEnum) -> str:
    """An enum member's value, as the API writes it (a dict lookup: ``.value`` is a descriptor
    written in Python)."""
    return ENUM_TEXT[member]


#: The text of the engine's values, as the API, the summary and the tables write them.
ENUM_TEXT: Final[dict[StrEnum, str]] = {
    m: m.value for e in (Status, Ruling, Obligation, IllegalCode, Reason, DecisiveKind) for m in e
}


class Replay:
    """The adjudication of a log: every deal, the match standing, who acts next, and the
    ``state_id`` token of the position it ends in (None without a sealer or when invalid).
    With ``steps``, each deal's positions as dealt and after each of its events. With
    ``scores_only`` its deals kept no tricks (:meth:`arbiter.service.Referee.score`): it has
    :meth:`scores_dict` but no :meth:`to_dict`."""

    def __init__(
        self,
        match: MatchState,
        state_id: str | None = None,
        steps: list[list[PositionView]] | None = None,
        *,
        scores_only: bool = False,
    ) -> None:
        self.match = match
        self.state_id = state_id
        self.steps = steps
        self.scores_only = scores_only

    @property
    def status(self) -> Status:
        return self.match.status

    def to_dict(self, lang: Lang = "en") -> dict[str, Any]:
        if self.scores_only:
            raise ValueError("a replay for its scores kept no tricks: it has no full body")
        words = _phrases(self.match.header, lang)
        match = self.match
        if self.steps is None:  # no zip: its call with a keyword cost 4K instructions a deal
            deals = [_deal(match, r.state, r.outcome, words) for r in match.deals]
        else:
            deals = [
                _deal(match, r.state, r.outcome, words, views)
                for r, views in zip(match.deals, self.steps, strict=True)
            ]
        return _replay_body(self, words, deals)

    def scores_dict(self, lang: Lang = "en") -> dict[str, Any]:
        """The body of ``POST /v1/scores``: only scores, sides, outcome and violations."""
        return _scores_body(self, _phrases(self.match.header, lang))


class Verdict:
    """The judgement of one proposed move on a position, and the ``state_id`` token of the
    position after it (when it is ``ok`` and the referee seals)."""

    def __init__(
        self,
        position: Position,
        judgement: Judgement,
        state_id: str | None = None,
        after: Position | None = None,
    ) -> None:
        self.position = position
        self.judgement = judgement
        self.state_id = state_id
        #: the position after the move, answered when the move was judged on a given position
        self.after = after
        #: after a renuncio judged on a position or a token: the position with the card played
        #: (the renuncio recorded) and its token, answered as ``after``
        self.played: Position | None = None
        self.played_state_id: str | None = None

    @property
    def legal(self) -> bool:
        return self.judgement.verdict is Ruling.OK

    def to_dict(self, lang: Lang = "en") -> dict[str, Any]:
        j = self.judgement
        words = _phrases(self.position.header, lang)
        notation = self.position.header.notation
        state = self.position.deal
        if j.verdict is Ruling.ILLEGAL:
            assert j.code is not None
            message = _illegal_message(self.position.header, state, j.code, j.move, words)
        elif j.verdict is Ruling.RENUNCIO:
            assert j.renuncio is not None
            message = renuncio_message(j.renuncio, state, words)
        else:
            message = _ok_message(j.move, state, words)
        body = {
            "legal": self.legal,
            "verdict": _text(j.verdict),
            "obligation": None if j.obligation is None else _text(j.obligation),
            "code": None if j.code is None else _text(j.code),
            "message": message,
            "correct": [format_card(c, notation) for c in display_order(j.correct)]
            if j.verdict is Ruling.RENUNCIO
            else None,
            "legal_moves": _moves(state, notation, self._correct_now()),
            "state_id": self.state_id,
        }
        if self.after is not None:
            body["position"] = position_dict(self.after)
        if self.played is not None:
            body["after"] = {
                "position": position_dict(self.played),
                "state_id": self.played_state_id,
            }
        return body

    def _correct_now(self) -> int | None:
        """The correct plays of the seat to act, when judging the move already found them."""
        j = self.judgement
        # a play that is not illegal was the turn's seat's (else: out of turn)
        if j.move.kind == PLAY and j.verdict is not Ruling.ILLEGAL:
            return j.correct
        return None


# --- pieces of the bodies ----------------------------------------------------------------------


def _phrases(header: Header, lang: Lang) -> Phrases:
    return Phrases(lang, header.notation, header.players)


def _moves(
    state: DealState, notation: Notation, correct: int | None = None
) -> list[dict[str, Any]]:
    codes, suits = card_codes(notation), _SUITS[notation]
    return [_move(m, codes, suits) for m in state.legal_moves(correct)]


def _deal(
    match: MatchState,
    state: DealState,
    outcome: Outcome | None,
    words: Phrases,
    views: list[PositionView] | None = None,
) -> dict[str, Any]:
    """A deal's body; with ``views``, its steps too."""
    header = match.header
    notation = header.notation
    codes, suits, seat_cards = card_codes(notation), _SUITS[notation], _SEAT_CARDS[notation]
    tricks = [_trick(t, codes, suits, seat_cards) for t in state.tricks]
    if state.trick:  # the trick in play: no winner, no points (-1: written as null) yet
        in_play = Trick(state.leader, tuple(state.trick), -1, -1, ())
        tricks.append(_trick(in_play, codes, suits, seat_cards))
    steps = None
    if views is not None:
        memo = StepMemo(tricks)
        steps = [view_dict(v, header, memo) for v in views]
    return _deal_body(
        state, outcome, words, header.ruleset, codes, suits, seat_cards,
        state.totals(), state.last_trick_winner, tricks, steps,
    )  # fmt: skip


def _seat_card_dicts(notation: Notation) -> tuple[dict[str, Any], ...]:
    codes = card_codes(notation)
    return tuple(
        FrozenDict(seat=s, card=codes[c]) for s in range(MAX_PLAYERS) for c in range(PACK_SIZE)
    )


#: ``{"seat", "card"}`` of every seat and card, by notation, read-only: a body's plays and
#: draws are these very dicts, shared by every answer (:mod:`arbiter.frozen`; a tute-4p deal's
#: ``to_dict``, compiled, measured under callgrind: see the commit that made them shared). A
#: position's JSON, which clients edit, is :func:`~arbiter.frozen.thawed`.
_SEAT_CARDS: Final[dict[str, tuple[dict[str, Any], ...]]] = {
    n: _seat_card_dicts(n) for n in get_args(Notation)
}


def _deal_scores(
    match: MatchState, state: DealState, outcome: Outcome | None, words: Phrases
) -> dict[str, Any]:
    """What ``/v1/scores`` keeps of a deal: violations, scores, outcome and (pairs) sides."""
    codes = card_codes(words.notation)
    return _deal_scores_body(
        state, outcome, words, match.header.ruleset, codes, state.totals(),
        state.last_trick_winner,
    )  # fmt: skip


def renuncio_message(v: Renuncio, state: DealState, words: Phrases) -> str:
    """«Renuncio de ana en la baza 14: jugó el cuatro de bastos teniendo oros; ...»."""
    return words.text(
        f"renuncio.{_text(v.obligation)}",
        name=words.name(v.seat),
        trick=v.trick + 1,
        card=words.card(v.card),
        led=words.suit(v.led_suit),
        winning=words.card(v.winning),
        trump="" if state.trump == NO_TRUMP else words.suit(state.trump),
        correct=words.cards(display_order(v.correct)),
    )


def _outcome_message(state: DealState, outcome: Outcome, words: Phrases) -> str:
    """How a deal ended, in a sentence: who won and lost, and why."""
    offender = "" if state.decisive is None else words.name(state.decisive.seat)
    result = ""
    if outcome.reason is Reason.TIE and outcome.winners:
        result = words.text("tie.all", winners=words.names(outcome.winners))
    elif outcome.reason is Reason.TIE:
        result = words.text("tie.nobody")
    return words.text(
        _REASON_KEYS[outcome.reason],
        winners=words.names(outcome.winners),
        losers=words.names(outcome.losers),
        offender=offender,
        result=result,
    )


#: The catalogue's key of each reason's sentence (not an f-string per deal).
_REASON_KEYS: Final[dict[Reason, str]] = {r: f"reason.{r.value}" for r in Reason}


def match_dict(header: Header, st: MatchStanding) -> dict[str, Any]:
    """The ``match`` of a replay body: the standing, and whether and how the match ended."""
    return {
        "standings": [
            {
                "seat": s,
                "player": header.players[s],
                "deals_won": st.deals_won[s],
                "loser_points": st.loser_points[s],
                "tokens": st.tokens[s],
            }
            for s in range(len(header.players))
        ],
        "over": st.over,
        "winners": list(st.winners),
        "losers": list(st.losers),
    }


def _next(match: MatchState, words: Phrases) -> dict[str, Any] | None:
    if match.status is not Status.IN_PROGRESS:
        return None
    state = match.current
    assert state is not None
    return {
        "seat": state.turn,
        "player": words.name(state.turn),
        "legal_moves": _moves(state, match.header.notation),
    }


def _illegal(match: MatchState, words: Phrases) -> dict[str, Any] | None:
    ill: Illegal | None = match.illegal
    if ill is None:
        return None
    state = match.deals[-1].state if match.deals else None
    return {
        "deal": ill.deal,
        "event": ill.event,
        "code": _text(ill.code),
        "message": _illegal_message(match.header, state, ill.code, ill.move, words),
    }


def _act(move: Move, words: Phrases) -> str:
    kind = move.kind
    if kind == PLAY:
        return words.text("act.play", card=words.card(move.card))
    if kind == SING:
        return words.text("act.sing", suit=words.suit(move.suit))
    if kind == TUTE:
        return words.text("act.tute", of=words.text(f"of.{TUTE_OF[move.of]}"))
    return words.text("act.exchange")


def _illegal_message(
    header: Header, state: DealState | None, code: IllegalCode, move: Move | None, words: Phrases
) -> str:
    if move is None:  # a deal given after the end of the match
        return words.text("illegal.match_over_deal")
    kind = move.kind
    trump = "" if state is None or state.trump == NO_TRUMP else words.suit(state.trump)
    return words.text(
        f"illegal.{_text(code)}",
        name=words.name(move.seat),
        act=_act(move, words),
        turn=words.name(state.turn) if state is not None else "",
        card=words.card(move.card) if kind == PLAY else "",
        suit=words.suit(move.suit) if kind == SING else "",
        of=words.text(f"of.{TUTE_OF[move.of]}") if kind == TUTE else "",
        ruleset=header.ruleset.name,
        trump=trump,
    )


def _ok_message(move: Move, state: DealState, words: Phrases) -> str:
    kind = move.kind
    name = words.name(move.seat)
    if kind == PLAY:
        return words.text("ok.play", name=name, card=words.card(move.card))
    if kind == SING:
        points = cante_points(move.suit, state.trump)
        return words.text("ok.sing", name=name, suit=words.suit(move.suit), points=points)
    if kind == TUTE:
        return words.text("ok.tute", name=name, of=words.text(f"of.{TUTE_OF[move.of]}"))
    return words.text("ok.exchange", name=name, card=words.card(state.stock[-1]))


# --- the position view ---------------------------------------------------------------------------


class StepMemo:
    """What the steps of one deal share, so that each is written once: the lists of codes of
    the masks met (a hand changes by a card an event, the captured cards by a trick) and the
    deal's tricks as its body writes them (a step's completed tricks are their first ones).
    The steps' lists are then shared, and read only (measured under cProfile, pure build: the
    steps of 180 deals of three tables, 2.1 s without it, 1.5 s with it)."""

    __slots__ = ("cards", "tricks")

    def __init__(self, tricks: list[dict[str, Any]]) -> None:
        self.cards: dict[int, list[str]] = {}
        self.tricks = tricks


def _codes_of(mask: int, codes: tuple[str, ...], memo: StepMemo | None) -> list[str]:
    """:func:`_codes`, through the memo when there is one."""
    if memo is None:
        return _codes(mask, codes)
    found = memo.cards.get(mask)
    if found is None:
        found = memo.cards[mask] = _codes(mask, codes)
    return found


def view_dict(view: PositionView, header: Header, memo: StepMemo | None = None) -> dict[str, Any]:
    """A :class:`PositionView` as JSON (docs/api.md, "The position"): cards as codes in the
    log's notation, each hand in display order. ``memo``: the steps of a deal written one
    after the other share it (:class:`StepMemo`)."""
    notation = header.notation
    codes = card_codes(notation)
    return _view_json(view, header, codes, _SUITS[notation], _SEAT_CARDS[notation], memo)


def _legal_moves(view: PositionView) -> list[Move]:
    """The moves open to the seat to act: its correct plays, then its declarations."""
    turn = view.turn
    if turn is None:
        return list(view.declarations)
    return [*[Move.play(turn, c) for c in display_order(view.correct)], *view.declarations]


def position_dict(position: Position, *, legal_moves: bool = True) -> dict[str, Any]:
    """A whole position as JSON (docs/api.md, "The position"): the header, the deal's place
    in the match, its view (:func:`view_dict`), the renuncios made and the match standing; what
    :func:`read_position_json` reads back. Without ``legal_moves`` (a conformance question,
    whose answer they are)."""
    header = position.header
    view = position.view()
    shown = view_dict(view, header)
    codes, suits = card_codes(header.notation), _SUITS[header.notation]
    table = _SEAT_CARDS[header.notation]
    if not legal_moves:
        del shown["legal_moves"]
    # thawed: a position is edited and sent back (the editor, tests); its plays are shared
    return thawed(
        {
            "ruleset": header.ruleset.name,
            "options": _options(header),
            "players": list(header.players),
            "notation": header.notation,
            "deal": view.deal,
            "dealer": view.dealer,
            "mano": view.mano,
            **shown,
            "renuncios": [_position_renuncio(v, codes, suits, table) for v in view.renuncios],
            "match": match_dict(header, position.standing),
        }
    )


def read_position_json(raw: object, limits: Limits = DEFAULT_LIMITS) -> Position:
    """The position a JSON object describes (:func:`position_dict`'s form), checked: its facts
    by :func:`arbiter.engine.given.read_position`, and every field it gives that follows from
    them (the turn, the points, the legal moves...) against the engine's. An
    :class:`ArbiterError` names each fault by its JSON pointer."""
    position = read_position(raw, limits)
    assert isinstance(raw, dict)  # read_position refuses anything else
    made = position_dict(position)
    faults: list[ArbiterError] = []
    for key in _FOLLOWS:
        if key in raw:
            _compare(raw[key], made.get(key), (key,), faults)
    if faults:
        raise ArbiterErrors(faults) if len(faults) > 1 else faults[0]
    return position


#: The fields of a position that follow from its facts: given, they must agree. Those written
#: one to one are the view's fields that are no fact (``VIEW_FIELDS``).
_FOLLOWS: Final = (
    "mano", "trick", "open_cantes", "legal_moves", "declarations", "captured", "outcome", "sides",
    "stock_known", *(f.json for f in VIEW_FIELDS if f.json is not None and not f.fact),
)  # fmt: skip


def _compare(
    given: Any, made: Any, path: tuple[str | int, ...], faults: list[ArbiterError]
) -> None:
    """Add a fault for each place where ``given`` differs from ``made`` (lists of codes compare
    as sets: a hand or a capture in any order)."""
    if isinstance(given, dict) and isinstance(made, dict):
        for key, value in given.items():
            if key in made:
                _compare(value, made[key], (*path, key), faults)
        return
    if isinstance(given, list) and isinstance(made, list) and len(given) == len(made):
        if all(isinstance(x, str) for x in given) and all(isinstance(x, str) for x in made):
            if sorted(given) != sorted(made):
                message = f"does not follow from the position: {made}"
                faults.append(LogError(message, path, FaultCode.DOES_NOT_FOLLOW, {"value": made}))
            return
        for i, (a, b) in enumerate(zip(given, made, strict=True)):
            _compare(a, b, (*path, i), faults)
        return
    if given != made:
        message = f"does not follow from the position: {made!r}"
        faults.append(LogError(message, path, FaultCode.DOES_NOT_FOLLOW, {"value": made}))


def _cante_cards(view: PositionView, suit: int) -> int:
    header = view.header
    return cante_cards(header.ruleset, header.options, suit)


def _codes(mask: int, codes: tuple[str, ...]) -> list[str]:
    return [codes[c] for c in display_order(mask)]


def _tricks(
    tricks: tuple[Trick, ...] | None,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
    memo: StepMemo | None,
) -> list[dict[str, Any]] | None:
    if tricks is None:
        return None
    if memo is not None:
        return memo.tricks[: len(tricks)]
    return [_trick(t, codes, suits, table) for t in tricks]


def _options(header: Header) -> dict[str, Any]:
    """Every option of the ruleset with the value in force (ranks as a list)."""
    values = {}
    for spec in header.ruleset.option_specs:
        value = getattr(header.options, spec.name)
        values[spec.name] = list(value) if isinstance(value, tuple) else value
    return values


#: Each suit's code, by notation.
_SUITS: Final[dict[str, tuple[str, ...]]] = {
    n: tuple(format_suit(s, n) for s in range(4)) for n in get_args(Notation)
}


# --- generated by `python -m devtools.records` from arbiter/engine/view_fields.py ---


def _trick(
    r: Trick,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """A :class:`Trick` as JSON, from its field table."""
    return {
        "leader": r.leader,
        "plays": [table[s * PACK_SIZE + c] for s, c in r.plays],
        "winner": None if r.winner < 0 else r.winner,
        "points": None if r.points < 0 else r.points,
        "draws": [table[s * PACK_SIZE + c] for s, c in r.draws],
    }


def _cante(
    r: Cante,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """A :class:`Cante` as JSON, from its field table."""
    return {
        "seat": r.seat,
        "suit": suits[r.suit],
        "points": r.points,
        "trick": r.trick,
    }


def _exchange(
    r: Exchange,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """A :class:`Exchange` as JSON, from its field table."""
    return {
        "seat": r.seat,
        "gave": codes[r.gave],
        "took": codes[r.took],
        "trick": r.trick,
    }


def _position_renuncio(
    r: Renuncio,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """A :class:`Renuncio` as JSON, from its field table."""
    return {
        "event": r.event,
        "seat": r.seat,
        "card": codes[r.card],
        "obligation": _text(r.obligation),
        "trick": r.trick,
        "correct": [codes[c] for c in display_order(r.correct)],
        "led": None if r.led_suit < 0 else suits[r.led_suit],
        "winning": None if r.winning < 0 else codes[r.winning],
    }


def _decisive(
    r: Decisive,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """A :class:`Decisive` as JSON, from its field table."""
    return {
        "kind": _text(r.kind),
        "seat": r.seat,
        "event": r.event,
    }


def _score_line(
    state: DealState,
    s: int,
    last: int | None,
    totals: list[int],
) -> dict[str, Any]:
    """A seat's line of a deal's scores. Written from its field table."""
    return {
        "seat": s,
        "tricks": state.tricks_won[s],
        "card_points": state.card_points[s],
        "cantes": state.cante_points[s],
        "last_trick": LAST_TRICK_BONUS if s == last else 0,
        "total": totals[s],
    }


def _replay_body(
    replay: Replay,
    words: Phrases,
    deals: list[dict[str, Any]],
) -> dict[str, Any]:
    """The body of ``POST /v1/replays``. Written from its field table."""
    return {
        "state_id": replay.state_id,
        "status": _text(replay.status),
        "illegal": _illegal(replay.match, words),
        "deals": deals,
        "match": match_dict(replay.match.header, replay.match.standing),
        "next": _next(replay.match, words),
    }


def _outcome_facts(
    r: Outcome,
) -> dict[str, Any]:
    """How a deal ended: its winners, its losers and why. Written from its field table."""
    return {
        "winners": list(r.winners),
        "losers": list(r.losers),
        "reason": _text(r.reason),
    }


def _outcome(
    state: DealState,
    r: Outcome,
    words: Phrases,
) -> dict[str, Any]:
    """How a deal ended, in words too. Written from its field table."""
    return {
        "winners": list(r.winners),
        "losers": list(r.losers),
        "reason": _text(r.reason),
        "message": _outcome_message(state, r, words),
    }


def _violation(
    r: Renuncio,
    state: DealState,
    words: Phrases,
    codes: tuple[str, ...],
) -> dict[str, Any]:
    """A renuncio in a deal's body: who played what, the obligation it broke, in words too. Written
    from its field table."""
    return {
        "event": r.event,
        "seat": r.seat,
        "card": codes[r.card],
        "kind": "renuncio",
        "obligation": _text(r.obligation),
        "correct": [codes[c] for c in display_order(r.correct)],
        "trick": r.trick,
        "message": renuncio_message(r, state, words),
    }


def _side(
    side: tuple[int, ...],
    totals: list[int],
) -> dict[str, Any]:
    """A side of a deal played in pairs, and its total. Written from its field table."""
    return {
        "seats": list(side),
        "total": totals[side[0]] + totals[side[1]],
    }


def _deal_scores_body(
    state: DealState,
    outcome: Outcome | None,
    words: Phrases,
    ruleset: Ruleset,
    codes: tuple[str, ...],
    totals: list[int],
    last: int | None,
) -> dict[str, Any]:
    """A deal's renuncios, scores, outcome and (pairs) sides. Written from its field table."""
    body: dict[str, Any] = {
        "violations": [_violation(v, state, words, codes) for v in state.violations],
        "scores": [_score_line(state, s, last, totals) for s in range(state.players)],
        "outcome": None if outcome is None else _outcome(state, outcome, words),
    }
    if ruleset.pairs:
        body["sides"] = [_side(side, totals) for side in sides(ruleset, state.players)]
    return body


def _deal_body(
    state: DealState,
    outcome: Outcome | None,
    words: Phrases,
    ruleset: Ruleset,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
    totals: list[int],
    last: int | None,
    tricks: list[dict[str, Any]],
    steps: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    """A deal of a replay: its setup, its tricks, cantes and exchanges, then its scores. Written
    from its field table."""
    body: dict[str, Any] = {
        "dealer": state.dealer,
        "mano": mano(state.dealer, state.players),
        "trump": None if state.trump < 0 else suits[state.trump],
        "finished": state.over,
        "tricks": tricks,
        "cantes": [_cante(c, codes, suits, table) for c in state.cantes],
        "exchanges": [_exchange(e, codes, suits, table) for e in state.exchanges],
        "violations": [_violation(v, state, words, codes) for v in state.violations],
        "scores": [_score_line(state, s, last, totals) for s in range(state.players)],
        "outcome": None if outcome is None else _outcome(state, outcome, words),
    }
    if ruleset.pairs:
        body["sides"] = [_side(side, totals) for side in sides(ruleset, state.players)]
    if ruleset.stock:
        body["stock_left"] = state.stock_left
    if steps is not None:
        body["steps"] = steps
    return body


def _scores_body(
    replay: Replay,
    words: Phrases,
) -> dict[str, Any]:
    """The body of ``POST /v1/scores``. Written from its field table."""
    return {
        "status": _text(replay.status),
        "illegal": _illegal(replay.match, words),
        "deals": [
            _deal_scores(replay.match, d.state, d.outcome, words) for d in replay.match.deals
        ],
        "match": match_dict(replay.match.header, replay.match.standing),
    }


def _move(
    r: Move,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
) -> dict[str, Any]:
    """A move, as an event of a log. Written from its field table."""
    body: dict[str, Any] = {
        "type": EVENT_TYPES[r.kind],
        "seat": r.seat,
    }
    if r.kind == PLAY:
        body["card"] = codes[r.card]
    if r.kind == SING:
        body["suit"] = suits[r.suit]
    if r.kind == TUTE:
        body["of"] = TUTE_OF[r.of]
    return body


def _declaration(
    r: Move,
    view: PositionView,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
) -> dict[str, Any]:
    """A declaration open to the seat to act, with the cards it rests on. Written from its field
    table."""
    body: dict[str, Any] = {
        "type": EVENT_TYPES[r.kind],
        "seat": r.seat,
    }
    if r.kind == PLAY:
        body["card"] = codes[r.card]
    if r.kind == SING:
        body["suit"] = suits[r.suit]
    if r.kind == TUTE:
        body["of"] = TUTE_OF[r.of]
    body["cards"] = [codes[c] for c in display_order(declaration_cards(r, view.trump))]
    return body


def _step_trick(
    view: PositionView,
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
) -> dict[str, Any]:
    """The trick on the table of a step: its number, its leader, the plays so far, the suit led and
    what wins it so far. Written from its field table."""
    return {
        "number": view.trick_no,
        "leader": view.leader,
        "plays": [table[s * PACK_SIZE + c] for s, c in view.trick],
        "led": None if view.led_suit < 0 else suits[view.led_suit],
        "winning": None if view.win_seat < 0 else table[view.win_seat * PACK_SIZE + view.win_card],
    }


def _step_cante(
    r: Cante,
    index: int,
    view: PositionView,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
) -> dict[str, Any]:
    """A cante of a step: as the deal's, with the cards it rests on and whether it made trump.
    Written from its field table."""
    return {
        "seat": r.seat,
        "suit": suits[r.suit],
        "points": r.points,
        "trick": r.trick,
        "cards": [codes[c] for c in display_order(_cante_cards(view, r.suit))],
        "made_trump": index == 0 and view.calls > 0,
    }


def _open_cante(
    view: PositionView,
    seat: int,
    s: int,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
) -> dict[str, Any]:
    """King and horse held together in a suit not sung yet. Written from its field table."""
    return {
        "seat": seat,
        "suit": suits[s],
        "cards": [codes[c] for c in display_order(_cante_cards(view, s))],
    }


def _step_side(
    view: PositionView,
    side: tuple[int, ...],
    codes: tuple[str, ...],
) -> dict[str, Any]:
    """A side of a step (pairs): its card points, its total and the cards of its tricks. Written
    from its field table."""
    return {
        "seats": list(side),
        "card_points": view.card_points[side[0]] + view.card_points[side[1]],
        "total": view.totals[side[0]] + view.totals[side[1]],
        "captured": None
        if view.captured is None
        else _codes(view.captured[side[0]] | view.captured[side[1]], codes),
    }


def _view_json(
    view: PositionView,
    header: Header,
    codes: tuple[str, ...],
    suits: tuple[str, ...],
    table: tuple[dict[str, Any], ...],
    memo: StepMemo | None,
) -> dict[str, Any]:
    """A point of a deal as the table sees it: before the first event, or after one. Written from
    its field table."""
    body: dict[str, Any] = {
        "trump": None if view.trump < 0 else suits[view.trump],
        "turned": None if view.turned < 0 else codes[view.turned],
        "tricks_won": list(view.tricks_won),
        "card_points": list(view.card_points),
        "cante_points": list(view.cante_points),
        "totals": list(view.totals),
        "sung": [suits[s] for s in range(4) if view.sung >> s & 1],
        "strict": view.strict,
        "turn": view.turn,
        "event": view.events,
        "over": view.over,
        "match_over": view.match_over,
        "last_winner": None if view.last_winner < 0 else view.last_winner,
        "cantes_this_lead": view.cantes_this_lead,
        "calls": view.calls,
        "hands": [_codes_of(m, codes, memo) for m in view.hands],
        "trick": _step_trick(view, suits, table),
        "cantes": [_step_cante(c, i, view, codes, suits) for i, c in enumerate(view.cantes)],
        "open_cantes": [_open_cante(view, seat, s, codes, suits) for seat, s in view.open_cantes],
        "legal_moves": [_move(m, codes, suits) for m in _legal_moves(view)],
        "declarations": [_declaration(m, view, codes, suits) for m in view.declarations],
        "tricks": _tricks(view.tricks, codes, suits, table, memo),
        "captured": None
        if view.captured is None
        else [_codes_of(m, codes, memo) for m in view.captured],
        "exchanges": [_exchange(e, codes, suits, table) for e in view.exchanges],
        "decided": None if view.decisive is None else _decisive(view.decisive, codes, suits, table),
        "outcome": None if view.outcome is None else _outcome_facts(view.outcome),
    }
    if header.ruleset.pairs:
        body["sides"] = [
            _step_side(view, side, codes) for side in sides(header.ruleset, len(view.hands))
        ]
    if header.ruleset.stock:
        body["stock_left"] = view.stock_left
        body["stock_known"] = [codes[c] for c in view.stock_known]
    return body


# --- end of the generated code ---
