"""``arbiter conformance play``: random games dealt and played by the referee against an engine.

Vectors are a fixed set; engines also meet what no fixed set holds. Play-testing deals random
games (:class:`Setting`: a ruleset, a number of players, its options — at random with
``options_random``), and at every position of every deal asks the engine what the protocol asks:
its legal moves, and its verdict on a sample of moves the referee chooses there
(:func:`~arbiter.conformance.kit.sampling.sample`: a legal play, a renuncio of each obligation
possible, an illegal event of each code possible). Then the referee plays on with a move of its
own choosing — sometimes a renuncio, as careless players make them — whatever the engine said.

The first disagreement is shrunk (:mod:`.shrink`) to a small reproducer in the vectors' format,
with the referee's explanation; with ``keep_going`` one reproducer per distinct disagreement
(:class:`Signature`) is kept and the games go on. A run is bounded by ``games`` and ``seconds``
and is the same for the same seed: each game draws from its own generator.

Every question of a position is sent at once (:meth:`Engine.ask_many`), and the log and the
position are encoded once per position, not once per question: a Python adapter on this
machine answers more than a thousand positions a second.
"""

from __future__ import annotations

import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from arbiter.conformance.kit.capabilities import EVERYTHING, Capabilities
from arbiter.conformance.kit.checker import GIVE_UP_AFTER
from arbiter.conformance.kit.dealing import (
    AIMED_GAMES,
    GAME_DEALS,
    Aim,
    aimed,
    deal_of,
    play_rates,
    setting_of,
    steered,
)
from arbiter.conformance.kit.engines import Encoded, Engine, Reply, Sent, Trouble
from arbiter.conformance.kit.grading import Grade, Result
from arbiter.conformance.kit.positions import position_json
from arbiter.conformance.kit.protocol import PROTOCOL_VERSION, Ask, Vector, dumps
from arbiter.conformance.kit.sampling import (
    Asked,
    Signature,
    graded,
    line,
    questions_at,
    signature_of,
)
from arbiter.conformance.kit.shrink import Case, Smallest, shrink
from arbiter.conformance.kit.situations import situations_at, situations_of
from arbiter.engine.log import first_dealer, parse_deal
from arbiter.engine.moves import Move
from arbiter.engine.position import Position
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.setup import next_dealer
from arbiter.simulate import choose_move

#: The most distinct disagreements a run keeps (each is shrunk).
MOST_FINDINGS: Final = 40


@dataclass(frozen=True, slots=True)
class Plan:
    """What a run plays."""

    games: int = 200
    seed: int = 0
    rulesets: tuple[str, ...] = tuple(RULESETS)
    options_random: bool = False
    keep_going: bool = False
    seconds: float | None = None
    protocol: int = PROTOCOL_VERSION
    asks: tuple[Ask, ...] = (Ask.LEGAL_MOVES, Ask.VERDICT)
    #: what the engine declares: what is played, asked and graded
    caps: Capabilities = EVERYTHING


@dataclass
class Finding:
    """A disagreement: as found, shrunk, and what the engine said of the reproducer."""

    signature: Signature
    found: Vector
    vector: Vector
    said: dict[str, Any]
    result: Result
    game: int
    trouble: Trouble | None = None
    detail: str = ""

    @property
    def ratio(self) -> float:
        """The reproducer's events over the events of the case first found (1: not shrunk)."""
        return self.vector.events / self.found.events if self.found.events else 1.0


@dataclass
class PlayRun:
    """The results of one play-testing run."""

    engine: str
    plan: Plan
    games: int = 0
    positions: int = 0
    questions: int = 0
    unsupported: int = 0
    #: parts of answers not graded: not declared, or left out of an answer
    not_graded: int = 0
    elapsed: float = 0.0
    #: seconds from the first answer to the last (what the speed is counted over)
    answering: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    troubles: Counter[Trouble] = field(default_factory=Counter)
    #: per situation (:data:`~arbiter.conformance.kit.situations.SITUATIONS`): (asked, agreed)
    coverage: dict[str, tuple[int, int]] = field(default_factory=dict)
    restarts: int = 0
    gave_up: bool = False

    @property
    def failed(self) -> bool:
        return bool(self.findings) or bool(self.troubles)

    @property
    def speed(self) -> float:
        """Positions asked per second, counted from the first answer (not the engine's start)."""
        return (self.positions - 1) / self.answering if self.answering > 0 else 0.0


# --- a game ---------------------------------------------------------------------------------------


