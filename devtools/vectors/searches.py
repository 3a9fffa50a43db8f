"""Every search the kit makes for one table, and which search exercises each option.

:func:`search_table` runs them all against one pool: random games walked position by position
(:mod:`.game_search`), many more games looked at only where they end (outcomes are full deals,
and ties are rare), the hand-built positions (:mod:`.hand_built`), whole matches
(:mod:`.matches`) and refused logs (:mod:`.setup_faults`); then, for every value of every
option of the ruleset, the search that can show that value (:data:`OPTION_FINDERS`). Every
random choice comes from a generator seeded by the kit's seed, the table and the purpose, so one
search never changes another's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from arbiter.conformance.kit.dealing import option_values
from arbiter.conformance.kit.protocol import EXPECT_KINDS, Ask, Family, Kind, family_of, kind_of
from arbiter.conformance.kit.referee_answers import referee_answer
from arbiter.engine.cards import cards_of
from arbiter.engine.log import MAX_DEALS
from arbiter.engine.moves import Move, TuteOf
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import RULESETS, resolve_options
from arbiter.engine.scoring import Reason
from arbiter.engine.state import IllegalCode
from devtools.vectors import french_logs, hand_built
from devtools.vectors.game_search import (
    OPTION_FOCUS,
    GameSearch,
    Walked,
    random_games,
    void_with_trumps,
    walked,
)
from devtools.vectors.matches import DealBank, matches_to, target_option
from devtools.vectors.positions import Spot, spots
from devtools.vectors.probing import (
    OptionProbe,
    Prober,
    Table,
    appended,
    body_of,
    play,
    prefix,
    with_options,
)
from devtools.vectors.rules import (
    SETUP,
    Call,
    call,
    declaration,
    exercised,
    illegal,
    obligation,
    outcome,
    rule,
    rules_for,
    setup,
    situation,
)
from devtools.vectors.selection import Pool
from devtools.vectors.setup_faults import BREAKERS
from devtools.vectors.situations import ARISES, HOLDS, NEEDS, Situation, move_of

#: How many games or built positions each search looks at, per table (the search is bounded by
#: these, never by time, so that it is the same on every machine).
WALKED_GAMES: Final = 60
ENDED_GAMES: Final = 300
MOST_ENDED: Final = 1500
#: More events than any one deal holds.
MOST_EVENTS: Final = 100
OPTION_GAMES: Final = 100
BUILT: Final = 12
BANKED_GAMES: Final = 40
#: A call of a pair of ranks in each suit (there are 45 pairs: four vectors are enough).
PAIR_CALLS: Final = 4


@dataclass
class Context:
    """What the searches of one table share: the seed and the bank of deals for matches."""

    seed: int
    table: Table
    _bank: DealBank | None = field(default=None, repr=False)
    _ended: list[Walked] | None = field(default=None, repr=False)
    _played: list[Walked] | None = field(default=None, repr=False)

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"{self.seed}/{self.table.ruleset}/{self.table.players}/{purpose}")

    @property
    def ended(self) -> list[Walked]:
        """Games played to their end with few renuncios, without options (the options that
        decide outcomes and matches do not change what is played)."""
        if self._ended is None:
            self._ended = []
            self.more_ended()
        return self._ended

    def more_ended(self) -> list[Walked]:
        """:data:`ENDED_GAMES` more ended games (the same ones on every run)."""
        assert self._ended is not None
        rng = self.rng(f"ended/{len(self._ended)}")
        games = random_games(self.table, rng, ENDED_GAMES, renuncios=(0.0, 0.0, 0.05))
        more: list[Walked] = [(g, body_of(g), []) for g in games]
        self._ended += more
        return more

    @property
    def played(self) -> list[Walked]:
        """More games, walked, for the searches that look at few positions of each: with an
        option that changes what is allowed, what they play may hold a renuncio more or an
        illegal event (the search stops there), never a log the referee refuses."""
        if self._played is None:
            games = random_games(self.table, self.rng("played"), OPTION_GAMES)
            self._played = [walked(g) for g in games]
        return self._played

    @property
    def bank(self) -> DealBank:
        if self._bank is None:
            self._bank = DealBank(self.table, self.rng("bank"), BANKED_GAMES)
        return self._bank


def _options(p: Prober) -> dict[str, Any] | None:
    return None if p.option is None else {p.option.spec.name: p.option.value}


def _set(p: Prober, log: dict[str, Any]) -> dict[str, Any]:
    """The log with the option being probed set."""
    options = _options(p)
    return log if options is None else with_options(log, options)


# --- the searches ---------------------------------------------------------------------------------


def positions(p: Prober, ctx: Context) -> None:
    """Random games, position by position."""
    games = random_games(p.table, ctx.rng("walked"), WALKED_GAMES)
    GameSearch(p).run(games)


def voids(p: Prober, ctx: Context) -> None:
    """More games, looked at only where a player void in the suit led meets a trump (pisar)."""
    if p.table.players >= 3:
        GameSearch(p, void_with_trumps).walk(ctx.played)


#: The outcome reasons that an option deciding outcomes can change.
OUTCOME_FOCUS: Final = {
    "tie_break": (Reason.LAST_TRICK, Reason.TIE),
    "renuncio_penalty": (Reason.RENUNCIO,),
}


def ended(
    p: Prober,
    ctx: Context,
    options: dict[str, Any] | None = None,
    games: list[Walked] | None = None,
) -> None:
    """Random games looked at where they end: outcomes, ties, the penalty of a renuncio."""
    options = options or _options(p)
    focus = None if p.option is None else OUTCOME_FOCUS[p.option.spec.name]
    search = GameSearch(p)
    for game, body, _ in ctx.ended if games is None else games:
        if focus is not None and body["deals"][-1]["outcome"]["reason"] not in focus:
            continue
        if options is not None:
            game = with_options(game, options)
            body = body_of(game)
        search.deal_end(game, body)


def ended_untied(p: Prober, ctx: Context) -> None:
    """Ended games, and (where there is a tie-break) ended games where nothing breaks a tie;
    more of them while an outcome (ties are rare) still wants vectors, up to
    :data:`MOST_ENDED` games."""
    untied = RULESETS[p.table.ruleset].option("tie_break") is not None
    outcomes = [r for r in rules_for(RULESETS[p.table.ruleset]) if family_of(r) is Family.OUTCOME]
    games = ctx.ended
    while True:
        ended(p, ctx, games=games)
        if untied:
            ended(p, ctx, {"tie_break": "none"}, games)
        if len(ctx.ended) >= MOST_ENDED or not p.wants(outcomes, [Kind.REPLAY], MOST_EVENTS):
            return
        games = ctx.more_ended()


def tutes(p: Prober, ctx: Context) -> None:
    """A tute on the first lead: open, declared, and what may not follow it."""
    if not RULESETS[p.table.ruleset].tute:
        return
    search = GameSearch(p)
    for log, tute in hand_built.tutes(p.table, ctx.rng("tutes"), BUILT):
        log = _set(p, log)
        _situations_in(p, log)
        p.offer_answer(declaration("tute"), log, Ask.LEGAL_MOVES)
        p.offer_answer(declaration("tute"), log, Ask.VERDICT, tute)
        done = appended(log, tute)
        answer = p.offer_answer(declaration("tute"), done, Ask.REPLAY)
        if kind_of(answer) is Kind.REPLAY:
            p.offer(outcome(Reason.TUTE), done, answer)
            search.deal_end(done, body_of(done))


def cantes(p: Prober, ctx: Context) -> None:
    """Several cantes after one trick won (``cantes_per_trick`` of them, and one more)."""
    if RULESETS[p.table.ruleset].cantes != "declared":
        return
    allowed = 1 if p.option is None else p.option.value
    rng = ctx.rng(f"cantes/{allowed}")
    for _ in range(BUILT):
        made = hand_built.cantes_after_one_trick(p.table, rng, min(allowed + 1, 4))
        if made is None:
            continue
        log, sings = made
        log = _set(p, log)
        for sing in sings:
            p.offer_answer(declaration("sing"), log, Ask.LEGAL_MOVES)
            verdict = p.offer_answer(declaration("sing"), log, Ask.VERDICT, sing)
            if verdict.get("verdict") == "illegal":
                p.offer(illegal(verdict["code"]), log, verdict)
                p.offer_answer(illegal(verdict["code"]), appended(log, sing), Ask.REPLAY)
                break
            log = appended(log, sing)
            p.offer_answer(declaration("sing"), log, Ask.REPLAY)
            _situations_in(p, log)


def two_pairs(p: Prober, ctx: Context) -> None:
    """Two calls in one trick (four or five players), in the order their pairs completed."""
    if RULESETS[p.table.ruleset].cantes != "in_trick" or p.table.players < 4:
        return
    rng = ctx.rng("two-pairs")
    for i in range(BUILT):
        log = hand_built.two_pairs_trick(p.table, rng, pair_first=i % 2 == 0)
        if log is not None:
            p.offer_answer(call(Call.TWO_PAIRS), log, Ask.REPLAY)
            _trump_shown(p, call(Call.TWO_PAIRS), log, rng)


def _trump_shown(p: Prober, name: str, log: dict[str, Any], rng: random.Random) -> bool:
    """After a first trick that called trump: the legal moves of a follower the new trump
    binds, in the next trick (asked with the option probed, if any: the call of a pair of
    other ranks leaves them free). Whether they were kept."""
    follower = hand_built.void_after_call(log, rng)
    if follower is None:
        return False
    follower = _set(p, follower)
    return p.offer(name, follower, p.answer(follower, Ask.LEGAL_MOVES), Ask.LEGAL_MOVES)


def pair_calls(p: Prober, ctx: Context) -> None:
    """``call_ranks``: the pair of the option's ranks falls in the first trick — or, when the
    pack leaves one of them out (so that nothing is ever called), the king and horse do."""
    assert p.option is not None
    ranks = p.option.value
    if not set(ranks) <= hand_built.ranks_of(p.table):
        ranks = list(p.option.spec.default)
    rng = ctx.rng(f"pairs/{ranks}")
    made = shown = 0
    for i in range(8 * PAIR_CALLS):  # a scripted play may be a renuncio: try again
        suit = hand_built.SUITS[made % 4]
        log = hand_built.pair_in_first_trick(p.table, rng, ranks, suit, low_first=i % 2 == 0)
        if log is None:
            continue
        if made < PAIR_CALLS:
            p.offer_answer(p.option.rule, _set(p, log), Ask.REPLAY)
            made += 1
        # the call happens under the option's ranks, or (the pack lacking one) the default's
        called = _set(p, log) if list(ranks) == list(p.option.value) else log
        shown += _trump_shown(p, p.option.rule, called, rng)
        if made == PAIR_CALLS and shown:
            return


def pisar_built(p: Prober, ctx: Context) -> None:
    """Calls in the trick: a player void in the suit led who must overtrump, soon after the
    first call (random games meet one late, if at all)."""
    if RULESETS[p.table.ruleset].cantes != "in_trick":
        return
    pisar = obligation(Obligation.PISAR)
    rng = ctx.rng("pisar")
    for _ in range(BUILT):
        made = hand_built.pisar_after_call(p.table, rng)
        if made is None:
            continue
        log, lower = made
        move = hand_built.play(2, lower)
        verdict = p.answer(log, Ask.VERDICT, move)
        if verdict.get("obligation") == Obligation.PISAR:
            p.offer(pisar, log, verdict)
            p.offer_answer(pisar, log, Ask.LEGAL_MOVES)
            p.offer_answer(pisar, appended(log, move), Ask.REPLAY)


def over_100(p: Prober, ctx: Context) -> None:
    """Tute cabrón: a hand that passes 100 points."""
    if RULESETS[p.table.ruleset].outcome != "cabron":
        return
    search = GameSearch(p)
    rng = ctx.rng("over-100")
    for _ in range(BUILT):
        log = hand_built.strong_hand(p.table, rng)
        if log is not None:
            search.deal_end(log, body_of(log))


def positions_with_option(p: Prober, ctx: Context) -> None:
    """Random games with the option, looked at where it can change what is allowed."""
    assert p.option is not None
    GameSearch(p, OPTION_FOCUS[p.option.spec.name], _options(p)).walk(ctx.played)


def ended_with_option(p: Prober, ctx: Context) -> None:
    """An option deciding outcomes: ended games, and deals decided by a renuncio."""
    assert p.option is not None
    ended(p, ctx)
    for deal in ctx.bank.renuncios[:BUILT]:
        log = _set(p, hand_built.log_of(p.table, [deal]))
        p.offer_answer(p.option.rule, log, Ask.REPLAY)
        _after_the_end(p, log)


def _after_the_end(p: Prober, log: dict[str, Any]) -> None:
    """The verdict on the last event given again once the log is over: ``match_over`` if it
    decided the match, else ``deal_over`` (the option's value shows in which). Not for a log
    whose match ended before its last deal: the referee judges no move on an invalid log."""
    if body_of(log)["status"] == "invalid":
        return
    last = log["deals"][-1]["events"][-1]
    move = play(last["seat"], last["card"]) if "card" in last else last
    assert p.option is not None
    p.offer_answer(p.option.rule, log, Ask.VERDICT, move)


def match_targets(p: Prober, ctx: Context) -> None:
    """A match that ends when a seat reaches the target (and, alternating, not before)."""
    assert p.option is not None
    for deals in matches_to(ctx.bank, p.option.value, MAX_DEALS):
        log = hand_built.log_of(p.table, deals, _options(p))
        p.offer_answer(p.option.rule, log, Ask.REPLAY)
        _after_the_end(p, log)


def after_match(p: Prober, ctx: Context) -> None:
    """Events and deals given after the match was decided (the smallest target)."""
    spec = RULESETS[p.table.ruleset].option(target_option(p.table))
    assert spec is not None
    smallest = min(option_values(spec))
    options = {spec.name: smallest}
    extra = ctx.bank.counting(0, alone=False) or ctx.bank.not_counting(0)
    for deals in matches_to(ctx.bank, smallest, MAX_DEALS):
        log = hand_built.log_of(p.table, deals, options)
        last = deals[-1]["events"][-1]
        move = play(last["seat"], last["card"]) if "card" in last else last
        verdict = p.offer_answer(illegal(IllegalCode.MATCH_OVER), log, Ask.VERDICT, move)
        p.offer(rule(Family.AFTER_MATCH), log, verdict, Ask.VERDICT)
        late = [
            appended(log, move),
            {**log, "deals": [*log["deals"], {**extra[0], "events": []}]},
            {**log, "deals": [*log["deals"], extra[0]]},
        ]
        for longer in late:
            replayed = p.offer_answer(rule(Family.AFTER_MATCH), longer, Ask.REPLAY)
            p.offer(illegal(IllegalCode.MATCH_OVER), longer, replayed)


def _situations_at(p: Prober, game: dict[str, Any], spot: Spot, wanted: list[Situation]) -> None:
    """Where a situation holds: the legal moves, and the verdict on the move that shows it."""
    ruleset = RULESETS[p.table.ruleset]
    k = spot.index
    for found in wanted:
        name = situation(found)
        if not p.wants([name], [Kind.LEGAL_MOVES, Kind.VERDICT], k):
            continue
        needs = NEEDS.get(found, {})
        if not HOLDS[found](spot, ruleset, resolve_options(ruleset, needs)):
            continue
        log = with_options(prefix(game, k), needs) if needs else prefix(game, k)
        p.offer_answer(name, log, Ask.LEGAL_MOVES)
        move = move_of(found, spot)
        if found is Situation.RELIEF_BY_TRUMP:  # a card only the relief allows
            spare = cards_of(spot.view.hands[spot.seat] & ~spot.view.correct)
            move = Move.play(spot.seat, spare[0]) if spare else None
        if move is not None:
            p.offer_answer(name, log, Ask.VERDICT, move.to_json("spanish"))


def _situations_in(p: Prober, log: dict[str, Any]) -> None:
    """The situations where a built log ends (outside an option's search)."""
    if p.option is not None:
        return
    ruleset = RULESETS[p.table.ruleset]
    wanted = [s for s in Situation if ARISES[s](ruleset)]
    if wanted:
        _situations_at(p, log, spots(log)[-1], wanted)


def built_situations(p: Prober, ctx: Context) -> None:
    """Situations random games meet late or rarely: a tute after a won trick (with a cante
    open too), a cante open to a player who sang in an earlier trick, or whose partner did."""
    ruleset = RULESETS[p.table.ruleset]
    rng = ctx.rng("situations")
    for i in range(BUILT):
        if ruleset.tute:
            of = TuteOf(i % 2)
            for cante in (False, True) if ruleset.cantes == "declared" else (False,):
                log = hand_built.tute_after_trick(p.table, rng, of, cante)
                if log is not None:
                    _situations_in(p, log)
        if ruleset.cantes == "declared":
            log = hand_built.cantes_in_two_tricks(p.table, rng)
            if log is not None:
                _situations_in(p, log)
        if ruleset.pairs:
            log = hand_built.partner_sang_before(p.table, rng)
            if log is not None:
                _situations_in(p, log)


def situations(p: Prober, ctx: Context) -> None:
    """Random games walked breadth first for the situations engines get wrong."""
    ruleset = RULESETS[p.table.ruleset]
    wanted = [s for s in Situation if ARISES[s](ruleset)]
    games = ctx.played
    longest = max(len(walk) for _, _, walk in games)
    for k in range(longest):
        for game, _, walk in games:
            if k < len(walk) - 1 and wanted:
                _situations_at(p, game, walk[k], wanted)


def setup_faults(p: Prober, ctx: Context) -> None:
    """Logs refused before any event: each :class:`SetupFault` a few ways."""
    rng = ctx.rng("faults")
    ruleset = RULESETS[p.table.ruleset]
    bases = []
    for as_deck in (False, True):
        log = hand_built.log_of(
            p.table, [hand_built.shaped(p.table, rng, {}, as_deck=as_deck) or {}]
        )
        bases.append(log)
    for fault, breaker in BREAKERS.items():
        if not SETUP[fault](ruleset):
            continue
        for base in bases:
            for broken in breaker(p.table, base, rng):
                answer = referee_answer(broken, Ask.REPLAY)
                if "error" in answer:
                    p.offer(setup(fault), broken, answer)
                    # an engine that only judges moves is asked the legal moves, and refuses
                    p.offer(setup(fault), broken, answer, Ask.LEGAL_MOVES)


#: The families whose vectors are also given in French notation, in the order they are taken.
FRENCH_FROM: Final = (
    Family.OBLIGATION,
    Family.DECLARATION,
    Family.CALL,
    Family.CONTRAFALLAR,
    Family.DRAWS,
    Family.OUTCOME,
    Family.ILLEGAL,
)


def french(pool: Pool, ruleset: str, seed: int) -> None:
    """``french-notation``: some of the ruleset's smallest vectors written with French codes
    (every other one with the suit symbols), answered afresh; and a log that says French but
    writes a Spanish code."""
    french_rule = rule(Family.FRENCH)
    sources = [
        chosen
        for family in FRENCH_FROM
        for name in rules_for(RULESETS[ruleset])
        if family_of(name) is family
        for chosen in pool.chosen(ruleset, name)[:1]
    ]
    for i, source in enumerate(sources):
        log = french_logs.french_log(source.log, symbols=i % 2 == 1)
        move = source.expect.get("move")
        ask = EXPECT_KINDS[kind_of(source.expect)]
        table = Table(ruleset, len(log["players"]))
        prober = Prober(pool, table)
        if move is not None:
            move = french_logs.french_move(move, symbols=i % 2 == 1)
        prober.offer_answer(french_rule, log, ask, move)
        if i == 0:
            spanish = {**log, "deals": [{**d} for d in log["deals"]]}
            spanish["deals"][0] = source.log["deals"][0]
            prober.offer_answer(french_rule, spanish, Ask.REPLAY)


#: For every option, the search that can show each of its values (a test checks every option of
#: every ruleset is here).
OPTION_FINDERS: Final[dict[str, Callable[[Prober, Context], None]]] = {
    "match_target": match_targets,
    "loser_target": match_targets,
    "token_target": match_targets,
    "renuncio_penalty": ended_with_option,
    "tie_break": ended,
    "cantes_per_trick": cantes,
    "trump_when_cannot_overtrump": positions_with_option,
    "partner_relief": positions_with_option,
    "exchange_requires_trick_won": positions_with_option,
    "tute_requires_trick_won": tutes,
    "call_ranks": pair_calls,
}


#: The searches of every table, in the order they run.
SEARCHES: Final = (
    positions,
    voids,
    ended_untied,
    tutes,
    cantes,
    two_pairs,
    pisar_built,
    over_100,
    after_match,
    setup_faults,
    situations,
    built_situations,
)


def search_table(p: Prober, seed: int) -> None:
    """Every search for one table, then the search for every option value."""
    ctx = Context(seed, p.table)
    for finder in SEARCHES:
        finder(p, ctx)
    ruleset = RULESETS[p.table.ruleset]
    for spec in ruleset.option_specs:
        for value in option_values(spec):
            if exercised(ruleset, spec, value):
                OPTION_FINDERS[spec.name](p.under(OptionProbe.of(spec, value)), ctx)


__all__ = ["OPTION_FINDERS", "SEARCHES", "french", "search_table"]
