"""Property-based tests: random games for every ruleset, checked against the rules and the contract
(docs/rules.md, docs/api.md).

Games are generated step by step from hypothesis data: random rulesets, player counts, options,
dealing forms (``hands`` or ``deck``), 1-3 deals, renuncios (a player plays any card of their
hand), declarations, deals stopped midway, and sometimes one deliberately illegal event.

The oracles here are independent of the engine: the reference referee of
:mod:`tests.reference`, plain Python over ``(rank, suit)`` tuples (no bitmasks) that knows the
trick order, the obligations of §3, the declarations of §4 and the outcomes of §6-§7, written
from docs/rules.md and docs/api.md only. :class:`EngineView` reads an engine state into its terms.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import arbiter
from arbiter.engine import snapshot
from arbiter.engine.cards import cards_of, format_card, pack_mask, parse_card
from arbiter.engine.log import Header, first_dealer, parse_deal, parse_header
from arbiter.engine.match import MatchState, advance
from arbiter.engine.match import replay as engine_replay
from arbiter.engine.moves import PLAY, Move, Seat, TuteOf
from arbiter.engine.obligations import NO_TRUMP, broken_obligation, correct_plays
from arbiter.engine.records import Decisive, DecisiveKind
from arbiter.engine.rulesets import get_ruleset, resolve_options
from arbiter.engine.scoring import deal_outcome
from arbiter.engine.setup import DealSetup, next_dealer
from arbiter.engine.state import DealState, IllegalCode
from arbiter.report import Replay, Verdict
from tests import reference
from tests.hand_built import play
from tests.positions_support import read_deals, slots_of
from tests.reference import (
    DEALER_TRUMP,
    DECLARED,
    HAND_SIZE,
    SUITS,
    TABLES,
    Card,
    Position,
    winner_index,
)

#: Examples of the loaded profile (conftest.py); cheap tests run a multiple of it.
EXAMPLES = settings().max_examples

# --- the engine's state in the reference's terms -------------------------------------------------


def from_engine(c: int) -> Card:
    return reference.card(format_card(c))


def display_key(text: str) -> tuple[int, int]:
    rank, suit = reference.card(text)
    return SUITS.index(suit), rank


class EngineView(Position):
    """A position read from the engine's observable state (cards, trick, tricks, cantes)."""

    def __init__(self, state: DealState, name: str, opts: dict[str, Any]) -> None:
        self.name, self.n, self.opts = name, state.players, opts
        self.mano = (state.dealer + 1) % state.players
        self.hands = [{from_engine(c) for c in cards_of(h)} for h in state.hands]
        self.trick = [(s, from_engine(c)) for s, c in state.trick]
        self.tricks = [
            (t.leader, [(s, from_engine(c)) for s, c in t.plays], t.winner) for t in state.tricks
        ]
        self.cantes = [(c.seat, SUITS[c.suit], c.points, c.trick) for c in state.cantes]
        self.trump = None if state.trump == NO_TRUMP else SUITS[state.trump]
        self.stock_left = state.stock_left
        self.over = state.over


def engine_event_to_ref(event: Move) -> reference.RefEvent:
    return reference.event_of(event.to_json("spanish"))


def normalized(body: Any) -> Any:
    """A replay body without messages, with sets (correct cards, legal moves) in a fixed order."""
    if isinstance(body, dict):
        out = {k: normalized(v) for k, v in body.items() if k != "message"}
        if "correct" in out and isinstance(out["correct"], list):
            out["correct"] = sorted(out["correct"], key=display_key)
        if "legal_moves" in out:
            out["legal_moves"] = sorted(out["legal_moves"], key=json.dumps)
        return out
    if isinstance(body, list):
        return [normalized(v) for v in body]
    return body


# --- generating random games ---------------------------------------------------------------------

OPTION_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "match_target": st.sampled_from([3, 5, 7]),
    "tie_break": st.sampled_from(["last_trick", "none"]),
    "cantes_per_trick": st.integers(1, 4),
    "trump_when_cannot_overtrump": st.booleans(),
    "partner_relief": st.booleans(),
    "tute_requires_trick_won": st.booleans(),
    "exchange_requires_trick_won": st.booleans(),
    "renuncio_penalty": st.sampled_from(["lose_deal", "lose_match"]),
    "loser_target": st.integers(1, 4),
    "token_target": st.integers(1, 4),
    "call_ranks": st.one_of(
        st.sampled_from([[11, 12], [12, 11], [10, 11], [1, 3]]),
        st.lists(st.sampled_from(reference.RANKS), min_size=2, max_size=2, unique=True),
    ),
}


def option_overrides(name: str) -> st.SearchStrategy[dict[str, Any]]:
    names = [spec.name for spec in get_ruleset(name).option_specs]
    return st.fixed_dictionaries({}, optional={k: OPTION_VALUES[k] for k in names})


def random_deal(
    name: str, n: int, dealer: int, rng: random.Random, as_deck: bool, explicit_dealer: bool
) -> dict[str, Any]:
    codes = [reference.code(c) for c in reference.pack_of(name, n)]
    random.Random(rng.getrandbits(64)).shuffle(codes)  # one draw of hypothesis data
    if rng.random() < 0.1:  # input is case-insensitive
        codes = [c.lower() for c in codes]
    raw: dict[str, Any] = {"dealer": dealer} if explicit_dealer else {}
    if as_deck:
        raw["deck"] = codes
        return raw
    size = HAND_SIZE[name, n]
    raw["hands"] = [codes[i * size : (i + 1) * size] for i in range(n)]
    if name == "tute-2p":
        raw["stock"] = codes[n * size :]
    elif name in DEALER_TRUMP:
        raw["trump_card"] = rng.choice(raw["hands"][dealer])
    return raw


