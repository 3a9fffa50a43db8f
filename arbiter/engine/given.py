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
JSON gives too to the engine's. Each fault is an error with its JSON pointer and its
:class:`~arbiter.engine.errors.FaultCode` (the params its message names), all of them in one
:class:`ArbiterErrors`.

An earlier trick may be given without its cards (``"plays": []``): who led and won it are then
taken as given, and its points, or, when those are not known either, the seats' card points
(``card_points``), checked against what is known: the known tricks, and the points of the
cards seen nowhere. The hands and the stock follow from the number of tricks alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from arbiter.engine.cards import (
    POINTS,
    STRENGTH_OF_RANK,
    Card,
    Mask,
    cards_of,
    format_card,
    mask_points,
    pack_mask,
    parse_card,
    parse_suit,
)
from arbiter.engine.errors import (
    ArbiterError,
    ArbiterErrors,
    CardCodeError,
    FaultCode,
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
from arbiter.engine.view_fields import (
    CANTE,
    DECISIVE,
    EXCHANGE,
    RENUNCIO,
    STEP,
    STEP_TRICK,
    TRICK,
    Field,
    RecordTable,
)

#: The keys of the header, read as a log's.
_HEADER_KEYS: Final = ("ruleset", "options", "players", "notation")
Plays = tuple[tuple[int, Card], ...]


# --- reading JSON values ------------------------------------------------------------------------


def _need(data: Mapping[str, Any], key: str, path: Path) -> Any:
    if key not in data:
        raise LogError("missing", (*path, key), FaultCode.MISSING)
    return data[key]


def _obj(raw: object, path: Path) -> Mapping[str, Any]:
    if not isinstance(raw, Mapping):
        raise LogError("must be an object", path, FaultCode.NOT_OBJECT)
    return raw


def _list(raw: object, path: Path, most: int, least: int = 0) -> list[Any]:
    if not isinstance(raw, list) or not least <= len(raw) <= most:
        size = f"{least} to {most}" if least != most else str(most)
        bounds = {"least": least, "most": most}
        raise LogError(f"must be a list of {size} items", path, FaultCode.LIST_SIZE, bounds)
    return raw


def _int(raw: object, path: Path, low: int, high: int) -> int:
    if not isinstance(raw, int) or isinstance(raw, bool) or not low <= raw <= high:
        bounds = {"low": low, "high": high}
        raise LogError(
            f"must be an integer from {low} to {high}", path, FaultCode.INT_RANGE, bounds
        )
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


# --- reading a field by its table ----------------------------------------------------------------

#: (least, most) of an int or of a list's length, by the name a field's ``bound`` gives.
Bounds = dict[str, tuple[int, int]]

#: The enums a field read may hold, by the name its table gives their type.
_ENUMS: Final[dict[str, type[StrEnum]]] = {"Obligation": Obligation, "DecisiveKind": DecisiveKind}

#: A field's value when the JSON leaves out a field it "may" give, by its codec.
_EMPTY: Final[dict[str, Any]] = {"plays": (), "cards": 0, "card?": -1, "suit?": NO_TRUMP}


def _one_of(values: Sequence[str]) -> str:
    """«renuncio or tute», «asistir, montar, fallar or pisar»."""
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]


def _decode(field: Field, raw: object, header: Header, path: Path, bounds: Bounds) -> Any:
    """The value of one field a position's JSON gives, read by its codec (a fault names
    ``path``)."""
    codec = field.codec
    if codec == "value":  # an int, within the field's bounds
        return _int(raw, path, *bounds[field.bound or ""])
    if codec in ("card", "card?"):
        return -1 if raw is None and codec == "card?" else _card(raw, header, path)
    if codec in ("suit", "suit?"):
        return NO_TRUMP if raw is None and codec == "suit?" else _suit(raw, header, path)
    if codec == "plays":
        least, most = bounds[field.bound or ""]
        return _seat_cards(raw, header, path, most, least)
    if codec == "cards":
        return _mask(_cards(raw, header, path, bounds[field.bound or ""][1]))
    if codec == "masks":  # a list of hands, each a list of cards (kept as lists: checked later)
        least, most = bounds[field.bound or ""]
        return [
            _cards(h, header, (*path, i), 40) for i, h in enumerate(_list(raw, path, most, least))
        ]
    if codec == "enum":
        enum = _ENUMS[field.type]
        values = [m.value for m in enum]
        if raw not in values:
            raise LogError(f"must be {_one_of(values)}", path, FaultCode.ONE_OF, {"values": values})
        return enum(raw)
    raise AssertionError(f"no reader for the codec {codec!r} of {field.name}")


