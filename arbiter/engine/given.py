"""A position given from outside: its JSON (docs/api.md, "The position") read back, and checked.

:func:`read_position` reads the facts a position rests on — the header, the deal's place in the
match, the hands, the trick on the table, the tricks completed (with the cards drawn after each),
the cantes, the exchanges, the renuncios, the stock's size, what decided the deal, the match
standing — and checks that they could be a point of a real deal: each card once, hand sizes that
agree with the tricks played and the cards drawn, every trick's plays in turn from its leader and
led by the last trick's winner, the known stock card in no hand, the stock's size with the cards
drawn, each trick's winner and points and each cante's points as the rules make them. What
follows from those facts (the turn, the trick's winner, the points, the events...) is worked out
here as a replay works it out; :func:`arbiter.report.read_position_json` then holds those the
JSON gives too to the engine's. Each fault is an error with its JSON pointer, all of them in one
:class:`ArbiterErrors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from arbiter.engine.cards import STRENGTH_OF_RANK, Card, Mask, parse_card, parse_suit
from arbiter.engine.errors import (
    ArbiterError,
    ArbiterErrors,
    CardCodeError,
    LogError,
    Path,
    RepeatedError,
)
from arbiter.engine.log import DEFAULT_LIMITS, Header, Limits, parse_header
from arbiter.engine.obligations import NO_TRUMP, Obligation
from arbiter.engine.position import Position, PositionView
from arbiter.engine.records import Cante, Decisive, DecisiveKind, Exchange, Renuncio, Trick
from arbiter.engine.rulesets import CanteStyle, TrumpSource
from arbiter.engine.scoring import MatchStanding, deal_outcome
from arbiter.engine.setup import mano
from arbiter.engine.state import cante_value, free_play, trick_standing

#: The keys of the header, read as a log's.
_HEADER_KEYS: Final = ("ruleset", "options", "players", "notation")
Plays = tuple[tuple[int, Card], ...]


# --- reading JSON values ------------------------------------------------------------------------


def _need(data: Mapping[str, Any], key: str, path: Path) -> Any:
    if key not in data:
        raise LogError("missing", (*path, key))
    return data[key]


def _obj(raw: object, path: Path) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise LogError("must be an object", path)
    return raw


def _list(raw: object, path: Path, most: int, least: int = 0) -> list[Any]:
    if not isinstance(raw, list) or not least <= len(raw) <= most:
        size = f"{least} to {most}" if least != most else str(most)
        raise LogError(f"must be a list of {size} items", path)
    return raw


def _int(raw: object, path: Path, low: int, high: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not low <= raw <= high:
        raise LogError(f"must be an integer from {low} to {high}", path)
    return raw


def _card(raw: object, header: Header, path: Path) -> Card:
    try:
        return parse_card(raw, header.notation)
    except CardCodeError as err:
        raise err.at(*path) from None


def _suit(raw: object, header: Header, path: Path) -> int:
    try:
        return parse_suit(raw, header.notation)
    except CardCodeError as err:
        raise err.at(*path) from None


def _seat_cards(raw: object, header: Header, path: Path, most: int, least: int = 0) -> Plays:
    """``[{"seat", "card"}, ...]`` as (seat, card) pairs."""
    players = len(header.players)
    pairs = []
    for i, item in enumerate(_list(raw, path, most, least)):
        pair = _obj(item, (*path, i))
        seat = _int(_need(pair, "seat", (*path, i)), (*path, i, "seat"), 0, players - 1)
        pairs.append((seat, _card(_need(pair, "card", (*path, i)), header, (*path, i, "card"))))
    return tuple(pairs)


def _cards(raw: object, header: Header, path: Path, most: int) -> list[Card]:
    return [_card(c, header, (*path, i)) for i, c in enumerate(_list(raw, path, most))]


# --- the facts ------------------------------------------------------------------------------------


class _Reader:
    """One position's JSON being read: its header, and the faults found so far."""

    def __init__(self, data: Mapping[str, Any], header: Header, dealer: int) -> None:
        self.data = data
        self.header = header
        self.players = len(header.players)
        self.dealer = dealer
        self.faults: list[ArbiterError] = []

    def fault(self, message: str, *path: str | int) -> None:
        self.faults.append(LogError(message, path))

    def records(self, key: str, most: int) -> list[tuple[Path, Mapping[str, Any]]]:
        """The objects of the list ``key`` (none when it is left out), each with its path."""
        raw = _list(self.data.get(key, []), (key,), most)
        return [((key, i), _obj(item, (key, i))) for i, item in enumerate(raw)]

    def seat(self, record: Mapping[str, Any], path: Path) -> int:
        return _int(_need(record, "seat", path), (*path, "seat"), 0, self.players - 1)

    def card(self, record: Mapping[str, Any], path: Path, key: str) -> Card:
        return _card(_need(record, key, path), self.header, (*path, key))

    def trick_on_table(self) -> tuple[int, Plays]:
        trick = _obj(_need(self.data, "trick", ()), ("trick",))
        leader = _int(_need(trick, "leader", ("trick",)), ("trick", "leader"), 0, self.players - 1)
        plays = _seat_cards(
            _need(trick, "plays", ("trick",)), self.header, ("trick", "plays"), self.players - 1
        )
        self.check_order(leader, plays, ("trick", "plays"))
        return leader, plays

    def check_order(self, leader: int, plays: Plays, path: Path) -> None:
        """The trick's plays go round the table from its leader."""
        for i, (seat, _) in enumerate(plays):
            if seat != (leader + i) % self.players:
                self.fault(f"seat {(leader + i) % self.players} plays here", *path, i, "seat")

    def tricks(self, trump: int, first_call: int) -> list[Trick]:
        """The tricks completed: each led by the last one's winner, its winner and points as
        the rules make them (in rulesets of calls, trump counts from the trick after the first
        call)."""
        header, n = self.header, self.players
        raw = _list(_need(self.data, "tricks", ()), ("tricks",), header.ruleset.tricks(n))
        tricks = []
        leader = mano(self.dealer, n)
        for i, item in enumerate(raw):
            path: Path = ("tricks", i)
            t = _obj(item, path)
            given_leader = _int(_need(t, "leader", path), (*path, "leader"), 0, n - 1)
            if given_leader != leader:
                self.fault(f"the trick is led by seat {leader}", *path, "leader")
            plays = _seat_cards(_need(t, "plays", path), header, (*path, "plays"), n, n)
            self.check_order(given_leader, plays, (*path, "plays"))
            in_force = NO_TRUMP if i <= first_call else trump
            points, _, winner, _ = trick_standing(plays, in_force)
            for key, value in (("winner", winner), ("points", points)):
                if key in t and t[key] != value:
                    self.fault(f"must be {value}", *path, key)
            draws = _seat_cards(t.get("draws", []), header, (*path, "draws"), n)
            for j, (seat, _) in enumerate(draws):
                if seat != (winner + j) % n:
                    self.fault(f"seat {(winner + j) % n} draws here", *path, "draws", j, "seat")
            tricks.append(Trick(given_leader, plays, winner, points, draws))
            leader = winner
        return tricks