def choose_move(
    state: DealState, rng: random.Random, renuncio_rate: float, declare_rate: float
) -> Move:
    moves = state.legal_moves()
    declarations = [m for m in moves if m.kind != PLAY]
    if declarations and rng.random() < declare_rate:
        return rng.choice(declarations)
    if rng.random() < renuncio_rate:  # a careless player: any card, or a wrong one
        hand = state.hands[state.turn]
        wrong: dict[str, list[int]] = {}
        for card in cards_of(hand & ~state.correct_mask(state.turn)):
            renuncio, _ = state.judge_play(state.turn, card)
            assert renuncio is not None
            wrong.setdefault(str(renuncio.obligation), []).append(card)
        if wrong and rng.random() < 0.7:  # each kind of renuncio about as often
            return Move.play(state.turn, rng.choice(wrong[rng.choice(sorted(wrong))]))
        return Move.play(state.turn, rng.choice(cards_of(hand)))
    return rng.choice([m for m in moves if m.kind == PLAY])


def all_declarations(seat: Seat) -> list[Move]:
    """Every declaration ``seat`` could attempt: each sing, each tute, the exchange."""
    sings = [Move.sing(seat, s) for s in range(4)]
    return [*sings, *(Move.tute(seat, of) for of in TuteOf), Move.exchange(seat)]


def illegal_event(state: DealState, kind: str, rng: random.Random) -> Move:
    """An event that cannot be applied now (kind: out_of_turn, card_not_in_hand, declaration)."""
    n, turn = state.players, state.turn
    if state.over:  # anything after the end of the deal
        seat = rng.randrange(n)
        return rng.choice([Move.play(seat, rng.randrange(40)), Move.sing(seat, 0)])
    if kind == "out_of_turn":
        seat = (turn + rng.randrange(1, n)) % n
        hand = cards_of(state.hands[seat])
        return Move.play(seat, rng.choice(hand) if hand else rng.randrange(40))
    if kind == "card_not_in_hand":
        return Move.play(turn, rng.choice(cards_of((1 << 40) - 1 & ~state.hands[turn])))
    by_code: dict[str, list[Move]] = {}
    for seat in range(n):
        for declaration in all_declarations(seat):
            code = state.check(declaration)
            if code is not None:
                by_code.setdefault(code.value, []).append(declaration)
    return rng.choice(by_code[rng.choice(sorted(by_code))])


def build_log(
    name: str,
    n: int,
    options: dict[str, Any],
    deals: int,
    deck_rate: float,
    explicit_dealer: bool,
    renuncio_rate: float,
    declare_rate: float,
    finish_last: bool,
    bad: str | None,
    rng: random.Random,
) -> dict[str, Any]:
    ruleset = get_ruleset(name)
    opts = resolve_options(ruleset, options)
    players = [f"p{i}" for i in range(n)]
    log: dict[str, Any] = {"ruleset": name, "players": players, "deals": []}
    if options:
        log["options"] = options
    header = Header(ruleset, opts, "spanish", tuple(players))
    match = MatchState(header)
    dealer = n - 1
    for index in range(deals):
        last = index == deals - 1
        if explicit_dealer:
            dealer = rng.randrange(n)
        raw = random_deal(name, n, dealer, rng, rng.random() < deck_rate, explicit_dealer)
        events: list[dict[str, Any]] = []
        raw["events"] = events
        if match.standing.over:
            if bad is not None:  # a deal after the match is decided
                if rng.random() < 0.5:
                    events.append(play((dealer + 1) % n, "4O"))
                log["deals"].append(raw)
            return log
        log["deals"].append(raw)
        setup, _ = parse_deal(header, raw, dealer)
        state = DealState.start(ruleset, opts, n, setup)
        record = match.begin(state)
        # The moves of the last deal come straight from hypothesis data (so they shrink); the
        # earlier deals from a seed drawn from it (fewer draws: long games do not overrun).
        play_rng = rng if last else random.Random(rng.getrandbits(64))
        limit = None if not last or finish_last else rng.randrange(0, 50)
        inject = None
        if last and bad is not None and bad != "after_end":
            inject = rng.randrange(0, 50 if limit is None else limit + 1)
        while not state.over and (limit is None or len(events) < limit):
            if inject is not None and len(events) == inject:
                break
            move = choose_move(state, play_rng, renuncio_rate, declare_rate)
            state.apply(move, len(events))
            events.append(move.to_json("spanish"))
        if state.over:
            match.close(record)
        if last and bad is not None:
            events.append(illegal_event(state, bad, rng).to_json("spanish"))
        dealer = (dealer + 1) % n
    return log


@st.composite
def game_logs(draw: st.DrawFn, *, illegal: bool = True, max_deals: int = 3) -> dict[str, Any]:
    """A random log of a random ruleset (see the module docstring)."""
    name, n = draw(st.sampled_from(TABLES))
    bad = None
    if illegal:
        kinds = [None, None, "out_of_turn", "card_not_in_hand", "declaration", "after_end"]
        bad = draw(st.sampled_from(kinds))
    log = build_log(
        name,
        n,
        draw(option_overrides(name)),
        deals=draw(st.integers(1, max_deals)),
        deck_rate=draw(st.sampled_from([0.0, 0.5, 1.0])),
        explicit_dealer=draw(st.booleans()),
        renuncio_rate=draw(st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.2, 0.5])),
        declare_rate=draw(st.sampled_from([0.0, 0.3, 0.8])),
        finish_last=draw(st.booleans()),
        bad=bad,
        rng=draw(st.randoms(use_true_random=False)),
    )
    note(json.dumps(log))
    return log