def _read_fields(
    fields: Sequence[Field], raw: object, header: Header, path: Path, bounds: Bounds
) -> dict[str, Any]:
    """The fields a position's JSON gives of a record (those its table marks ``need`` or
    ``may``), by name, in the JSON's order."""
    data = _obj(raw, path)
    values: dict[str, Any] = {}
    for f in fields:
        if f.read not in ("need", "may") or f.json is None:
            continue
        if f.json in data:
            values[f.name] = _decode(f, data[f.json], header, (*path, f.json), bounds)
        elif f.read == "need":
            raise LogError("missing", (*path, f.json), FaultCode.MISSING)
        else:
            values[f.name] = _EMPTY[f.codec]
    return values


def _in_json_order(record: RecordTable) -> tuple[Field, ...]:
    by_name = {f.name: f for f in record.fields}
    return tuple(by_name[n] for n in record.json_order or tuple(by_name))


# --- the facts ------------------------------------------------------------------------------------


class _Reader:
    """One position's JSON being read: its header, and the faults found so far."""

    def __init__(self, data: Mapping[str, Any], header: Header, dealer: int) -> None:
        self.data = data
        self.header = header
        n = self.players = len(header.players)
        self.dealer = dealer
        self.faults: list[ArbiterError] = []
        tricks = header.ruleset.tricks(n)
        #: the bounds the tables name (``played``, the tricks completed: set once read)
        self.bounds: Bounds = {
            "seat": (0, n - 1), "hands": (n, n), "trick": (n, n), "table": (0, n - 1),
            "draws": (0, n), "tricks": (0, tricks - 1), "played": (0, tricks), "event": (0, 200),
            "pack": (0, 40), "after": (-1, tricks - 1),
        }  # fmt: skip

    def fields(self, record: RecordTable, raw: object, path: Path) -> dict[str, Any]:
        """The fields a record's JSON gives (:func:`_read_fields`)."""
        return _read_fields(_in_json_order(record), raw, self.header, path, self.bounds)

    def check(self, record: RecordTable, raw: Mapping[str, Any], path: Path, **made: Any) -> None:
        """A fault for each field the table marks ``check`` that the JSON gives otherwise than
        the rules make it (``made``, by name)."""
        for f in record.fields:
            key = f.json
            if f.read == "check" and key is not None and key in raw and raw[key] != made[f.name]:
                value = made[f.name]
                self.fault(FaultCode.MUST_BE, f"must be {value}", *path, key, value=value)

    def fault(self, code: FaultCode, message: str, *path: str | int, **params: Any) -> None:
        self.faults.append(LogError(message, path, code, params))

    def records(self, key: str, most: int) -> list[tuple[Path, Mapping[str, Any]]]:
        """The objects of the list ``key`` (none when it is left out), each with its path."""
        raw = _list(self.data.get(key, []), (key,), most)
        return [((key, i), _obj(item, (key, i))) for i, item in enumerate(raw)]

    def trick_on_table(self) -> tuple[int, Plays]:
        trick = self.fields(STEP_TRICK, _need(self.data, "trick", ()), ("trick",))
        leader: int = trick["leader"]
        plays: Plays = trick["plays"]
        self.check_order(leader, plays, ("trick", "plays"))
        return leader, plays

    def check_order(self, leader: int, plays: Plays, path: Path) -> None:
        """The trick's plays go round the table from its leader."""
        for i, (seat, _) in enumerate(plays):
            due = (leader + i) % self.players
            if seat != due:
                self.fault(
                    FaultCode.PLAY_SEAT, f"seat {due} plays here", *path, i, "seat", seat=due
                )

    def tricks(self, trump: int, first_call: int) -> list[Trick]:
        """The tricks completed: each led by the last one's winner, its winner and points as
        the rules make them (in rulesets of calls, trump counts from the trick after the first
        call). A trick given with no plays is one whose cards are not known: its winner and
        points (null: not known either) are taken as given."""
        header, n = self.header, self.players
        raw = _list(_need(self.data, "tricks", ()), ("tricks",), header.ruleset.tricks(n))
        tricks = []
        leader = mano(self.dealer, n)
        for i, item in enumerate(raw):
            path: Path = ("tricks", i)
            if isinstance(item, Mapping) and item.get("plays") == []:
                trick = self.unknown_trick(item, path)
            else:
                t = self.fields(TRICK, item, path)
                self.check_order(t["leader"], t["plays"], (*path, "plays"))
                in_force = NO_TRUMP if i <= first_call else trump
                points, _, winner, _ = trick_standing(t["plays"], in_force)
                self.check(TRICK, item, path, winner=winner, points=points)
                trick = Trick(**t, winner=winner, points=points)
            if trick.leader != leader:
                self.fault(FaultCode.TRICK_LEADER, f"the trick is led by seat {leader}", *path,
                           "leader", seat=leader)  # fmt: skip
            self.check_draws(trick, i, path)
            tricks.append(trick)
            leader = trick.winner
        # the renuncios' tricks (the one on the table too) and the exchanges' (-1: before any)
        self.bounds["played"] = (0, len(tricks))
        self.bounds["after"] = (-1, len(tricks) - 1)
        return tricks

    def unknown_trick(self, item: Mapping[str, Any], path: Path) -> Trick:
        """A trick whose cards are not known: its leader, winner and points (-1: not known)
        as given, its draws if given."""
        n = self.players
        leader = _int(_need(item, "leader", path), (*path, "leader"), 0, n - 1)
        winner = _int(_need(item, "winner", path), (*path, "winner"), 0, n - 1)
        given = _need(item, "points", path)
        most = sum(sorted((POINTS[c] for c in cards_of(self.pack)), reverse=True)[:n])
        points = -1 if given is None else _int(given, (*path, "points"), 0, most)
        draws = _seat_cards(item.get("draws", []), self.header, (*path, "draws"), n)
        return Trick(leader, (), winner, points, draws)

    @property
    def pack(self) -> Mask:
        return pack_mask(self.header.ruleset.removed_rank[self.players])

    def draws_after(self, trick: int) -> int:
        """The cards drawn after trick ``trick`` (from 0): one a seat while the stock lasts."""
        n = self.players
        stock = self.header.ruleset.stock_size(n) if self.header.ruleset.stock else 0
        return max(0, min(n, stock - n * trick))

    def check_draws(self, trick: Trick, index: int, path: Path) -> None:
        """The draws given (none: not known) are as many as the rules make, from the winner
        round the table."""
        if not trick.draws:
            return
        n, count = self.players, self.draws_after(index)
        if len(trick.draws) != count:
            self.fault(FaultCode.DRAW_COUNT, f"{count} cards are drawn after this trick", *path,
                       "draws", count=count)  # fmt: skip
            return
        for j, (seat, _) in enumerate(trick.draws):
            due = (trick.winner + j) % n
            if seat != due:
                self.fault(FaultCode.DRAW_SEAT, f"seat {due} draws here", *path, "draws", j,
                           "seat", seat=due)  # fmt: skip


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
    card_points: tuple[int, ...]
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
    given = _read_fields(_FACTS, data, header, (), reader.bounds)
    hands: list[list[Card]] = given["hands"]
    trump: int = given["trump"]
    turned: Card = given["turned"]
    stock_left = 0
    if ruleset.stock:
        stock_left = _int(_need(data, "stock_left", ()), ("stock_left",), 0, 40)
    elif data.get("stock_left", 0) != 0:
        reader.fault(FaultCode.NO_STOCK, f"{ruleset.name} has no stock", "stock_left",
                     ruleset=ruleset.name)  # fmt: skip
    cantes = _cantes(reader, trump)
    first_call = cantes[0].trick if cantes and ruleset.cantes == CanteStyle.IN_TRICK else -1
    _check_trump(reader, trump, turned, cantes)
    if data.get("exchanges") and not ruleset.exchange:
        reader.fault(FaultCode.NO_EXCHANGE, f"{ruleset.name} has no exchange", "exchanges",
                     ruleset=ruleset.name)  # fmt: skip
    leader, plays = reader.trick_on_table()
    tricks = reader.tricks(trump, first_call)
    renuncios = _renuncios(reader, tricks, plays, trump, first_call)
    in_stock = turned if stock_left else -1
    card_points = _card_points(reader, hands, plays, tricks, in_stock, stock_left)
    facts = _Facts(
        header, deal_index, dealer, tuple(_mask(h) for h in hands), trump, turned, stock_left,
        leader, plays, tricks, card_points, cantes, _exchanges(reader, tricks), renuncios,
        _decisive(reader, renuncios), _standing(data, n),
    )  # fmt: skip
    _check_cards(reader, hands, plays, tricks, in_stock)
    _check_counts(reader, hands, plays, tricks, stock_left)
    due = tricks[-1].winner if tricks else mano(dealer, n)
    if leader != due:
        reader.fault(FaultCode.TABLE_LEADER, "the last trick's winner (the mano before any) leads",
                     "trick", "leader", seat=due)  # fmt: skip
    if reader.faults:
        raise ArbiterErrors(reader.faults) if len(reader.faults) > 1 else reader.faults[0]
    return facts