class LogText:
    """A log being played, as JSON and as text: the deals before the last written once, the
    last deal's events appended one by one."""

    def __init__(self, setting: Any) -> None:
        self.setting = setting
        self.deals: list[dict[str, Any]] = []
        head = dumps({**setting.head(), "deals": []})
        self._head = head[: -len("[]}")] + "["
        self._done: list[str] = []
        self._deal = ""
        self._events: list[str] = []

    def begin(self, deal: dict[str, Any]) -> None:
        if self.deals:
            self._done.append(dumps(self.deals[-1]))
        self.deals.append({**deal, "events": []})
        text = dumps(self.deals[-1])
        self._deal = text[: -len("[]}")] + "["
        self._events = []

    def append(self, event: dict[str, Any]) -> None:
        self.deals[-1]["events"].append(event)
        self._events.append(dumps(event))

    def text(self) -> str:
        last = self._deal + ",".join(self._events) + "]}"
        return self._head + ",".join([*self._done, last]) + "]}"

    def snapshot(self) -> list[dict[str, Any]]:
        """The deals so far (copies: the game goes on)."""
        return [{**d, "events": list(d["events"])} for d in self.deals]


class Point(NamedTuple):
    """A position of a game asked about: its questions, sent, and where it is in the log."""

    asked: list[Asked]
    encoded: list[Encoded]
    deal: int
    events: int
    #: the situations each question meets
    situations: list[tuple[str, ...]]


class Game:
    """One game, dealt and played by the referee: the positions to ask the engine about."""

    def __init__(self, plan: Plan, number: int) -> None:
        self.plan = plan
        self.number = number
        self.rng = random.Random(f"{plan.seed}/{number}")
        self.setting = setting_of(plan.rulesets, plan.options_random, self.rng)
        #: directed play: half the games steer toward ties (and, when the engine plays any
        #: options, set those that decide rare situations)
        self.aimed = self.rng.random() < AIMED_GAMES
        if self.aimed and plan.caps.options == "any":
            self.setting = aimed(self.setting, self.rng)
        self.header = self.setting.header()
        self.log = LogText(self.setting)
        self.asked = 0

    def points(self) -> Iterator[Point]:
        """Every position of the game (the deals one after another, until the match ends),
        with its questions; the game goes on as the caller asks for the next."""
        rng, setting = self.rng, self.setting
        rates = play_rates(self.plan.caps.blocks, self.plan.caps.declarations)
        n = setting.players
        position: Position | None = None
        dealer = first_dealer(self.header)
        for _ in range(rng.choice(GAME_DEALS)):
            raw = deal_of(setting, dealer, rng)
            setup, _ = parse_deal(self.header, {**raw, "events": []}, dealer)
            position = Position.first(self.header, setup) if position is None else (
                position.begin_deal(setup)
            )  # fmt: skip
            self.log.begin(raw)
            last: list[Move] = []
            aim = Aim()  # directed play's way to a tie, once found
            while True:
                yield self.point(position, last)
                if position.deal.over:
                    break
                if self.aimed:
                    move = steered(position.deal, rng, rates, aim)
                else:
                    move = choose_move(position.deal, rng, *rates)
                position.apply(move)
                last.append(move)
                self.log.append(move.to_json(self.header.notation))
            if position.standing.over:
                return
            dealer = next_dealer(dealer, n)

    def point(self, position: Position, last: Sequence[Move]) -> Point:
        asked = questions_at(position, self.rng, self.plan.asks, last, self.plan.caps)
        log_text = self.log.text()
        position_text = dumps(position_json(position)) if self.plan.protocol >= 2 else None
        deal = len(self.log.deals) - 1
        encoded = []
        for one in asked:
            self.asked += 1
            qid = f"{self.number}/{deal}/{self.asked}"
            encoded.append(
                Encoded(qid, line(qid, one, log_text, position_text, self.plan.protocol))
            )
        at = situations_at(position)
        met = [situations_of(position, one.move, one.expect, at) for one in asked]
        return Point(asked, encoded, deal, position.deal.events_applied, met)

    def case(self, point: Point, asked: Asked, signature: Signature) -> Case:
        """The log up to ``point``, as a case to shrink (its move, for a verdict)."""
        deals = self.log.snapshot()[: point.deal + 1]
        deals[-1]["events"] = deals[-1]["events"][: point.events]
        move = asked.expect.get("move") if asked.ask is Ask.VERDICT else None
        return Case(self.setting, deals, asked.ask, signature, move)


#: Positions whose questions are sent before the answers of the first are read: the engine
#: works on them while the referee plays on and prepares the next.
AHEAD: Final = 1


class _Abandon(Exception):
    """The game ends here; with ``stop``, the run too."""

    def __init__(self, stop: bool) -> None:
        super().__init__()
        self.stop = stop


