"""Searching random games (:mod:`arbiter.simulate`) for positions that exercise each rule.

A batch of games of one table is walked breadth first: every game's position before event 0,
then before event 1, and so on, so that the first positions found for a rule are the smallest.
At each position a few cheap facts (:mod:`.positions`, the engine's view: the hand, the suit
led, trump, the stock) say which rules it *might* exercise; only when the pool still wants one of
them is the referee asked — the legal moves, the verdict on each card they leave out (which
names the obligation), declarations tried on lead, plays out of turn or of a card not held.
The end of each game gives its outcome; the end of a trick with a call, the calls.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any, Final

from arbiter.conformance.kit.protocol import Ask, Family, Kind, events_in
from arbiter.engine.cards import Suit, card_codes, card_suit, parse_card
from arbiter.engine.moves import Move, TuteOf
from arbiter.engine.obligations import NO_TRUMP, Obligation
from arbiter.engine.rulesets import RULESETS, partner
from arbiter.engine.state import CHECK_ORDER, IllegalCode, declaration_cards
from arbiter.simulate import random_log
from devtools.vectors.positions import Spot, by_code, of_suit, spots
from devtools.vectors.probing import (
    Prober,
    Table,
    appended,
    body_of,
    moves_key,
    named,
    play,
    prefix,
    with_options,
)
from devtools.vectors.rules import (
    CALLS,
    DECLARATIONS,
    ILLEGAL,
    Call,
    call,
    declaration,
    illegal,
    obligation,
    outcome,
    rule,
)

LEGAL, VERDICT, REPLAY = Kind.LEGAL_MOVES, Kind.VERDICT, Kind.REPLAY
_CODES: Final = card_codes("spanish")
#: The codes a declaration by the seat about to lead can draw, by event type: the engine's
#: checking order (``CHECK_ORDER``) without those a seat on lead never meets. A hint for the
#: search: every verdict is the referee's.
_NEVER_ON_LEAD: Final = frozenset({IllegalCode.MATCH_OVER, IllegalCode.DEAL_OVER,
                                   IllegalCode.NOT_ON_LEAD})  # fmt: skip
MAY_DRAW: Final[dict[str, tuple[IllegalCode, ...]]] = {
    kind: tuple(c for c in codes if c not in _NEVER_ON_LEAD)
    for kind, codes in CHECK_ORDER.items()
    if kind != "play"
}


def _played(legal: list[dict[str, Any]]) -> int:
    """The cards the legal moves play, a mask."""
    return sum(1 << parse_card(m["card"]) for m in legal if m["type"] == "play")


def _union(masks: tuple[int, ...]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out


def declarations_of(seat: int) -> Iterator[dict[str, Any]]:
    """Every declaration a seat could try, as the engine writes them."""
    moves = [*(Move.sing(seat, s) for s in Suit), *(Move.tute(seat, of) for of in TuteOf)]
    for move in [*moves, Move.exchange(seat)]:
        yield move.to_json("spanish")


def void_with_trumps(spot: Spot) -> bool:
    """A follower void in the suit led, holding trumps, with a trump in the trick."""
    hand, trump = spot.hand, spot.trump
    in_trick = any(card_suit(c) == trump for _, c in spot.trick)
    return (
        bool(spot.trick)
        and spot.strict
        and not of_suit(hand, spot.led)
        and bool(of_suit(hand, trump))
        and in_trick
    )


def _partner_played(spot: Spot) -> bool:
    """A follower (four players) whose partner has played to the trick."""
    return any(seat == partner(spot.seat) for seat, _ in spot.trick)


def _seven_on_lead(spot: Spot) -> bool:
    """The seat about to lead holds the seven of trumps, with stock left."""
    return (
        spot.on_lead
        and spot.trump != NO_TRUMP
        and bool(spot.hand & declaration_cards(Move.exchange(spot.seat), spot.trump))
        and bool(spot.stock_left)
    )


#: The positions where an option that changes play can show its value.
OPTION_FOCUS: Final[dict[str, Callable[[Spot], bool]]] = {
    "trump_when_cannot_overtrump": void_with_trumps,
    "partner_relief": _partner_played,
    "exchange_requires_trick_won": _seven_on_lead,
}


def random_games(
    table: Table,
    rng: random.Random,
    count: int,
    renuncios: tuple[float, ...] = (0.0, 0.1, 0.25),
) -> list[dict[str, Any]]:
    """``count`` one-deal games played out by careless players (renuncios at one of these
    rates)."""
    games = []
    for _ in range(count):
        log = random_log(
            table.ruleset,
            rng,
            players=table.players,
            renuncio_rate=rng.choice(renuncios),
            declare_rate=rng.choice((0.3, 0.7, 1.0)),
            as_deck=rng.random() < 0.5,
        )
        games.append(named(log))
    return games


Walked = tuple[dict[str, Any], dict[str, Any], list[Spot]]


def walked(game: dict[str, Any]) -> Walked:
    """A game, its replay body and its spots."""
    body = body_of(game)
    return game, body, spots(game)


class GameSearch:
    """The breadth-first walk of a batch of games of one table."""

    def __init__(
        self,
        prober: Prober,
        focus: Callable[[Spot], bool] | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.p = prober
        #: set on every log asked about (games played without them)
        self.options = options
        #: only these positions are looked at (an option's, or pisar's)
        self.focus = focus
        self.table = prober.table
        self.ruleset = RULESETS[self.table.ruleset]
        applies = self.ruleset
        self.decl_rules = [declaration(d) for d, ok in DECLARATIONS.items() if ok(applies)]
        self.may_draw = {
            kind: [illegal(c) for c in codes if ILLEGAL[c](applies)]
            for kind, codes in MAY_DRAW.items()
        }
        self.decl_codes = sorted({r for rules in self.may_draw.values() for r in rules})
        self.call_rules = [call(c) for c, ok in CALLS.items() if ok(applies)]

    def run(self, games: list[dict[str, Any]]) -> None:
        self.walk([walked(game) for game in games])

    def walk(self, games: list[Walked]) -> None:
        """Every game's position ``k``, for ``k`` from 0 to the end of the longest."""
        longest = max(len(s) for _, _, s in games)
        for k in range(longest):
            for game, body, walk in games:
                if k < len(walk) - 1:
                    self.position(game, body, walk, k)
                elif k == len(walk) - 1 and self.focus is None:
                    self.position_after(game, body, walk, k)
                    self.deal_end(game, body)

    # --- one position -----------------------------------------------------------------------------

    def position(
        self, game: dict[str, Any], body: dict[str, Any], walk: list[Spot], k: int
    ) -> None:
        spot = walk[k]
        log = prefix(game, k)
        if self.options:
            log = with_options(log, self.options)
        if self.focus is not None:
            if self.focus(spot):
                (self.follower if spot.trick else self.leader)(log, spot, k)
            return
        if spot.trick:
            self.follower(log, spot, k)
        else:
            self.leader(log, spot, k)
        self.wrong_plays(log, spot, k)
        self.position_after(game, body, walk, k)

    def position_after(
        self, game: dict[str, Any], body: dict[str, Any], walk: list[Spot], k: int
    ) -> None:
        """What the event just before position ``k`` shows: a renuncio, a cante, a call."""
        if k == 0:
            return
        log = prefix(game, k)
        event = game["deals"][-1]["events"][k - 1]
        deal = body["deals"][-1]
        for v in deal["violations"]:
            if v["event"] == k - 1 and self.p.wants([obligation(v["obligation"])], [REPLAY], k):
                self.p.offer_answer(obligation(v["obligation"]), log, Ask.REPLAY)
        if event["type"] == "sing" and self.p.wants([declaration("sing")], [REPLAY], k):
            self.p.offer_answer(declaration("sing"), log, Ask.REPLAY)
        if event["type"] == "play" and walk[k].tricks_done > walk[k - 1].tricks_done:
            self.calls(game, deal, walk, k)

    def calls(self, game: dict[str, Any], deal: dict[str, Any], walk: list[Spot], k: int) -> None:
        trick = walk[k].tricks_done - 1
        called = [c for c in deal["cantes"] if c["trick"] == trick]
        if not called or not self.p.wants(self.call_rules, [REPLAY], k):
            return
        log = prefix(game, k)
        if len(called) > 1:
            self.p.offer_answer(call(Call.TWO_PAIRS), log, Ask.REPLAY)
        if any(c["points"] == 20 for c in called):
            self.p.offer_answer(call(Call.LATER), log, Ask.REPLAY)
        if called[0] is deal["cantes"][0]:
            # the first call makes trump from the next trick on: show that trick too
            after = min(k + self.table.players, len(walk) - 1)
            if self.p.wants([call(Call.FIRST)], [REPLAY], after):
                self.p.offer_answer(call(Call.FIRST), prefix(game, after), Ask.REPLAY)
            shown = [call(Call.FIRST)] + ([call(Call.TWO_PAIRS)] if len(called) > 1 else [])
            self.trump_shown(game, walk, k, shown)
        if any(c["points"] == 20 for c in called) and deal["finished"]:
            # a later call scores 20: the outcome of the deal counts it
            events = game["deals"][-1]["events"]
            end = len(events) - 1
            if self.p.wants([call(Call.LATER)], [VERDICT], end):
                self.p.offer_answer(call(Call.LATER), prefix(game, end), Ask.VERDICT, events[end])

    def trump_shown(self, game: dict[str, Any], walk: list[Spot], k: int, rules: list[str]) -> None:
        """After the first call, the legal moves of a follower void in the suit led who holds
        the called suit: the trump the call made is what they must play."""
        for at in range(k + 1, min(k + self.table.players, len(walk) - 1)):
            spot = walk[at]
            hand = spot.hand
            if spot.trick and not of_suit(hand, spot.led) and of_suit(hand, spot.trump):
                for name in rules:
                    if self.p.wants([name], [LEGAL], at):
                        self.p.offer_answer(name, prefix(game, at), Ask.LEGAL_MOVES)
                return

    def follower(self, log: dict[str, Any], spot: Spot, k: int) -> None:
        hand, trump, seat = spot.hand, spot.trump, spot.seat
        of_led = of_suit(hand, spot.led)
        others = hand & ~of_led
        trumps = of_suit(hand, trump)
        trump_in_trick = any(card_suit(c) == trump for _, c in spot.trick)
        maybe = set()
        if spot.strict:
            if of_led and others:
                maybe.add(obligation(Obligation.ASISTIR))
            if of_led.bit_count() >= 2:
                maybe.add(obligation(Obligation.MONTAR))
            if not of_led and trumps and trumps != hand:
                maybe.add(obligation(Obligation.FALLAR))
            if not of_led and trump_in_trick and trumps:
                maybe.add(obligation(Obligation.PISAR))
            if not of_led and not trumps:
                maybe.add(rule(Family.CONTRAFALLAR))
        elif of_led and others:
            maybe.add(rule(Family.FREE_PLAY))
        if spot.drawn[seat] & hand:
            maybe.add(rule(Family.DRAWS))
        if not self.p.wants(sorted(maybe), [LEGAL, VERDICT], k):
            return
        nxt = body_of(log)["next"]
        if nxt is None:  # with the options, an earlier event is illegal
            return
        legal = nxt["legal_moves"]
        if self.p.option is not None:
            self.option_follower(log, seat, legal)
            return
        plays = _played(legal)
        broken = []
        for card in by_code(hand & ~plays):
            verdict = self.p.answer(log, Ask.VERDICT, play(seat, _CODES[card]))
            if verdict["verdict"] == "renuncio":
                broken.append(verdict)
        # each rule the position shows, with the cards whose play shows it too
        shown: dict[str, int] = {}
        for verdict in broken:
            self.p.offer(obligation(verdict["obligation"]), log, verdict)
            shown[obligation(verdict["obligation"])] = 0
        if spot.strict and not of_led and not trumps and plays == hand:
            shown[rule(Family.CONTRAFALLAR)] = hand
        if not spot.strict and of_led and others and plays == hand:
            shown[rule(Family.FREE_PLAY)] = others
        if spot.drawn[seat] & plays:
            shown[rule(Family.DRAWS)] = spot.drawn[seat] & plays
        for name, cards in sorted(shown.items()):
            self.p.offer(name, log, {"legal_moves": legal})
            if cards:
                self.p.offer_answer(name, log, Ask.VERDICT, play(seat, _CODES[by_code(cards)[0]]))

    def option_follower(self, log: dict[str, Any], seat: int, legal: list[Any]) -> None:
        """An option's position: the legal moves, and a verdict on each card they gain or lose
        with another value of the option — when some other value changes them."""
        assert self.p.option is not None
        probe = self.p.option
        plays = _played(legal)
        for other in probe.others:
            changed = body_of(with_options(log, {probe.spec.name: other}))["next"]
            if changed is None:
                continue
            theirs = _played(changed["legal_moves"])
            if theirs != plays:
                self.p.offer(probe.rule, log, {"legal_moves": legal})
                for card in by_code(theirs ^ plays):
                    self.p.offer_answer(probe.rule, log, Ask.VERDICT, play(seat, _CODES[card]))
                return

    def leader(self, log: dict[str, Any], spot: Spot, k: int) -> None:
        rules = self.decl_rules + self.decl_codes
        if spot.over or not self.p.wants(rules, [LEGAL, VERDICT, REPLAY], k):
            return
        nxt = body_of(log)["next"]
        if nxt is None:
            return
        legal = nxt["legal_moves"]
        if self.p.option is not None:  # an option: the legal moves, and an exchange tried
            probe = self.p.option
            self.p.offer(probe.rule, log, {"legal_moves": legal})
            exchange = {"type": "exchange", "seat": spot.seat}
            self.p.offer_answer(probe.rule, log, Ask.VERDICT, exchange)
            return
        open_to = [m for m in legal if m["type"] != "play"]
        for kind in sorted({m["type"] for m in open_to}):
            self.p.offer(declaration(kind), log, {"legal_moves": legal})
        for move in open_to:
            self.p.offer_answer(declaration(move["type"]), log, Ask.VERDICT, move)
        if not self.p.wants(self.decl_codes, [VERDICT, REPLAY], k):
            return
        known = moves_key(open_to) or []
        for move in declarations_of(spot.seat):
            if moves_key([move])[0] in known:  # type: ignore[index]
                continue
            if self.p.wants(self.may_draw[move["type"]], [VERDICT, REPLAY], k):
                self.tried(log, move)

    def tried(self, log: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
        """An illegal move: its verdict, and the log with it appended; the verdict."""
        verdict = self.p.answer(log, Ask.VERDICT, move)
        if verdict["verdict"] != "illegal":
            return verdict
        code_rule = illegal(verdict["code"])
        self.p.offer(code_rule, log, verdict)
        longer = appended(log, move)
        if self.p.wants([code_rule], [REPLAY], len(longer["deals"][-1]["events"])):
            self.p.offer_answer(code_rule, longer, Ask.REPLAY)
        return verdict

    def wrong_plays(self, log: dict[str, Any], spot: Spot, k: int) -> None:
        """A play out of turn, a card the player does not hold, a declaration off lead."""
        if spot.over:
            return
        n = self.table.players
        other = (spot.seat + 1) % n
        if spot.hands[other] and self.p.wants(
            [illegal(IllegalCode.OUT_OF_TURN)], [VERDICT, REPLAY], k
        ):
            self.tried(log, play(other, _CODES[by_code(spot.hands[other])[0]]))
        rules = [illegal(IllegalCode.CARD_NOT_IN_HAND), rule(Family.DRAWS)]
        in_trick = sum(1 << c for _, c in spot.trick)
        elsewhere = (_union(spot.hands) & ~spot.hand) or in_trick
        if elsewhere and self.p.wants(rules, [VERDICT, REPLAY], k):
            theirs = spot.drawn[other] & spot.hands[other] or elsewhere
            move = play(spot.seat, _CODES[by_code(theirs)[0]])
            verdict = self.tried(log, move)
            if spot.drawn[other] & spot.hands[other] and self.p.wants(rules[1:], [VERDICT], k):
                self.p.offer(rule(Family.DRAWS), log, verdict)
        off_lead = illegal(IllegalCode.NOT_ON_LEAD)
        if self.p.wants([off_lead, illegal(IllegalCode.NOT_IN_RULESET)], [VERDICT, REPLAY], k):
            seat = spot.seat if spot.trick else other
            for move in declarations_of(seat):
                self.tried(log, move)

    # --- the end of a game ------------------------------------------------------------------------

    def deal_end(self, game: dict[str, Any], body: dict[str, Any]) -> None:
        """A finished game: its outcome, and an event after its end (while the match goes on)."""
        size = events_in(game)
        decided = body["deals"][-1]["outcome"]
        if decided is None:
            return
        reason = outcome(decided["reason"])
        if self.p.wants([reason], [REPLAY], size):
            self.p.offer_answer(reason, game, Ask.REPLAY)
        events = game["deals"][-1]["events"]
        if self.p.wants([reason], [VERDICT], size - 1):
            # the verdict on the deal's last event names the outcome: engines that judge moves
            # are asked the outcome too
            self.p.offer_answer(reason, prefix(game, len(events) - 1), Ask.VERDICT, events[-1])
        over = illegal(IllegalCode.DEAL_OVER)
        if not body["match"]["over"] and self.p.wants([over], [VERDICT, REPLAY], size):
            last = game["deals"][-1]["events"][-1]
            self.tried(game, play(last["seat"], last["card"]) if "card" in last else last)
