"""Hand-built positions: deals dealt on purpose, for rules that random games reach rarely or
late — a tute on the first lead, several cantes after one trick, two pairs in one trick, a call
of any two ranks, a hand strong enough to pass 100 points.

:func:`shaped` deals a table's pack so that given seats hold given cards (and lack given suits),
the rest at random, and writes the deal with the engine's writer
(:func:`~arbiter.engine.setup.deal_json`); :func:`played_on` plays a deal on from a script,
every scripted move checked to be one the referee allows, then at random among the legal plays.
Cards are the engine's (:mod:`arbiter.engine.cards`) until a log writes them. What the referee
answers about the result is what the vectors publish.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Mapping, Sequence
from functools import cache
from typing import Any, Final

from arbiter.conformance.kit.protocol import NAMES
from arbiter.engine.cards import (
    HORSE,
    KING,
    SEVEN,
    Card,
    Suit,
    card_rank,
    card_suit,
    display_order,
    pack_mask,
)
from arbiter.engine.cards import make_card as card
from arbiter.engine.moves import Move, TuteOf
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.rulesets import RULESETS, TrumpSource
from arbiter.engine.setup import deal_json, mano
from devtools.vectors.positions import by_code, of_suit, spots
from devtools.vectors.probing import Table, appended, body_of, moves_key

Deal = dict[str, Any]
Log = dict[str, Any]
Event = dict[str, Any]
#: The four suits, in the order the search draws them from.
SUITS: Final[tuple[int, ...]] = tuple(Suit)


@cache
def pack(table: Table) -> tuple[Card, ...]:
    """Every card of the table's pack, by suit then rank."""
    return tuple(display_order(pack_mask(RULESETS[table.ruleset].removed_rank[table.players])))


def play(seat: int, card: Card) -> Event:
    """A play, as a log writes it."""
    return Move.play(seat, card).to_json("spanish")


def sing(seat: int, suit: int) -> Event:
    return Move.sing(seat, suit).to_json("spanish")


def dealer_for(seat: int, players: int) -> int:
    """The dealer whose *mano* (who leads the first trick) is ``seat``: the engine's rule
    (:func:`~arbiter.engine.setup.mano`) read backwards."""
    return next(d for d in range(players) if mano(d, players) == seat)


def shaped(
    table: Table,
    rng: random.Random,
    fixed: dict[int, list[Card]],
    *,
    void: Mapping[int, Collection[int]] | None = None,
    dealer: int | None = None,
    head: Sequence[Card] = (),
    trump_suit: int | None = None,
    as_deck: bool = False,
) -> Deal | None:
    """A deal of ``table`` where each seat of ``fixed`` holds those cards and no seat of
    ``void`` holds a card of those suits; tute-2p's stock starts with ``head``. The trump card
    (tute-2p's turned card, the dealer's shown card) is of ``trump_suit`` when given. The
    dealer is ``dealer``, or the one whose mano is seat 0. None when the cards cannot be dealt
    so."""
    ruleset = RULESETS[table.ruleset]
    n, size = table.players, ruleset.hand_size[table.players]
    dealer = dealer_for(0, n) if dealer is None else dealer
    void = void or {}
    hands = [list(fixed.get(s, [])) for s in range(n)]
    taken = {c for h in hands for c in h} | set(head)
    rest = [c for c in pack(table) if c not in taken]
    rng.shuffle(rest)
    turned = None
    if ruleset.stock:
        options = [c for c in rest if trump_suit is None or card_suit(c) == trump_suit]
        if not options:
            return None
        turned = options[0]
        rest.remove(turned)

    def seats_for(c: Card) -> list[int]:
        return [s for s in range(n) if card_suit(c) not in void.get(s, ())]

    rest.sort(key=lambda c: len(seats_for(c)))  # the most constrained first (a stable sort)
    left = []
    for c in rest:
        room = [s for s in seats_for(c) if len(hands[s]) < size]
        if room:
            hands[rng.choice(room)].append(c)
        else:
            left.append(c)
    if any(len(h) != size for h in hands) or (left and not ruleset.stock):
        return None
    if ruleset.trump_from == TrumpSource.DEALER:
        shown = [c for c in hands[dealer] if trump_suit is None or card_suit(c) == trump_suit]
        if not shown:
            return None
        hands[dealer].remove(shown[-1])
        hands[dealer].append(shown[-1])  # the dealer's last card, shown
    stock = [*head, *left, turned] if turned is not None else []
    return deal_json(ruleset, dealer, hands, stock, as_deck=as_deck)