class Player:
    """A run of games against one engine."""

    def __init__(
        self,
        engine: Engine,
        plan: Plan,
        progress: Callable[[PlayRun], None] | None = None,
    ) -> None:
        self.engine = engine
        self.plan = plan
        self.progress = progress
        self.result = PlayRun(engine.name, plan)
        self._start = time.perf_counter()
        self._first_answer: float | None = None
        self._troubles_in_a_row = 0
        self._found: set[Signature] = set()

    def in_time(self) -> bool:
        seconds = self.plan.seconds
        return seconds is None or time.perf_counter() - self._start < seconds

    def play(self, game: Game) -> bool:
        """Play one game; False when the run must stop (a finding, troubles, the deadline).
        A trouble abandons the game: the engine was started again, and knows nothing of it."""
        pending: deque[tuple[Point, Sent]] = deque()
        answers: dict[int, list[Reply]] = {}  # read early, before a shrink
        try:
            for point in game.points():
                if not self.in_time():
                    return False
                if point.asked:
                    pending.append((point, self.engine.send(point.encoded)))
                if len(pending) > AHEAD:
                    self.settle(game, pending, answers)
            while pending:
                self.settle(game, pending, answers)
        except _Abandon as why:
            return not why.stop
        return True

    def settle(
        self, game: Game, pending: deque[tuple[Point, Sent]], answers: dict[int, list[Reply]]
    ) -> None:
        """Read and grade the answers of the oldest position sent."""
        point, sent = pending.popleft()
        replies = answers.pop(id(sent)) if id(sent) in answers else self.engine.receive(sent)
        if self._first_answer is None:
            self._first_answer = time.perf_counter()
        self.result.positions += 1
        self.result.questions += len(point.asked)
        for asked, reply, met in zip(point.asked, replies, point.situations, strict=True):
            self.judged(game, point, asked, reply, pending, answers, met)

    def judged(
        self,
        game: Game,
        point: Point,
        asked: Asked,
        reply: Reply,
        pending: deque[tuple[Point, Sent]],
        answers: dict[int, list[Reply]],
        met: tuple[str, ...] = (),
    ) -> None:
        """Grade one answer (a new disagreement shrunk and kept); :class:`_Abandon` the game
        after a trouble, or the run after a finding (unless ``keep_going``)."""
        result = self.result
        if reply.answer is None:
            assert reply.trouble is not None
            result.troubles[reply.trouble] += 1
            self._troubles_in_a_row += 1
            result.gave_up = self._troubles_in_a_row >= GIVE_UP_AFTER
            raise _Abandon(stop=result.gave_up or not self.plan.keep_going)
        self._troubles_in_a_row = 0
        caps = self.plan.caps
        graded_answer = graded(asked, reply, game.setting.ruleset, caps)
        grade = graded_answer.grade
        if grade is Grade.UNSUPPORTED:
            result.unsupported += 1
        result.not_graded += sum(g is Grade.NOT_GRADED for g in graded_answer.parts.values())
        for name in met:
            asked_so_far, agreed = result.coverage.get(name, (0, 0))
            result.coverage[name] = (asked_so_far + 1, agreed + (grade is not Grade.FAIL))
        if grade is not Grade.FAIL:
            return
        seen = game.case(point, asked, Signature("", "", ""))
        position = seen.position()
        assert position is not None  # the referee played it
        signature = signature_of(position, asked, reply.answer, graded_answer.parts, caps.declares)
        if signature in self._found:
            return
        self._found.add(signature)
        for waiting in pending:  # the engine's answers before the shrink asks its own
            if id(waiting[1]) not in answers:  # (read once: an earlier finding may have)
                answers[id(waiting[1])] = self.engine.receive(waiting[1])
        case = game.case(point, asked, signature)
        number = len(result.findings) + 1
        found = case.vector(f"play/{self.plan.seed}/{game.number}/found", asked.expect)
        rng = random.Random(f"{self.plan.seed}/shrink/{number}")
        first = Smallest(case, asked.expect, reply.answer, graded_answer)
        smallest = shrink(first, self.engine, self.plan.protocol, self.plan.caps, rng)
        vector, said, shrunk = smallest.outcome(f"play/{self.plan.seed}/{game.number}/{number}")
        result.findings.append(Finding(signature, found, vector, said, shrunk, game.number))
        if not self.plan.keep_going or len(result.findings) >= MOST_FINDINGS:
            raise _Abandon(stop=True)

    def run(self) -> PlayRun:
        """Play every game of the plan (until a finding, unless ``keep_going``), and close the
        engine on every way out."""
        result = self.result
        try:
            for number in range(self.plan.games):
                if not self.in_time():
                    break
                go_on = self.play(Game(self.plan, number))
                result.games += 1
                if self.progress is not None:
                    self.progress(result)
                if not go_on:
                    break
        finally:
            self.engine.close()
            end = time.perf_counter()
            result.elapsed = end - self._start
            if self._first_answer is not None:
                result.answering = end - self._first_answer
            result.restarts = self.engine.restarts
        return result


def play(engine: Engine, plan: Plan, progress: Callable[[PlayRun], None] | None = None) -> PlayRun:
    """Play ``plan`` against ``engine``."""
    return Player(engine, plan, progress).run()