@dataclass(frozen=True, slots=True)
class _Facts:
    """What a position's JSON gives, read and checked; the rest follows from it."""

    header: Header
    deal: int
    dealer: int
    hands: tuple[Mask, ...]
    trump: int
    turned: Card
    stock_left: int
    leader: int
    plays: Plays
    tricks: list[Trick]
    cantes: list[Cante]
    exchanges: list[Exchange]
    renuncios: list[Renuncio]
    decisive: Decisive | None
    standing: MatchStanding


def read_position(raw: object, limits: Limits = DEFAULT_LIMITS) -> Position:
    """The position a JSON object describes (its header included), checked; an
    :class:`ArbiterError` (several: :class:`ArbiterErrors`) naming each fault by its path."""
    facts = _read(_obj(raw, ()), limits)
    position = Position.from_view(_view_of(facts))
    if position.deal.over:
        position.outcome = deal_outcome(position.deal)
    return position


def _read(data: Mapping[str, Any], limits: Limits) -> _Facts:
    """The facts of a position's JSON, each checked against the others."""
    header = parse_header({k: data[k] for k in _HEADER_KEYS if k in data}, limits)
    ruleset, n = header.ruleset, len(header.players)
    deal_index = _int(data.get("deal", 0), ("deal",), 0, limits.max_deals - 1)
    dealer = _int(_need(data, "dealer", ()), ("dealer",), 0, n - 1)
    reader = _Reader(data, header, dealer)
    hands = [
        _cards(h, header, ("hands", s), 40)
        for s, h in enumerate(_list(_need(data, "hands", ()), ("hands",), n, n))
    ]
    raw_trump = _need(data, "trump", ())
    trump = NO_TRUMP if raw_trump is None else _suit(raw_trump, header, ("trump",))
    raw_turned = data.get("turned")
    turned = -1 if raw_turned is None else _card(raw_turned, header, ("turned",))
    stock_left = 0
    if ruleset.stock:
        stock_left = _int(_need(data, "stock_left", ()), ("stock_left",), 0, 40)
    elif data.get("stock_left", 0) != 0:
        reader.fault(f"{ruleset.name} has no stock", "stock_left")
    cantes = _cantes(reader, trump)
    first_call = cantes[0].trick if cantes and ruleset.cantes == CanteStyle.IN_TRICK else -1
    _check_trump(reader, trump, turned, cantes)
    if data.get("exchanges") and not ruleset.exchange:
        reader.fault(f"{ruleset.name} has no exchange", "exchanges")
    leader, plays = reader.trick_on_table()
    tricks = reader.tricks(trump, first_call)
    renuncios = _renuncios(reader, tricks, plays, trump, first_call)
    facts = _Facts(
        header, deal_index, dealer, tuple(_mask(h) for h in hands), trump, turned, stock_left,
        leader, plays, tricks, cantes, _exchanges(reader, tricks), renuncios,
        _decisive(reader, renuncios), _standing(data, n),
    )  # fmt: skip
    _check_cards(reader, hands, plays, tricks, turned if stock_left else -1)
    _check_counts(reader, hands, plays, tricks, stock_left)
    if leader != (tricks[-1].winner if tricks else mano(dealer, n)):
        reader.fault("the last trick's winner (the mano before any) leads", "trick", "leader")
    if reader.faults:
        raise ArbiterErrors(reader.faults) if len(reader.faults) > 1 else reader.faults[0]
    return facts