# --- walking a log through the engine, deal by deal ----------------------------------------------


class Step(NamedTuple):
    deal: int
    index: int
    before: DealState
    event: Move
    after: DealState  # the live state: read it before asking for the next step
    code: IllegalCode | None


def walk(log: dict[str, Any]) -> Iterator[Step]:
    """Every event of the log applied to the engine's DealState, up to the first illegal one."""
    header, deals = read_deals(log)
    n = len(header.players)
    for di, (setup, events) in enumerate(deals):
        state = DealState.start(header.ruleset, header.options, n, setup)
        for j, event in enumerate(events):
            before = state.copy()
            code = state.apply(event, j)
            yield Step(di, j, before, event, state, code)
            if code is not None:
                return


def truncated(log: dict[str, Any], deal: int, events: int) -> dict[str, Any]:
    """The log up to deal ``deal`` (earlier deals complete), that deal cut to ``events``."""
    raw = log["deals"][deal]
    return {**log, "deals": [*log["deals"][:deal], {**raw, "events": raw["events"][:events]}]}


def mask_of(cards: list[int] | tuple[int, ...]) -> int:
    out = 0
    for card in cards:
        out |= 1 << card
    return out


# --- 1. every card accounted for ----------------------------------------------------------------


def check_cards(state: DealState, name: str) -> None:
    n = state.players
    pack = pack_mask(get_ruleset(name).removed_rank[n])
    assert pack == mask_of([parse_card(reference.code(c)) for c in reference.pack_of(name, n)])
    stock = state.stock[state.stock_pos :]
    assert len(set(stock)) == len(stock)
    table = [c for _, c in state.trick]
    won = [mask_of([c for t in state.tricks if t.winner == s for _, c in t.plays])
           for s in range(n)]  # fmt: skip
    parts = [*state.hands, mask_of(stock), mask_of(table), *won]
    union = 0
    for part in parts:
        assert union & part == 0, "a card is in two places"
        union |= part
    assert union == pack
    assert sum(p.bit_count() for p in parts) == len(reference.pack_of(name, n))
    # Seats that already played to the trick on the table hold one card fewer than the others.
    played = {s for s, _ in state.trick}
    sizes = {state.hands[s].bit_count() + (s in played) for s in range(n)}
    assert len(sizes) == 1


@given(game_logs())
def test_every_card_is_accounted_for(log: dict[str, Any]) -> None:
    """Hands + stock + table + won piles are the pack, pairwise disjoint, at every step."""
    name = log["ruleset"]
    for step in walk(log):
        if step.index == 0:
            check_cards(step.before, name)
        check_cards(step.after, name)


# --- 2. deal totals --------------------------------------------------------------------------


@given(game_logs())
def test_finished_deals_add_up(log: dict[str, Any]) -> None:
    """Card points sum to the pack (120; 76 without the aces), one last-trick 10, totals."""
    name, n = log["ruleset"], len(log["players"])
    expected = 76 if name == "tute-gana-pierde" and n == 3 else 120
    assert reference.pack_points(name, n) == expected
    for raw, deal in zip(log["deals"], arbiter.replay(log).to_dict()["deals"], strict=False):
        scores = deal["scores"]
        for s in scores:
            assert s["total"] == s["card_points"] + s["cantes"] + s["last_trick"]
            sung = sum(c["points"] for c in deal["cantes"] if c["seat"] == s["seat"])
            assert s["cantes"] == sung
        if "sides" in deal:
            for side in deal["sides"]:
                assert side["total"] == sum(scores[s]["total"] for s in side["seats"])
        if deal["outcome"] is None:
            assert deal["finished"] is False
            assert all(s["last_trick"] == 0 for s in scores)
            continue
        assert deal["finished"] is True
        if any(e["type"] == "tute" for e in raw["events"]):
            assert all(s["last_trick"] == 0 for s in scores)  # the deal ended at once
            continue
        assert sum(s["card_points"] for s in scores) == expected
        assert sorted(s["last_trick"] for s in scores) == [0] * (n - 1) + [10]
        assert len(deal["tricks"]) == len(reference.pack_of(name, n)) // n


# --- 3. the legal moves ---------------------------------------------------------------------------


def check_legal_moves(state: DealState, name: str, opts: dict[str, Any]) -> None:
    moves = state.legal_moves()
    if state.over:
        assert moves == []
        return
    view = EngineView(state, name, opts)
    seat = view.turn()
    assert state.turn == seat
    assert moves, "someone must act but there is no legal move"
    assert all(m.seat == seat for m in moves)
    plays = [from_engine(m.card) for m in moves if m.kind == PLAY]
    assert len(plays) == len(set(plays))
    assert set(plays) <= view.hands[seat]
    assert set(plays) == view.correct(seat)
    declarations = [engine_event_to_ref(m) for m in moves if m.kind != PLAY]
    assert sorted(declarations, key=str) == sorted(view.declarations(seat), key=str)
    # Every declaration anyone could attempt now: the engine's reason to refuse it is the
    # reference's, in the order of docs/api.md.
    for other in range(state.players):
        for event in all_declarations(other):
            code = state.check(event)
            assert (None if code is None else code.value) == view.illegal(
                *engine_event_to_ref(event)
            ), event