#: The fields of a step that a position's JSON gives as facts (the hands, trump, the turned
#: card), read in this order.
_FACTS: Final = tuple(
    f for name in ("hands", "trump", "turned") for f in STEP.fields if f.name == name
)


def _view_of(facts: _Facts) -> PositionView:
    """The view the facts make, what follows from them worked out as a replay does (the
    fields :meth:`Position.from_view` does not read are left empty: its own view fills
    them)."""
    ruleset, n = facts.header.ruleset, len(facts.header.players)
    tricks, cantes, plays, decisive = facts.tricks, facts.cantes, facts.plays, facts.decisive
    trick_no = len(tricks)
    tricks_won, captured, cante_points = [0] * n, [0] * n, [0] * n
    for t in tricks:
        tricks_won[t.winner] += 1
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
        card_points=facts.card_points,
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
        name = reader.header.ruleset.name
        if turned >= 0:
            reader.fault(FaultCode.NO_TURNED_CARD, f"{name} turns no card", "turned", ruleset=name)
        if trump != (cantes[0].suit if cantes else NO_TRUMP):
            reader.fault(FaultCode.TRUMP_BY_CALL, "the first call makes trump (none before it)",
                         "trump")  # fmt: skip
    elif turned < 0:
        reader.fault(FaultCode.TURNED_MISSING, "missing: the card that shows trump", "turned")
    elif trump != turned // 10:
        reader.fault(FaultCode.TRUMP_OF_TURNED, "trump is the suit of the turned card", "trump")