def _view_of(facts: _Facts) -> PositionView:
    """The view the facts make, what follows from them worked out as a replay does (the
    fields :meth:`Position.from_view` does not read are left empty: its own view fills
    them)."""
    ruleset, n = facts.header.ruleset, len(facts.header.players)
    tricks, cantes, plays, decisive = facts.tricks, facts.cantes, facts.plays, facts.decisive
    trick_no = len(tricks)
    tricks_won, card_points, captured, cante_points = [0] * n, [0] * n, [0] * n, [0] * n
    for t in tricks:
        tricks_won[t.winner] += 1
        card_points[t.winner] += t.points
        captured[t.winner] |= _mask([c for _, c in t.plays])
    sung = 0
    for c in cantes:
        cante_points[c.seat] += c.points
        sung |= 1 << c.suit
    declared = ruleset.cantes == CanteStyle.DECLARED
    tute = decisive is not None and decisive.kind is DecisiveKind.TUTE
    events = trick_no * n + len(plays) + len(facts.exchanges) + (len(cantes) if declared else 0)
    _, led, win_seat, win_card = trick_standing(plays, facts.trump)
    return PositionView(
        header=facts.header,
        standing=facts.standing,
        deal=facts.deal,
        dealer=facts.dealer,
        mano=mano(facts.dealer, n),
        trump=facts.trump,
        turned=facts.turned,
        hands=facts.hands,
        stock_left=facts.stock_left,
        stock_known=(facts.turned,) if facts.stock_left and facts.turned >= 0 else (),
        leader=facts.leader,
        trick=plays,
        trick_no=trick_no,
        tricks_won=tuple(tricks_won),
        card_points=tuple(card_points),
        cante_points=tuple(cante_points),
        totals=(),
        cantes=tuple(cantes),
        open_cantes=(),
        sung=sung if declared else 0,
        strict=not free_play(ruleset, facts.stock_left),
        turn=(plays[-1][0] + 1) % n if plays else facts.leader,
        correct=0,
        declarations=(),
        events=events + (1 if tute else 0),
        over=tute or trick_no == ruleset.tricks(n),
        outcome=None,
        match_over=facts.standing.over,
        led_suit=led,
        win_seat=win_seat,
        win_card=win_card,
        last_winner=tricks[-1].winner if tricks else -1,
        cantes_this_lead=sum(1 for c in cantes if c.trick == trick_no - 1) if declared else 0,
        calls=0 if declared else len(cantes),
        decisive=decisive,
        tricks=tuple(tricks),
        captured=tuple(captured),
        exchanges=tuple(facts.exchanges),
        renuncios=tuple(facts.renuncios),
    )