@given(game_logs())
def test_legal_moves_are_never_empty_and_come_from_the_hand(log: dict[str, Any]) -> None:
    """Someone to act always has a move; plays are the reference's correct set, from the hand;
    declarations and their refusals follow docs/rules.md §4 and §8 in the order of docs/api.md."""
    opts = reference.options(log)
    for step in walk(log):
        if step.index == 0:
            check_legal_moves(step.before, log["ruleset"], opts)
        check_legal_moves(step.after, log["ruleset"], opts)


def test_legal_moves_on_a_fresh_deal_of_each_table() -> None:
    for name, n in TABLES:
        rng = random.Random(f"{name}{n}")
        log = build_log(name, n, {}, 1, 0.0, False, 0.0, 0.0, False, None, rng)
        log["deals"][0]["events"] = []
        header, [(setup, _)] = read_deals(log)
        state = DealState.start(header.ruleset, header.options, n, setup)
        check_legal_moves(state, name, reference.options(log))
        assert len(state.legal_moves()) >= HAND_SIZE[name, n]


# --- 4. renuncios ----------------------------------------------------------------------------


@given(game_logs())
def test_renuncios_are_exactly_the_plays_outside_the_correct_set(log: dict[str, Any]) -> None:
    """A play outside the (reference) correct set is a renuncio named by the first obligation
    whose definition it breaks; a play inside it never is."""
    name, opts = log["ruleset"], reference.options(log)
    for step in walk(log):
        before, event = step.before, step.event
        view = EngineView(before, name, opts)
        if not before.over:
            correct = view.correct(view.turn())
            assert {from_engine(c) for c in cards_of(before.correct_mask(view.turn()))} == correct
        new = step.after.violations[len(before.violations) :]
        if event.kind != PLAY or step.code is not None:
            assert not new
            continue
        card = from_engine(event.card)
        correct = view.correct(event.seat)
        if card in correct:
            assert not new, f"{reference.code(card)} was correct but was reported as a renuncio"
            continue
        assert view.trick and view.strict
        expected = reference.broken_obligation(view.hands[event.seat], view.trick, view.trump, card)
        assert expected is not None, "a play outside the correct set must break an obligation"
        assert len(new) == 1
        renuncio = new[0]
        assert (renuncio.event, renuncio.seat) == (step.index, event.seat)
        assert renuncio.card == event.card
        assert renuncio.obligation.value == expected
        assert {from_engine(c) for c in cards_of(renuncio.correct)} == correct
        assert renuncio.trick == len(before.tricks)
        assert SUITS[renuncio.led_suit] == view.trick[0][1][1]
        winning = view.trick[winner_index(view.trick, view.trump)][1]
        assert from_engine(renuncio.winning) == winning
        first = step.after.decisive
        assert first is not None
        if before.decisive is None:  # the first renuncio decides the deal
            assert (first.kind, first.seat, first.event) == ("renuncio", event.seat, step.index)


_CARDS = reference.pack()


@st.composite
def trick_positions(draw: st.DrawFn) -> tuple[Any, ...]:
    """A follower's position: the trick so far, a hand, trump (or none), relief, the option."""
    cards = draw(st.permutations(_CARDS))
    table = draw(st.integers(1, 4))
    trick = [(i, c) for i, c in enumerate(cards[:table])]
    hand = set(cards[table : table + draw(st.integers(1, 12))])
    trump = draw(st.sampled_from([None, *SUITS]))
    return trick, hand, trump, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=3 * EXAMPLES)
@given(trick_positions())
def test_obligations_agree_with_the_reference_on_any_position(position: tuple[Any, ...]) -> None:
    trick, hand, trump, relieved, must_trump = position
    led = SUITS.index(trick[0][1][1])
    winning = parse_card(reference.code(trick[winner_index(trick, trump)][1]))
    trump_int = NO_TRUMP if trump is None else SUITS.index(trump)
    hand_mask = mask_of([parse_card(reference.code(c)) for c in hand])
    got = correct_plays(hand_mask, led, winning, trump_int, relieved, must_trump)
    expected = reference.correct_plays(hand, trick, trump, relieved, must_trump)
    assert {from_engine(c) for c in cards_of(got)} == expected
    assert expected and expected <= hand
    for card in hand - expected:
        obligation = broken_obligation(parse_card(reference.code(card)), hand_mask, led, trump_int)
        assert obligation.value == reference.broken_obligation(hand, trick, trump, card)


FOLLOWING_TABLES = [t for t in TABLES if t[0] != "tute-2p"]


@st.composite
def follower_positions(draw: st.DrawFn) -> tuple[Any, ...]:
    """A first trick in progress, crafted so that voids, trumps in the trick and low trumps
    in the follower's hand (where fallar, pisar and the options bite) are common. Returns the
    log, the trick on the table, the follower's seat and hand, and the trump suit."""
    name, n = draw(st.sampled_from(FOLLOWING_TABLES))
    size = HAND_SIZE[name, n]
    pool = list(draw(st.permutations(reference.pack_of(name, n))))
    trump = draw(st.sampled_from(SUITS)) if name in DEALER_TRUMP else None
    seat = draw(st.integers(1, n - 1))  # the mano (seat 0) led; seat `seat` is to play
    table = [pool.pop(0)]
    for _ in range(seat - 1):
        trumps = [c for c in pool if c[1] == trump]
        card = draw(st.sampled_from(trumps if trumps and draw(st.booleans()) else pool))
        pool.remove(card)
        table.append(card)
    trick = list(enumerate(table))
    wanted = pool
    if draw(st.booleans()):  # void in the suit led
        wanted = [c for c in wanted if c[1] != table[0][1]]
    if trump is not None and draw(st.booleans()):  # only trumps lower than the trick's
        top = max((reference.STRENGTH[c[0]] for c in table if c[1] == trump), default=-1)
        wanted = [c for c in wanted if c[1] != trump or reference.STRENGTH[c[0]] < top]
    hand = (wanted if len(wanted) >= size else pool)[:size]
    rest = [c for c in pool if c not in hand]
    hands: list[list[Card]] = []
    for s in range(n):
        if s == seat:
            hands.append(hand)
        else:
            take = size - 1 if s < seat else size
            hands.append(([table[s]] if s < seat else []) + rest[:take])
            rest = rest[take:]
    options = {"trump_when_cannot_overtrump": draw(st.booleans())}
    if name == "tute-4p":
        options["partner_relief"] = draw(st.booleans())
    deal: dict[str, Any] = {
        "dealer": n - 1,
        "hands": [[reference.code(c) for c in h] for h in hands],
        "events": [play(s, reference.code(c)) for s, c in trick],
    }
    if trump is not None:
        trump_cards = [c for c in hands[n - 1] if c[1] == trump]
        assume(trump_cards)
        deal["trump_card"] = reference.code(draw(st.sampled_from(trump_cards)))
    players = [f"p{i}" for i in range(n)]
    log = {"ruleset": name, "players": players, "options": options, "deals": [deal]}
    return log, trick, seat, set(hand), trump


