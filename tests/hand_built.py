"""Hand-built Tute positions for the rule tests: explicit hands holding every card of a pack.

The one module the tests build logs through: the events (:func:`play`, :func:`sing`,
:func:`tute`, :func:`exchange`), the log (:func:`log_of`, :func:`with_events`, :func:`finish`)
and whole deals (:func:`deal_2p`, :func:`exhausted_2p`, :func:`hands_2p`, :data:`TIE`).
``fill`` completes the hands a test lays out with the rest of the ruleset's pack, so each test
states only the cards that matter; expected values are derived from docs/rules.md by hand.
"""

from __future__ import annotations

import copy
from typing import Any

import arbiter
from arbiter.engine.setup import mano
from tests import reference
from tests.reference import RANKS, STRENGTH, SUITS, rank, suit

# RANKS, SUITS, rank and suit are the reference's, offered here with the builders.
__all__ = [
    "NAMES", "RANKS", "SUITS", "TIE", "beats", "deal_2p", "exchange", "exhausted_2p", "fill",
    "finish", "hands_2p", "illegal_code", "log_of", "moves", "pack", "play", "rank", "run",
    "sing", "suit", "tute", "with_events",
]  # fmt: skip

NAMES = ("ana", "bea", "carla", "dani", "eva")

# --- building logs -------------------------------------------------------------------------


def beats(card: str, winning: str, trump: str | None) -> bool:
    """Whether the card coded ``card`` takes the trick from ``winning`` (docs/rules.md §2)."""
    return reference.beats(reference.card(card), reference.card(winning), trump)


def pack(removed: int | None = None) -> list[str]:
    """The codes of the 40-card pack without rank ``removed``, by suit then rank."""
    return reference.codes(reference.pack(removed))


def play(seat: int, card: str) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "card": card}


def sing(seat: int, s: str) -> dict[str, Any]:
    return {"type": "sing", "seat": seat, "suit": s}


def tute(seat: int, of: str) -> dict[str, Any]:
    return {"type": "tute", "seat": seat, "of": of}


def exchange(seat: int) -> dict[str, Any]:
    return {"type": "exchange", "seat": seat}


def fill(
    n: int,
    size: int,
    fixed: dict[int, list[str]],
    *,
    removed: int | None = None,
    avoid: dict[int, str] | None = None,
    exclude: set[str] | None = None,
    extra: int = 0,
) -> tuple[list[list[str]], list[str]]:
    """Hands holding ``fixed``, completed with the rest of the pack: the cards the fewest seats
    may take first, then the weakest first, each to the lowest seat that still needs cards and
    does not avoid its suit; ``exclude`` is never dealt. Returns the hands and the cards left
    over (``extra`` of them)."""
    avoid = avoid or {}
    used = [c for cards in fixed.values() for c in cards]
    assert len(used) == len(set(used))
    hands = [list(fixed.get(s, [])) for s in range(n)]
    rest = [c for c in pack(removed) if c not in used and c not in (exclude or set())]
    assert set(used) <= set(pack(removed))

    def allowed(card: str) -> list[int]:
        return [s for s in range(n) if suit(card) not in avoid.get(s, "")]

    rest.sort(key=lambda c: (len(allowed(c)), STRENGTH[rank(c)], SUITS.index(suit(c))))
    left = []
    for card in rest:
        seats = [s for s in allowed(card) if len(hands[s]) < size]
        if seats:
            hands[seats[0]].append(card)
        else:
            left.append(card)
    assert all(len(h) == size for h in hands), hands
    assert len(left) == extra, left
    return hands, left