def _mask(cards: list[Card]) -> Mask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _cantes(reader: _Reader, trump: int) -> list[Cante]:
    """The cantes (or calls), their points as the rules make them."""
    cantes = []
    for i, (path, c) in enumerate(reader.records("cantes", 8)):
        given = reader.fields(CANTE, c, path)
        points = cante_value(reader.header.ruleset, given["suit"], trump, i)
        reader.check(CANTE, c, path, points=points)
        cantes.append(Cante(**given, points=points))
    return cantes


def _exchanges(reader: _Reader, tricks: list[Trick]) -> list[Exchange]:
    """The exchanges, each made on a lead (after trick ``trick``, -1 before the first) as the
    rules allow: by the seat leading then, while the stock lasted, after a trick it won when
    ``exchange_requires_trick_won`` asks for one."""
    header = reader.header
    found = []
    for path, e in reader.records("exchanges", 1):
        given = reader.fields(EXCHANGE, e, path)
        seat, trick = given["seat"], given["trick"]
        if trick < 0 and header.options.exchange_requires_trick_won:
            reader.fault(FaultCode.EXCHANGE_BEFORE_TRICK,
                         "exchange_requires_trick_won: not before the first trick", *path,
                         "trick")  # fmt: skip
        leading = tricks[trick].winner if trick >= 0 else mano(reader.dealer, reader.players)
        if seat != leading:
            when = "after that trick" if trick >= 0 else "first (the mano)"
            reader.fault(FaultCode.EXCHANGE_NOT_LEADER,
                         f"seat {leading} leads {when}, not seat {seat}", *path, "trick",
                         seat=leading, given=seat, first=trick < 0)  # fmt: skip
        # the draws follow from the tricks' count, whether their cards are given or not
        drawn = sum(reader.draws_after(k) for k in range(trick + 1))
        if header.ruleset.stock and drawn >= header.ruleset.stock_size(reader.players):
            reader.fault(FaultCode.EXCHANGE_NO_STOCK, "no stock was left after that trick", *path,
                         "trick")  # fmt: skip
        found.append(Exchange(**given))
    return found