@settings(max_examples=2 * EXAMPLES)
@given(follower_positions())
def test_every_card_a_follower_holds_is_judged_by_the_obligations(position: Any) -> None:
    log, trick, seat, hand, trump = position
    opts = reference.options(log)
    relieved = (
        log["ruleset"] == "tute-4p"
        and opts["partner_relief"]
        and trick[winner_index(trick, trump)][0] == (seat + 2) % 4
    )
    must_trump = opts["trump_when_cannot_overtrump"]
    correct = reference.correct_plays(hand, trick, trump, relieved, must_trump)
    body = arbiter.replay(log).to_dict()
    assert body["status"] == "in_progress" and body["next"]["seat"] == seat
    assert body["deals"][0]["trump"] == trump
    plays = {reference.card(m["card"]) for m in body["next"]["legal_moves"] if m["type"] == "play"}
    assert plays == correct
    for card in sorted(hand):
        move = play(seat, reference.code(card))
        verdict = arbiter.validate(log, move).to_dict()
        deal = {**log["deals"][0], "events": [*log["deals"][0]["events"], move]}
        violations = arbiter.replay({**log, "deals": [deal]}).to_dict()["deals"][0]["violations"]
        new = [v for v in violations if v["event"] == len(trick)]
        if card in correct:
            assert verdict["verdict"] == "ok" and not new
            continue
        expected = reference.broken_obligation(hand, trick, trump, card)
        assert expected is not None
        assert (verdict["verdict"], verdict["obligation"]) == ("renuncio", expected)
        assert {reference.card(c) for c in verdict["correct"]} == correct
        assert [(v["obligation"], v["card"]) for v in new] == [(expected, reference.code(card))]
        assert {reference.card(c) for c in new[0]["correct"]} == correct


# --- 5. replaying a log == validating it move by move ---------------------------------------------


def expected_verdicts(log: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[int, int, Any]]]:
    """The replay body and, per event the replay reached, the verdict it implies."""
    body = arbiter.replay(log).to_dict()
    illegal = body["illegal"]
    renuncios = {
        (di, v["event"]): v for di, deal in enumerate(body["deals"]) for v in deal["violations"]
    }
    out = []
    for di, raw in enumerate(log["deals"]):
        for j in range(len(raw["events"])):
            if illegal is not None and (illegal["deal"], illegal["event"]) == (di, j):
                out.append((di, j, ("illegal", illegal["code"])))
                return body, out
            v = renuncios.get((di, j))
            out.append((di, j, ("ok", None) if v is None else ("renuncio", v)))
    return body, out


@given(game_logs())
def test_validating_each_prefix_agrees_with_the_replay(log: dict[str, Any]) -> None:
    """validate(log cut before event e, e) says what the replay of the whole log did at e."""
    body, verdicts = expected_verdicts(log)
    for di, j, (verdict, detail) in verdicts:
        move = log["deals"][di]["events"][j]
        prefix = truncated(log, di, j)
        if body["illegal"] is not None and body["illegal"]["deal"] == di == len(body["deals"]):
            prefix["deals"].pop()  # a deal after the match was decided: judge on the match
        got = arbiter.validate(prefix, move).to_dict()
        assert got["verdict"] == verdict, (di, j, move)
        assert got["legal"] is (verdict == "ok")
        if verdict == "illegal":
            assert (got["code"], got["obligation"]) == (detail, None)
        elif verdict == "renuncio":
            assert got["obligation"] == detail["obligation"]
            assert sorted(got["correct"]) == sorted(detail["correct"])
            assert got["code"] is None
        else:
            assert got["code"] is None and got["obligation"] is None