def log_of(table: Table, deals: list[Deal], options: dict[str, Any] | None = None) -> Log:
    log: Log = {"ruleset": table.ruleset}
    if options:
        log["options"] = options
    log["players"] = list(NAMES[: table.players])
    log["deals"] = [{**d, "events": d.get("events", [])} for d in deals]
    return log


def legal_moves(log: Log) -> list[dict[str, Any]] | None:
    nxt = body_of(log)["next"]
    return None if nxt is None else nxt["legal_moves"]


def played_on(
    log: Log,
    rng: random.Random,
    script: Sequence[dict[str, Any] | None] = (),
    *,
    stop: int | None = None,
) -> Log | None:
    """The log with its last deal played on: the scripted moves (None: any legal play), each
    of which must be allowed, then random legal plays until the deal ends or holds ``stop``
    events. None when a scripted move is not allowed."""
    for move in script:
        legal = legal_moves(log)
        if legal is None:
            return None
        if move is None:
            move = rng.choice([m for m in legal if m["type"] == "play"])
        elif moves_key([move])[0] not in (moves_key(legal) or []):  # type: ignore[index]
            return None
        log = appended(log, move)
    while stop is None or len(log["deals"][-1]["events"]) < stop:
        legal = legal_moves(log)
        if legal is None:
            break
        log = appended(log, rng.choice([m for m in legal if m["type"] == "play"]))
    return log


# --- the positions --------------------------------------------------------------------------------


def tute_deals(table: Table, rng: random.Random, seat: int, of: TuteOf) -> Deal | None:
    """A deal whose seat ``seat`` is mano and holds the four kings (or horses)."""
    rank = KING if of is TuteOf.KINGS else HORSE
    four = [card(rank, s) for s in SUITS]
    dealer = dealer_for(seat, table.players)
    return shaped(table, rng, {seat: four}, dealer=dealer, as_deck=rng.random() < 0.5)


def tutes(table: Table, rng: random.Random, count: int) -> Iterator[tuple[Log, dict[str, Any]]]:
    """Deals ready for a tute on the first lead, and the tute."""
    for i in range(count):
        seat = rng.randrange(table.players)
        of = TuteOf(i % 2)
        deal = tute_deals(table, rng, seat, of)
        if deal is not None:
            yield log_of(table, [deal]), Move.tute(seat, of).to_json("spanish")


def cantes_after_one_trick(
    table: Table, rng: random.Random, pairs: int
) -> tuple[Log, list[dict[str, Any]]] | None:
    """The mano leads the ace of trumps (so wins the first trick) holding the king and horse of
    ``pairs`` suits after the trick (tute-2p: the last of them drawn from the stock). The log
    ends after the trick; the sings it could make follow."""
    n = table.players
    size = RULESETS[table.ruleset].hand_size[n]
    trump = rng.choice(SUITS)
    suits = rng.sample(SUITS, pairs)
    held = [c for s in suits for c in (card(KING, s), card(HORSE, s))]
    ace = card(1, trump)
    head: list[Card] = []
    if 1 + len(held) > size:
        head = [held.pop()]  # drawn by the trick's winner first
    deal = shaped(
        table, rng, {0: [ace, *held]}, head=head, trump_suit=trump, as_deck=rng.random() < 0.5
    )
    if deal is None:
        return None
    log = played_on(log_of(table, [deal]), rng, [play(0, ace), *[None] * (n - 1)], stop=n)
    if log is None:
        return None
    return log, [sing(0, s) for s in suits]