def _renuncios(
    reader: _Reader, tricks: list[Trick], plays: Plays, trump: int, first_call: int
) -> list[Renuncio]:
    """The renuncios: each a card of its trick, with the suit led and the card winning when it
    was played worked out from the trick (and the trump then in force)."""
    found = []
    for path, r in reader.records("renuncios", 40):
        given = reader.fields(RENUNCIO, r, path)
        seat, card, trick = given["seat"], given["card"], given["trick"]
        in_trick = tricks[trick].plays if trick < len(tricks) else plays
        if trick < len(tricks) and not in_trick:
            # the suit led and the card winning when it was played are not known
            unknown = "the cards of that trick are not known"
            reader.fault(FaultCode.RENUNCIO_IN_UNKNOWN_TRICK, unknown, *path, "trick")
            continue
        if (seat, card) not in in_trick:
            reader.fault(FaultCode.RENUNCIO_NOT_PLAYED, "not a play of that trick", *path, "card")
            continue
        in_force = NO_TRUMP if trick <= first_call else trump
        before = in_trick[: in_trick.index((seat, card))]
        _, led, _, winning = trick_standing(before, in_force)
        found.append(Renuncio(**given, led_suit=led, winning=winning))
    return found


def _decisive(reader: _Reader, renuncios: list[Renuncio]) -> Decisive | None:
    """What decided the deal: as given, else its first renuncio."""
    first = renuncios[0] if renuncios else None
    raw = reader.data.get("decided")
    if raw is None:
        return None if first is None else Decisive(DecisiveKind.RENUNCIO, first.seat, first.event)
    decisive = Decisive(**reader.fields(DECISIVE, raw, ("decided",)))
    seat = decisive.seat
    if first is not None and first.event < decisive.event and decisive.kind is DecisiveKind.TUTE:
        reader.fault(FaultCode.DECIDED_BY_RENUNCIO, "the first renuncio decided the deal",
                     "decided")  # fmt: skip
    elif decisive.kind is DecisiveKind.RENUNCIO and (first is None or first.seat != seat):
        reader.fault(FaultCode.RENUNCIO_DECIDES, "the deal's first renuncio decides it", "decided")
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
            code = format_card(card, reader.header.notation)
            reader.fault(FaultCode.CARD_NOT_IN_PACK, "not a card of this pack", *path, card=code)
        elif card in seen:
            reader.faults.append(RepeatedError("this card is already at", seen[card], path))
        else:
            seen[card] = path