@given(game_logs())
def test_validating_move_by_move_on_a_match_state_reaches_the_replay(log: dict[str, Any]) -> None:
    """Judging each move on the position and playing it, chained over a log, ends in the
    replay."""
    body, verdicts = expected_verdicts(log)
    header = parse_header(log)
    match = MatchState(header)
    dealer = first_dealer(header)  # the default dealer of the next deal
    stopped_at = None
    for di, raw in enumerate(log["deals"]):
        started = advance(match.copy(), truncated(log, di, 0)["deals"], di, 0, dealer)
        if started.illegal is not None:  # a deal after the match was decided
            stopped_at = (di, None, started.illegal.code.value)
            break
        match = started
        dealer = next_dealer(match.deals[-1].dealer, len(header.players))
        for j, move in enumerate(raw["events"]):
            verdict = validate_move(match, move)
            expected, detail = verdicts.pop(0)[2]
            assert verdict.judgement.verdict == expected
            if expected == "illegal":
                assert verdict.judgement.code is not None
                assert verdict.judgement.code.value == detail
                stopped_at = (di, j, detail)
                break
            if expected == "renuncio":
                assert verdict.judgement.obligation is not None
                assert verdict.judgement.obligation.value == detail["obligation"]
            match = match.copy()
            match.play(verdict.judgement.move)
        if stopped_at is not None:
            break
    illegal = body["illegal"]
    if illegal is None:
        assert stopped_at is None
        assert Replay(match).to_dict() == body
        return
    assert stopped_at is not None and stopped_at[2] == illegal["code"]
    di, j = illegal["deal"], illegal["event"]
    valid_part = truncated(log, di, j or 0)
    if di == len(body["deals"]):
        valid_part["deals"].pop()
    assert Replay(match).to_dict() == arbiter.replay(valid_part).to_dict()


# --- 6. snapshots ----------------------------------------------------------------------------


def validate_move(match: MatchState, move: dict[str, Any]) -> Verdict:
    """The verdict on ``move`` at the end of ``match`` (as the service gives it)."""
    position = match.position()
    header = position.header
    return Verdict(
        position, position.judge(Move.from_json(move, len(header.players), header.notation))
    )


def match_fields(match: MatchState) -> list[Any]:
    """Everything a match state holds, as plain values (every slot of every deal)."""
    standing = match.standing
    out: list[Any] = [match.header, match.illegal]
    out += [getattr(standing, name) for name in slots_of(type(standing))]
    for record in match.deals:
        out.append(record.outcome)
        out += [(name, getattr(record.state, name)) for name in slots_of(DealState)]
    return out


def prefixes(log: dict[str, Any]) -> list[tuple[int, int]]:
    return [(di, j) for di, raw in enumerate(log["deals"]) for j in range(len(raw["events"]) + 1)]


@given(game_logs(), st.data())
def test_snapshots_round_trip_and_resume(log: dict[str, Any], data: st.DataObject) -> None:
    """encode/decode is exact, and a replay resumed from a snapshot equals one from the start."""
    full = Replay(engine_replay(log)).to_dict()
    # Random prefixes, and those just after a declaration (the state a cante leaves behind).
    chosen = data.draw(st.lists(st.sampled_from(prefixes(log)), min_size=1, max_size=4))
    chosen += [
        (di, j + 1)
        for di, raw in enumerate(log["deals"])
        for j, event in enumerate(raw["events"])
        if event["type"] != "play"
    ][:3]
    for di, j in chosen:
        state = engine_replay(truncated(log, di, j))
        if state.illegal is not None:
            continue
        blob = snapshot.encode(state)
        assert blob.startswith(snapshot.MAGIC + bytes([snapshot.SNAPSHOT_VERSION]))
        decoded = snapshot.decode(blob)
        assert match_fields(decoded) == match_fields(state)
        assert snapshot.encode(decoded) == blob
        assert Replay(decoded).to_dict() == Replay(state).to_dict()
        following = log["deals"][di]["events"][j : j + 1]
        if following and state.illegal is None:  # judging the next move from either state
            on_original = validate_move(state, following[0]).to_dict()
            assert validate_move(snapshot.decode(blob), following[0]).to_dict() == on_original
        restored = snapshot.decode(blob)
        deals, events = restored.progress  # the rest of the log from there, as the service
        resumed = advance(restored, log["deals"], deals - 1, events, restored.deals[-1].dealer)
        assert Replay(resumed).to_dict() == full
        if resumed.illegal is None:  # finished deals kept packed re-encode as fresh ones do
            assert snapshot.encode(resumed) == snapshot.encode(engine_replay(log))


def corruptions() -> st.SearchStrategy[tuple[str, Any]]:
    return st.one_of(
        st.tuples(st.just("flip"), st.integers(0, 10**6), st.integers(1, 255)),
        st.tuples(st.just("truncate"), st.integers(0, 10**6)),
        st.tuples(st.just("magic"), st.binary(min_size=4, max_size=4)),
        st.tuples(st.just("version"), st.integers(0, 255)),
        st.tuples(st.just("append"), st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("body"), st.binary(max_size=64)),
        st.tuples(st.just("garbage"), st.binary(max_size=64)),
    )


@given(game_logs(illegal=False, max_deals=2), corruptions())
def test_corrupt_snapshots_raise_snapshot_error(
    log: dict[str, Any], corruption: tuple[Any, ...]
) -> None:
    blob = snapshot.encode(engine_replay(log))
    header = snapshot.MAGIC + bytes([snapshot.SNAPSHOT_VERSION])
    kind, *args = corruption
    must_fail = True
    if kind == "flip":
        pos = args[0] % len(blob)
        bad = blob[:pos] + bytes([blob[pos] ^ args[1]]) + blob[pos + 1 :]
        must_fail = pos < len(header)  # a flipped value in the body may still decode
    elif kind == "truncate":
        bad = blob[: args[0] % len(blob)]
    elif kind == "magic":
        if args[0] == snapshot.MAGIC:
            return
        bad = args[0] + blob[4:]
    elif kind == "version":
        if args[0] == snapshot.SNAPSHOT_VERSION:
            return
        bad = snapshot.MAGIC + bytes([args[0]]) + blob[5:]
    elif kind == "append":
        bad = blob + args[0]
    elif kind == "body":
        bad = header + args[0]
        must_fail = False
    else:
        bad = args[0]
        must_fail = not bad.startswith(header)
    try:
        decoded = snapshot.decode(bad)
    except snapshot.SnapshotError:
        return
    assert not must_fail, f"{kind}: decode accepted {bad[:16]!r}..."
    assert isinstance(decoded, MatchState)