def _check_trump(reader: _Reader, trump: int, turned: Card, cantes: list[Cante]) -> None:
    """Trump is the turned card's suit, or in the rulesets of calls the first call's (none
    before it, and no card turned)."""
    if reader.header.ruleset.trump_from == TrumpSource.CALL:
        if turned >= 0:
            reader.fault(f"{reader.header.ruleset.name} turns no card", "turned")
        if trump != (cantes[0].suit if cantes else NO_TRUMP):
            reader.fault("the first call makes trump (none before it)", "trump")
    elif turned < 0:
        reader.fault("missing: the card that shows trump", "turned")
    elif trump != turned // 10:
        reader.fault("trump is the suit of the turned card", "trump")


def _mask(cards: list[Card]) -> Mask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _cantes(reader: _Reader, trump: int) -> list[Cante]:
    """The cantes (or calls), their points as the rules make them."""
    header = reader.header
    tricks = header.ruleset.tricks(reader.players)
    cantes = []
    for i, (path, c) in enumerate(reader.records("cantes", 8)):
        seat = reader.seat(c, path)
        suit = _suit(_need(c, "suit", path), header, (*path, "suit"))
        trick = _int(_need(c, "trick", path), (*path, "trick"), 0, tricks - 1)
        points = cante_value(header.ruleset, suit, trump, i)
        if "points" in c and c["points"] != points:
            reader.fault(f"must be {points}", *path, "points")
        cantes.append(Cante(seat, suit, points, trick))
    return cantes


def _exchanges(reader: _Reader, tricks: list[Trick]) -> list[Exchange]:
    """The exchanges, each made on a lead (after trick ``trick``, -1 before the first) as the
    rules allow: by the seat leading then, while the stock lasted, after a trick it won when
    ``exchange_requires_trick_won`` asks for one."""
    header = reader.header
    found = []
    for path, e in reader.records("exchanges", 1):
        seat = reader.seat(e, path)
        gave, took = reader.card(e, path, "gave"), reader.card(e, path, "took")
        trick = _int(_need(e, "trick", path), (*path, "trick"), -1, len(tricks) - 1)
        if trick < 0 and header.options.exchange_requires_trick_won:
            reader.fault("exchange_requires_trick_won: not before the first trick", *path,
                         "trick")  # fmt: skip
        leading = tricks[trick].winner if trick >= 0 else mano(reader.dealer, reader.players)
        if seat != leading:
            when = "after that trick" if trick >= 0 else "first (the mano)"
            reader.fault(f"seat {leading} leads {when}, not seat {seat}", *path, "trick")
        drawn = sum(len(t.draws) for t in tricks[: trick + 1])
        if header.ruleset.stock and drawn >= header.ruleset.stock_size(reader.players):
            reader.fault("no stock was left after that trick", *path, "trick")
        found.append(Exchange(seat, gave, took, trick))
    return found


def _renuncios(
    reader: _Reader, tricks: list[Trick], plays: Plays, trump: int, first_call: int
) -> list[Renuncio]:
    """The renuncios: each a card of its trick, with the suit led and the card winning when it
    was played worked out from the trick (and the trump then in force)."""
    found = []
    for path, r in reader.records("renuncios", 40):
        event = _int(_need(r, "event", path), (*path, "event"), 0, 200)
        seat = reader.seat(r, path)
        card = reader.card(r, path, "card")
        raw_obligation = _need(r, "obligation", path)
        if raw_obligation not in tuple(o.value for o in Obligation):
            raise LogError("not an obligation", (*path, "obligation"))
        trick = _int(_need(r, "trick", path), (*path, "trick"), 0, len(tricks))
        in_trick = tricks[trick].plays if trick < len(tricks) else plays
        if (seat, card) not in in_trick:
            reader.fault("not a play of that trick", *path, "card")
            continue
        in_force = NO_TRUMP if trick <= first_call else trump
        before = in_trick[: in_trick.index((seat, card))]
        _, led, _, winning = trick_standing(before, in_force)
        correct = _mask(_cards(r.get("correct", []), reader.header, (*path, "correct"), 40))
        found.append(
            Renuncio(event, seat, card, Obligation(raw_obligation), correct, trick, led, winning)
        )
    return found