def tute_after_trick(table: Table, rng: random.Random, of: TuteOf, cante: bool) -> Log | None:
    """The mano holds the four kings (or horses) and the ace of trumps — and, with ``cante``,
    the other card of a pair — and wins the first trick with the ace: the log ends there, with
    the tute (and the cante) open."""
    n = table.players
    rank, other = (KING, HORSE) if of is TuteOf.KINGS else (HORSE, KING)
    trump = rng.choice(SUITS)
    held = [card(rank, s) for s in SUITS] + [card(1, trump)]
    if cante:
        held.append(card(other, rng.choice([s for s in SUITS if s != trump])))
    deal = shaped(table, rng, {0: held}, trump_suit=trump, as_deck=rng.random() < 0.5)
    if deal is None:
        return None
    return played_on(log_of(table, [deal]), rng, [play(0, card(1, trump)), *[None] * (n - 1)],
                     stop=n)  # fmt: skip


def cantes_in_two_tricks(table: Table, rng: random.Random) -> Log | None:
    """The mano holds the ace and the three of trumps and the king and horse of two other
    suits: it wins the first trick with the ace and sings one pair, then the second with the
    three. The log ends there, the other pair open to a player who sang before."""
    n = table.players
    trump, first, second = rng.sample(SUITS, 3)
    pairs = [card(r, s) for s in (first, second) for r in (KING, HORSE)]
    ace, three = card(1, trump), card(3, trump)
    if not all(c in pack(table) for c in (ace, three)):
        return None
    deal = shaped(table, rng, {0: [ace, three, *pairs]}, trump_suit=trump,
                  as_deck=rng.random() < 0.5)  # fmt: skip
    if deal is None:
        return None
    script = [play(0, ace), *[None] * (n - 1), sing(0, first), play(0, three), *[None] * (n - 1)]
    return played_on(log_of(table, [deal]), rng, script, stop=2 * n + 1)


def partner_sang_before(table: Table, rng: random.Random) -> Log | None:
    """Pairs: seat 2 wins the first trick with an ace and sings; seat 0 wins the second with an
    ace and leads next holding a pair of its own, after its partner's cante."""
    trump = rng.choice(SUITS)
    first, second = rng.sample([s for s in SUITS if s != trump], 2)
    theirs = rng.choice([s for s in SUITS if s != trump])
    mine = rng.choice([s for s in SUITS if s not in (trump, theirs)])
    fixed = {
        0: [card(2, first), card(1, second), card(KING, mine), card(HORSE, mine)],
        1: [card(4, first), card(4, second)],
        2: [card(1, first), card(2, second), card(KING, theirs), card(HORSE, theirs)],
        3: [card(5, first), card(5, second)],
    }
    held = [c for cards in fixed.values() for c in cards]
    if len(set(held)) != len(held):
        return None
    deal = shaped(table, rng, fixed, trump_suit=trump, as_deck=rng.random() < 0.5)
    if deal is None:
        return None
    script: list[Event | None] = [play(s, fixed[s][0]) for s in range(4)]
    script += [sing(2, theirs)] + [play(s, fixed[s][1]) for s in (2, 3, 0, 1)]
    return played_on(log_of(table, [deal]), rng, script, stop=9)


def two_pairs_trick(table: Table, rng: random.Random, pair_first: bool) -> Log | None:
    """The first trick holds the horse and king of two suits. With ``pair_first`` the first
    suit's pair is complete first (seats 0, 1), else the second's (seats 1, 2)."""
    one, two = rng.sample(SUITS, 2)
    if pair_first:
        plays = [card(HORSE, one), card(KING, one), card(HORSE, two), card(KING, two)]
        void = {2: (one,), 3: (one,)}
    else:
        plays = [card(HORSE, one), card(HORSE, two), card(KING, two), card(KING, one)]
        void = {1: (one,), 2: (one,)}
    fixed = {seat: [c] for seat, c in enumerate(plays)}
    deal = shaped(table, rng, fixed, void=void, as_deck=rng.random() < 0.5)
    if deal is None:
        return None
    script: list[Event | None] = [play(s, c) for s, c in enumerate(plays)]
    script += [None] * (table.players - len(plays))
    return played_on(log_of(table, [deal]), rng, script, stop=table.players)