def log_of(ruleset: str, n: int, deals: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    """A log of ``ruleset`` for the first ``n`` of :data:`NAMES`, with ``options`` if any."""
    log: dict[str, Any] = {"ruleset": ruleset, "players": list(NAMES[:n]), "deals": deals}
    if options:
        log["options"] = options
    return log


def with_events(log: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """A copy of ``log`` with ``events`` added to its last deal."""
    other = copy.deepcopy(log)
    other["deals"][-1]["events"] = [*other["deals"][-1].get("events", []), *events]
    return other


def finish(log: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``log`` whose last deal is played out with the first correct play each time."""
    log = copy.deepcopy(log)
    for _ in range(60):
        out = run(log)
        if out["status"] != "in_progress":
            return log
        plays = [m for m in moves(out) if m["type"] == "play"]
        log["deals"][-1]["events"].append(plays[0])
    raise AssertionError("the deal did not finish")


def hands_2p(
    fixed: dict[int, list[str]],
    head: list[str],
    turned: str,
    *,
    avoid: dict[int, str] | None = None,
) -> dict[str, Any]:
    """A tute-2p deal (dealer 1, so seat 0 is mano) whose stock starts with ``head`` and ends
    with the turned card ``turned``; the rest of the stock is what the hands leave."""
    reserved = [*head, turned]
    hands, left = fill(2, 8, fixed, avoid=avoid, exclude=set(reserved), extra=24 - len(reserved))
    return {"dealer": 1, "hands": hands, "stock": [*head, *left, turned]}


# The tricks of a tute-2p deal (for :func:`deal_2p`, dealer 0 so seat 1 is mano, turned 2O) that
# ties 65 to 65: seat 1 wins tricks 0..10 (copas, espadas, 11B+10B: 65 points), seat 0 wins
# trick 11 (4B over 2B) and every trick of the strict phase (oros and 1B 3B 12B: 55 points)
# plus the last trick. Trump is oros (turned 2O, drawn by seat 1 after trick 11).
TIE = [
    *[(low, high) for high, low in zip(["1C", "3C", "12C", "11C", "10C"],
                                       ["2C", "4C", "5C", "6C", "7C"], strict=True)],
    *[(low, high) for high, low in zip(["1E", "3E", "12E", "11E", "10E"],
                                       ["2E", "4E", "5E", "6E", "7E"], strict=True)],
    ("10B", "11B"),
    ("4B", "2B"),
    ("1O", "7O"), ("3O", "6O"), ("10O", "5O"), ("12O", "4O"), ("11O", "2O"),
    ("1B", "7B"), ("3B", "6B"), ("12B", "5B"),
]  # fmt: skip


def deal_2p(
    tricks: list[tuple[str, str]],
    turned: str,
    *,
    dealer: int = 1,
    before: dict[int, list[dict[str, Any]]] | None = None,
    stop: int | None = None,
    exchanged: tuple[int, str] | None = None,
) -> dict[str, Any]:
    """A tute-2p deal from the cards (seat 0's, seat 1's) of each of the 20 tricks.

    Each seat is dealt the first 8 cards it plays and draws the others in the order it plays
    them, except the turned card ``turned`` (last of the stock), which the loser of trick 11
    draws. ``before[k]`` are declarations made before the lead of trick k; events stop before
    trick ``stop``. ``exchanged=(seat, took)`` describes the play after an exchange of the
    seven of trumps: the seat was dealt (or drew) the seven where ``took`` is listed and
    ``took`` was the turned card, while ``turned`` must be that seven.
    """
    assert len(tricks) == 20
    assert sorted(c for t in tricks for c in t) == sorted(pack())
    trump = suit(turned)
    before = before or {}
    leader = mano(dealer, 2)  # the engine's rule (tests/test_setup.py checks it by hand)
    winners, events = [], []
    for k, pair in enumerate(tricks):
        follower = 1 - leader
        winner = follower if beats(pair[follower], pair[leader], trump) else leader
        if stop is None or k < stop:
            events += before.get(k, [])
            events += [play(leader, pair[leader]), play(follower, pair[follower])]
        winners.append(winner)
        leader = winner
    events += before.get(stop if stop is not None else 20, [])
    loser11 = 1 - winners[11]
    seqs = [[t[s] for t in tricks] for s in (0, 1)]
    assert turned in seqs[loser11][12:], "the loser of trick 11 draws the turned card"
    order = [[c for c in seqs[s] if c != turned] for s in (0, 1)]
    hands = [order[s][:8] for s in (0, 1)]
    stock = []
    for k in range(12):
        for seat in (winners[k], 1 - winners[k]):
            card = turned if (k == 11 and seat == loser11) else order[seat][8 + k]
            assert seqs[seat].index(card) > k, (card, k)  # drawn before it is played
            stock.append(card)
    if exchanged is not None:
        seat, took = exchanged
        seven = f"7{trump}"
        assert turned == seven and suit(took) == trump
        if took in hands[seat]:
            hands[seat][hands[seat].index(took)] = seven
        else:
            stock[stock.index(took)] = seven
        stock[-1] = took
    return {"dealer": dealer, "hands": hands, "stock": stock, "events": events}


def exhausted_2p(
    final0: str, final1: str, last_pair: tuple[str, str] | None = None
) -> dict[str, Any]:
    """A tute-2p deal (dealer 1, ana leads) whose first 12 tricks all go to ana and empty the
    stock, after which ana holds ``final0`` and bea ``final1``; the last card of ``final1`` is
    the turned card (trump). ``last_pair`` is the 12th trick (lead, follow), if given."""
    f0, f1 = final0.split(), final1.split()
    assert len(f0) == len(f1) == 8
    trump = f1[-1][-1]
    pool = [c for c in pack() if c not in f0 and c not in f1]
    if last_pair:
        pool = [c for c in pool if c not in last_pair]

    def power(card: str) -> tuple[bool, int]:
        return (suit(card) == trump, STRENGTH[rank(card)])

    pool.sort(key=power, reverse=True)
    half = len(pool) // 2
    pairs = list(zip(pool[:half], pool[half:], strict=True))
    if last_pair:
        pairs.append(last_pair)
    assert len(pairs) == 12
    for lead, follow in pairs:  # ana must win every trick for the draws to be as planned
        assert not beats(follow, lead, trump), (lead, follow)
    leads, follows = [p[0] for p in pairs], [p[1] for p in pairs]
    stock: list[str] = []
    for t in range(12):  # the trick winner (ana) draws first
        stock.append(leads[8 + t] if t < 4 else f0[t - 4])
        stock.append(follows[8 + t] if t < 4 else f1[t - 4])
    events = [e for lead, follow in pairs for e in (play(0, lead), play(1, follow))]
    return {"dealer": 1, "hands": [leads[:8], follows[:8]], "stock": stock, "events": events}


def run(log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    return arbiter.replay(log).to_dict(lang)  # type: ignore[arg-type]


def illegal_code(log: dict[str, Any]) -> tuple[str, int | None]:
    out = run(log)
    assert out["status"] == "invalid", out["status"]
    return out["illegal"]["code"], out["illegal"]["event"]


def moves(out: dict[str, Any]) -> list[dict[str, Any]]:
    return out["next"]["legal_moves"]