def _decisive(reader: _Reader, renuncios: list[Renuncio]) -> Decisive | None:
    """What decided the deal: as given, else its first renuncio."""
    first = renuncios[0] if renuncios else None
    raw = reader.data.get("decided")
    if raw is None:
        return None if first is None else Decisive(DecisiveKind.RENUNCIO, first.seat, first.event)
    d = _obj(raw, ("decided",))
    kind = _need(d, "kind", ("decided",))
    if kind not in tuple(k.value for k in DecisiveKind):
        raise LogError("must be renuncio or tute", ("decided", "kind"))
    seat = _int(_need(d, "seat", ("decided",)), ("decided", "seat"), 0, reader.players - 1)
    event = _int(_need(d, "event", ("decided",)), ("decided", "event"), 0, 200)
    decisive = Decisive(DecisiveKind(kind), seat, event)
    if first is not None and first.event < event and decisive.kind is DecisiveKind.TUTE:
        reader.fault("the first renuncio decided the deal", "decided")
    elif decisive.kind is DecisiveKind.RENUNCIO and (first is None or first.seat != seat):
        reader.fault("the deal's first renuncio decides it", "decided")
    return decisive


def _check_cards(
    reader: _Reader, hands: list[list[Card]], plays: Plays, tricks: list[Trick], known: Card
) -> None:
    """Each card of the pack in one place at most: a hand, the table, a trick, the stock."""
    ruleset = reader.header.ruleset
    removed = ruleset.removed_rank[reader.players]
    seen: dict[Card, Path] = {}
    places: list[tuple[Card, Path]] = [
        (c, ("hands", s, i)) for s, hand in enumerate(hands) for i, c in enumerate(hand)
    ]
    places += [(c, ("trick", "plays", i, "card")) for i, (_, c) in enumerate(plays)]
    places += [
        (c, ("tricks", t, "plays", i, "card"))
        for t, trick in enumerate(tricks)
        for i, (_, c) in enumerate(trick.plays)
    ]
    if known >= 0:
        places.append((known, ("turned",)))
    for card, path in places:
        if removed is not None and card % 10 == STRENGTH_OF_RANK[removed]:
            reader.fault("not a card of this pack", *path)
        elif card in seen:
            reader.faults.append(RepeatedError("this card is already at", seen[card], path))
        else:
            seen[card] = path


def _check_counts(
    reader: _Reader, hands: list[list[Card]], plays: Plays, tricks: list[Trick], stock_left: int
) -> None:
    """Each hand holds the cards dealt less those played, plus those drawn; the stock what was
    not dealt less the cards drawn."""
    ruleset, n = reader.header.ruleset, reader.players
    dealt = ruleset.hand_size[n]
    held = [dealt] * n
    drawn = 0
    for t in tricks:
        for seat, _ in t.plays:
            held[seat] -= 1
        for seat, _ in t.draws:
            held[seat] += 1
            drawn += 1
    for seat, _ in plays:
        held[seat] -= 1
    for seat, hand in enumerate(hands):
        if len(hand) != held[seat]:
            reader.fault(f"seat {seat} holds {held[seat]} cards at this point", "hands", seat)
    if ruleset.stock:
        stock = ruleset.stock_size(n)
        if stock_left != stock - drawn:
            reader.fault(f"{stock - drawn} cards are left after the draws", "stock_left")


def _standing(data: Mapping[str, Any], players: int) -> MatchStanding:
    """The match standing given (``match``), or a match not begun."""
    if "match" not in data:
        return MatchStanding(players)
    match = _obj(data["match"], ("match",))
    rows = _list(_need(match, "standings", ("match",)), ("match", "standings"), players, players)
    counts: list[list[int]] = [[], [], []]
    for i, row in enumerate(rows):
        r = _obj(row, ("match", "standings", i))
        for k, key in enumerate(("deals_won", "loser_points", "tokens")):
            path: Path = ("match", "standings", i, key)
            counts[k].append(_int(r.get(key, 0), path, 0, 1_000_000))
    over = match.get("over", False)
    if not isinstance(over, bool):
        raise LogError("must be true or false", ("match", "over"))
    seats: list[list[int]] = []
    for key in ("winners", "losers"):
        raw = _list(match.get(key, []), ("match", key), players)
        seats.append([_int(s, ("match", key, i), 0, players - 1) for i, s in enumerate(raw)])
    return MatchStanding.from_fields([*counts, over, seats[0], seats[1]])