def pair_in_first_trick(
    table: Table, rng: random.Random, ranks: Sequence[int], suit: int, low_first: bool
) -> Log | None:
    """Seats 0 and 1 play the two cards of ``ranks`` in ``suit`` in the first trick."""
    cards = [card(r, suit) for r in ranks]
    if not all(c in pack(table) for c in cards):
        return None
    if not low_first:
        cards.reverse()
    # seat 2 lacks two other suits: after the call, it may be void in the suit led (if it is
    # not the one to lead), and hold the called suit
    void = {2: rng.sample([s for s in SUITS if s != suit], 2)} if table.players > 2 else {}
    deal = shaped(table, rng, {0: cards[:1], 1: cards[1:]}, void=void,
                  as_deck=rng.random() < 0.5)  # fmt: skip
    if deal is None:
        return None
    script: list[Event | None] = [play(0, cards[0]), play(1, cards[1])]
    script += [None] * (table.players - 2)
    return played_on(log_of(table, [deal]), rng, script, stop=table.players)


def void_after_call(log: Log, rng: random.Random) -> Log | None:
    """The second trick of a log that ends after a first trick with a call: its winner leads a
    suit that a later seat lacks while holding the called suit (now trump), and the log stops
    at that seat's turn — whose legal moves show the call's trump. None when the deal has no
    such lead."""
    now = spots(log)[-1]
    trump, n = now.trump, len(log["players"])
    if trump == NO_TRUMP or not now.tricks_done:
        return None
    leader = now.view.leader  # the winner of the trick just done
    for k in range(1, n):
        seat = (leader + k) % n
        hand = now.hands[seat]
        if not of_suit(hand, trump):
            continue
        for led in by_code(now.hands[leader]):
            if card_suit(led) != trump and not of_suit(hand, card_suit(led)):
                return played_on(log, rng, [play(leader, led), *[None] * (k - 1)],
                                 stop=len(log["deals"][-1]["events"]) + k)  # fmt: skip
    return None


def pisar_after_call(table: Table, rng: random.Random) -> tuple[Log, Card] | None:
    """Calls in the trick: the first trick calls trump (seat 0's ace takes the king and horse
    of its suit); in the second, seat 0 leads another suit, seat 1 (void) trumps with the
    seven, and seat 2 (void too) holds a higher trump and a lower one. The log stops before
    seat 2 plays; the lower trump, which would be a renuncio of pisar, comes with it."""
    trump, led = rng.sample(SUITS, 2)
    fixed = {
        0: [card(1, trump), card(rng.choice((2, 4, 5, 6, 10)), led)],
        1: [card(KING, trump), card(SEVEN, trump)],
        2: [card(HORSE, trump), card(3, trump), card(5, trump)],
    }
    if not all(c in pack(table) for cards in fixed.values() for c in cards):
        return None
    deal = shaped(table, rng, fixed, void={1: (led,), 2: (led,)}, as_deck=rng.random() < 0.5)
    if deal is None:
        return None
    script: list[Event | None] = [play(s, fixed[s][0]) for s in range(3)]
    script += [None] * (table.players - 3)
    script += [play(0, fixed[0][1]), play(1, fixed[1][1])]
    log = played_on(log_of(table, [deal]), rng, script, stop=table.players + 2)
    return None if log is None else (log, card(5, trump))


def strong_hand(table: Table, rng: random.Random) -> Log | None:
    """A deal played out where seat 0 holds the aces, the threes and three kings: enough, most
    times, to pass 100 points while the others still take a trick."""
    kings = rng.sample(SUITS, 3)
    fixed = [card(r, s) for r in (1, 3) for s in SUITS] + [card(KING, s) for s in kings]
    if not all(c in pack(table) for c in fixed):
        return None
    deal = shaped(table, rng, {0: fixed}, as_deck=rng.random() < 0.5)
    if deal is None:
        return None
    return played_on(log_of(table, [deal]), rng)


def ranks_of(table: Table) -> set[int]:
    """The ranks of the table's pack."""
    return {card_rank(c) for c in pack(table)}