def _card_points(
    reader: _Reader,
    hands: list[list[Card]],
    plays: Plays,
    tricks: list[Trick],
    in_stock: Card,
    stock_left: int,
) -> tuple[int, ...]:
    """Each seat's card points: of its tricks when all their points are known, else as the
    position gives them (``card_points``), checked against what is known: a seat's known
    tricks, and the unseen cards the tricks of unknown cards were made of."""
    n = reader.players
    known, open_ = [0] * n, [False] * n
    for t in tricks:
        if t.points < 0:
            open_[t.winner] = True
        else:
            known[t.winner] += t.points
    points = tuple(known)
    where: Path = ("tricks",)
    if any(open_):
        where = ("card_points",)
        raw = _list(_need(reader.data, "card_points", ()), where, n, n)
        points = tuple(_int(p, ("card_points", s), 0, 130) for s, p in enumerate(raw))
        for seat, (given, least) in enumerate(zip(points, known, strict=True)):
            if given < least:
                reader.fault(FaultCode.POINTS_BELOW_KNOWN,
                             f"seat {seat}'s known tricks alone have {least} points",
                             "card_points", seat, seat=seat, points=least)  # fmt: skip
            elif not open_[seat] and given != least:
                reader.fault(FaultCode.POINTS_NOT_KNOWN_TRICKS,
                             f"seat {seat} won no trick of unknown points: it has {least}",
                             "card_points", seat, seat=seat, points=least)  # fmt: skip
    if any(not t.plays for t in tricks):
        seen = _mask([c for hand in hands for c in hand]) | _mask([c for _, c in plays])
        seen |= _mask([c for t in tricks for _, c in t.plays])
        if in_stock >= 0:
            seen |= 1 << in_stock
        unseen = mask_points(reader.pack & ~seen)
        # the points of the tricks of unknown cards: all but those of the known tricks
        hidden = sum(points) - sum(t.points for t in tricks if t.plays)
        if hidden > unseen:
            reader.fault(FaultCode.UNKNOWN_POINTS_TOO_MANY,
                         f"the tricks of unknown cards hold at most {unseen} points", *where,
                         most=unseen)  # fmt: skip
        elif stock_left == 0 and hidden != unseen:
            # no card is left in the stock: every card seen nowhere is in those tricks
            reader.fault(FaultCode.UNKNOWN_POINTS_NOT_ALL,
                         f"the tricks of unknown cards hold {unseen} points (every unseen card)",
                         *where, points=unseen)  # fmt: skip
    return points


def _check_counts(
    reader: _Reader, hands: list[list[Card]], plays: Plays, tricks: list[Trick], stock_left: int
) -> None:
    """Each hand holds the cards dealt less those played, plus those drawn; the stock what was
    not dealt less the cards drawn."""
    ruleset, n = reader.header.ruleset, reader.players
    dealt = ruleset.hand_size[n]
    # every seat plays once a trick and, while the stock lasts, draws once after it, the
    # winner first: the counts follow from the tricks' number, known or not
    held = [dealt - len(tricks)] * n
    drawn = 0
    for i, t in enumerate(tricks):
        count = reader.draws_after(i)
        for j in range(count):
            held[(t.winner + j) % n] += 1
        drawn += count
    for seat, _ in plays:
        held[seat] -= 1
    for seat, hand in enumerate(hands):
        if len(hand) != held[seat]:
            reader.fault(FaultCode.HAND_SIZE, f"seat {seat} holds {held[seat]} cards at this point",
                         "hands", seat, seat=seat, count=held[seat])  # fmt: skip
    if ruleset.stock:
        left = ruleset.stock_size(n) - drawn
        if stock_left != left:
            reader.fault(FaultCode.STOCK_SIZE, f"{left} cards are left after the draws",
                         "stock_left", count=left)  # fmt: skip


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
        raise LogError("must be true or false", ("match", "over"), FaultCode.BOOLEAN)
    seats: list[list[int]] = []
    for key in ("winners", "losers"):
        raw = _list(match.get(key, []), ("match", key), players)
        seats.append([_int(s, ("match", key, i), 0, players - 1) for i, s in enumerate(raw)])
    return MatchStanding.from_fields([*counts, over, seats[0], seats[1]])