# --- 7. scores and tricks --------------------------------------------------------------------


@given(game_logs())
def test_scores_follow_from_the_tricks(log: dict[str, Any]) -> None:
    """Trick winners, points and calls recomputed from the plays; scores are their sums."""
    name, n, opts = log["ruleset"], len(log["players"]), reference.options(log)
    for deal in arbiter.replay(log).to_dict()["deals"]:
        done = [t for t in deal["tricks"] if t["winner"] is not None]
        # The trump of each trick, recomputed: fixed, or set by the first call (from the next
        # trick on) where the pair of call ranks falls in one trick.
        trump = deal["trump"] if name in DECLARED else None
        points = [0] * n
        won = [0] * n
        calls = []
        leader = deal["mano"]
        for k, trick in enumerate(done):
            plays = [(p["seat"], reference.card(p["card"])) for p in trick["plays"]]
            assert [s for s, _ in plays] == [(leader + i) % n for i in range(n)]
            winner = plays[winner_index(plays, trump)][0]
            value = reference.trick_points(plays)
            assert (trick["leader"], trick["winner"], trick["points"]) == (leader, winner, value)
            points[winner] += value
            won[winner] += 1
            leader = winner
            if name not in DECLARED:
                for suit in reference.calls(plays, opts["call_ranks"]):
                    if trump is None:
                        trump = suit
                        calls.append({"seat": winner, "suit": suit, "points": 40, "trick": k})
                    else:
                        calls.append({"seat": winner, "suit": suit, "points": 20, "trick": k})
        assert [s["card_points"] for s in deal["scores"]] == points
        assert [s["tricks"] for s in deal["scores"]] == won
        if name not in DECLARED:
            assert deal["cantes"] == calls
            assert deal["trump"] == trump


@settings(max_examples=3 * EXAMPLES)
@given(st.sampled_from(TABLES), st.data())
def test_deal_outcomes_agree_with_the_reference(
    table: tuple[str, int], data: st.DataObject
) -> None:
    """Outcomes of finished deals with scores drawn so that ties, over-100 and no-trick seats
    are common (they are rare in random play)."""
    name, n = table
    overrides = data.draw(option_overrides(name))
    ruleset = get_ruleset(name)
    state = DealState.start(
        ruleset, resolve_options(ruleset, overrides), n, DealSetup(0, (0,) * n, (), None)
    )
    kinds = ["renuncio", "tute"] if name in DECLARED else ["renuncio"]
    decisive = None
    if data.draw(st.integers(0, 2)) == 0:
        decisive = data.draw(st.tuples(st.sampled_from(kinds), st.integers(0, n - 1)))
    complete = decisive is None or decisive[0] != "tute" or data.draw(st.booleans())
    values = st.sampled_from([0, 0, 10, 20, 25, 30, 40, 60, 95, 101, 120])
    card_points = data.draw(st.lists(values, min_size=n, max_size=n))
    cantes = data.draw(st.lists(st.sampled_from([0, 0, 20, 40, 60]), min_size=n, max_size=n))
    tricks_won = data.draw(st.lists(st.sampled_from([1, 1, 1, 2, 0]), min_size=n, max_size=n))
    last = data.draw(st.integers(0, n - 1))
    played = state.total_tricks if complete else data.draw(st.integers(0, state.total_tricks - 1))
    state.card_points, state.cante_points, state.tricks_won = card_points, cantes, tricks_won
    state.trick_no, state.last_winner = played, last
    state.over = True
    if decisive is not None:
        state.decisive = Decisive(DecisiveKind(decisive[0]), decisive[1], 0)
    last_trick = last if complete else None
    totals = [card_points[s] + cantes[s] + (10 if s == last_trick else 0) for s in range(n)]
    assert state.totals() == totals
    expected = reference.outcome(
        name, n, reference.options({"options": overrides}), totals, tricks_won, last_trick, decisive
    )
    got = deal_outcome(state)
    assert {"winners": list(got.winners), "losers": list(got.losers), "reason": got.reason} == (
        expected
    )


# --- 8. the whole replay against the reference model ---------------------------------------------


@given(game_logs())
def test_replay_matches_the_reference_model(log: dict[str, Any]) -> None:
    """The whole replay body (messages aside) equals the reference model's."""
    expected = reference.replay(log)
    got = arbiter.replay(log).to_dict()
    assert normalized(got) == normalized(expected)


@given(game_logs())
def test_engine_positions_match_the_reference_model(log: dict[str, Any]) -> None:
    """Step by step, hands, turn, trick, trump and stock agree with the reference deal."""
    name, opts = log["ruleset"], reference.options(log)
    deals = [reference.deal_of(log, d) for d in range(len(log["deals"]))]
    for step in walk(log):
        model = deals[step.deal]
        event = engine_event_to_ref(step.event)
        code = model.illegal(*event)
        assert (step.code.value if step.code else None) == code
        if code is not None:
            break
        model.apply(*event, step.index)
        view = EngineView(step.after, name, opts)
        assert view.hands == model.hands
        assert view.trick == model.trick
        assert view.trump == model.trump
        assert view.stock_left == model.stock_left
        assert step.after.stock[step.after.stock_pos :] == [
            parse_card(reference.code(c)) for c in model.stock
        ]
        assert view.over == model.over
        if not model.over:
            assert step.after.turn == model.turn()


# --- 9. French notation is a relabelling ------------------------------------------------------

CARD_KEYS, SUIT_KEYS = ("card", "gave", "took"), ("suit", "trump")


def relabel(value: Any, card: Any, suit: Any) -> Any:
    """``value`` with every card and suit code (by the keys of docs/api.md) mapped."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in CARD_KEYS and isinstance(item, str):
                out[key] = card(item)
            elif key in SUIT_KEYS and isinstance(item, str):
                out[key] = suit(item)
            elif key in ("correct", "deck", "stock") and isinstance(item, list):
                out[key] = [card(c) for c in item]
            elif key == "trump_card":
                out[key] = card(item)
            elif key == "hands":
                out[key] = [[card(c) for c in hand] for hand in item]
            else:
                out[key] = relabel(item, card, suit)
        return out
    if isinstance(value, list):
        return [relabel(v, card, suit) for v in value]
    return value


@given(game_logs(), st.sampled_from(["letters", "symbols", "lower"]))
def test_french_notation_is_a_relabelling(log: dict[str, Any], style: str) -> None:
    """docs/rules.md §1: a French log is the same game; its answers use French codes."""

    def to_french(text: str) -> str:
        rank, suit = reference.card(text)
        if style == "symbols":
            return reference.FRENCH_RANKS[rank] + reference.FRENCH_SYMBOLS[suit]
        out = reference.code((rank, suit), "french")
        return out.lower() if style == "lower" else out

    def french_suit(letter: str) -> str:
        return reference.FRENCH_SUITS[letter.upper()]

    def from_french(text: str) -> str:
        return reference.code(reference.card(text, "french"))

    def suit_from_french(letter: str) -> str:
        return reference.suit_letter(letter, "french")

    french = relabel(log, to_french, french_suit)
    french["notation"] = "french"
    got = relabel(arbiter.replay(french).to_dict(), from_french, suit_from_french)
    assert normalized(got) == normalized(arbiter.replay(log).to_dict())


# --- regressions -------------------------------------------------------------------------------


def test_reference_model_on_a_known_trick() -> None:
    """A sanity check of the oracle itself: montar against the card currently winning."""
    trick = [(0, (4, "O")), (1, (10, "O"))]
    hand = {(5, "O"), (12, "O"), (1, "E")}
    assert reference.correct_plays(hand, trick, "E", False, True) == {(12, "O")}
    assert reference.broken_obligation(hand, trick, "E", (5, "O")) == "montar"
    assert reference.broken_obligation(hand, trick, "E", (1, "E")) == "asistir"
    trick = [(0, (4, "O")), (1, (3, "E"))]
    assert reference.correct_plays(hand, trick, "E", False, True) == {(5, "O"), (12, "O")}
    hand = {(5, "C"), (12, "E"), (1, "E")}
    assert reference.correct_plays(hand, trick, "E", False, True) == {(1, "E")}
    assert reference.broken_obligation(hand, trick, "E", (12, "E")) == "pisar"
    assert reference.broken_obligation(hand, trick, "E", (5, "C")) == "fallar"


@pytest.mark.parametrize("name,n", TABLES)
def test_a_whole_random_match_replays_cleanly(name: str, n: int) -> None:
    log = build_log(name, n, {}, 3, 0.5, True, 0.0, 0.5, True, None, random.Random(n))
    body = arbiter.replay(log).to_dict()
    assert body["status"] == "complete" and body["illegal"] is None
    assert normalized(body) == normalized(reference.replay(log))


def test_two_calls_in_one_trick_follow_the_second_card_of_each_pair() -> None:
    """docs/rules.md §4: two pairs in one trick are two calls, in the order in which the second card
    of each pair was played; the trick itself is decided without the new trump."""
    first = ["12O", "12C", "11C", "11O"]  # copas completes first (3rd card), then oros (4th)
    others = [reference.code(c) for c in reference.pack_of("tute-gana-pierde", 4) if c[1] != "O"]
    others = [c for c in others if c not in first]
    hands = [
        ["12O", "1O", "3O", "2O", "4O", *others[0:5]],
        ["12C", *others[5:14]],  # no oros: free to play the king of copas
        ["11C", *others[14:23]],
        ["11O", "5O", "6O", "7O", "10O", *others[23:28]],  # no oros above the king
    ]
    events = [play(s, c) for s, c in enumerate(first)]
    log = {
        "ruleset": "tute-gana-pierde",
        "players": ["a", "b", "c", "d"],
        "deals": [{"dealer": 3, "hands": hands, "events": events}],
    }
    deal = arbiter.replay(log).to_dict()["deals"][0]
    assert deal["tricks"][0]["winner"] == 0  # 12O wins the oros trick; copas is not trump yet
    assert deal["cantes"] == [
        {"seat": 0, "suit": "C", "points": 40, "trick": 0},
        {"seat": 0, "suit": "O", "points": 20, "trick": 0},
    ]
    assert deal["trump"] == "C"
    assert deal["violations"] == []


def test_a_snapshot_with_an_impossible_hand_is_refused() -> None:
    log = {"ruleset": "tute-2p", "players": ["a", "b"], "deals": [{"deck": [
        reference.code(c) for c in reference.pack_of("tute-2p", 2)], "events": []}]}  # fmt: skip
    state = engine_replay(log)
    state.deals[0].state.hands[0] = -state.deals[0].state.hands[0]  # an altered body
    altered = snapshot.encode(state)
    with pytest.raises(snapshot.SnapshotError):
        snapshot.decode(altered)  # never use the result: cards_of(-n) does not terminate
