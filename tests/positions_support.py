"""Whole matches validated move by move by state token, checked against the library.

The client this models is an online table that sends no history: it takes the first token from
``POST /v1/replays`` of a log whose first deal has no events yet, then sends
``{"state_id", "move"}`` for every move and ``{"state_id", "deal", "move"}`` for the first move
of each later deal (the deal's setup, without events). Every verdict must equal the library's
full-log verdict, ``arbiter.validate(prefix, move).to_dict()`` on the log so far (apart from
``state_id``, which depends on the server's key and a random nonce).

- :func:`decided_match`: a random match played to its end, every move correct (a renuncio is
  judged but gives no token to continue from);
- :func:`prefix`, :func:`setup_of`, :func:`without_state_id`: pieces of logs and answers;
- :func:`walk_by_token`: the walk itself over any transport (:data:`Post`): an in-process Flask
  client, or HTTP to a live gunicorn;
- :func:`assert_token_ends`: a token opened with the server's secrets holds the position a
  replay of the whole log reaches (standing included);
- :func:`random_games`: a hypothesis strategy of random logs of every table;
- :func:`read_deals`: a log's deals read (setups and moves) but not played; :func:`slots_of`:
  the attributes of an engine class, in either build;
- :data:`TABLES`: every ruleset with every number of players it seats (:mod:`tests.reference`'s).

Used by tests/test_two_workers.py and tests/test_cache_cluster.py.
"""

from __future__ import annotations

import copy
import inspect
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

import arbiter
from arbiter.engine.log import Header, first_dealer, parse_deal, parse_header, raw_deals
from arbiter.engine.moves import Move
from arbiter.engine.setup import DealSetup, next_dealer
from arbiter.simulate import random_log
from arbiter.tokens import Sealer
from tests.reference import TABLES

#: One request: (path, JSON payload) -> (status, decoded JSON body).
Post = Callable[[str, Mapping[str, Any]], tuple[int, Any]]


def decided_match(
    ruleset: str, players: int, seed: int, *, min_deals: int = 2, **kwargs: Any
) -> dict[str, Any]:
    """A random match of ``ruleset`` played until it is decided, without a renuncio, over at
    least ``min_deals`` deals (``kwargs`` go to :func:`arbiter.simulate.random_log`)."""
    log = random_log(ruleset, random.Random(seed), players=players, deals=100, **kwargs)
    replayed = arbiter.replay(log)
    assert replayed.match.standing.over, "the match is not decided in 100 deals"
    assert len(log["deals"]) >= min_deals, f"seed {seed}: only {len(log['deals'])} deals"
    assert all(not d["violations"] for d in replayed.to_dict()["deals"])
    return log


def prefix(log: Mapping[str, Any], deal: int, events: int) -> dict[str, Any]:
    """``log`` cut after ``events`` events of its deal ``deal`` (0-based)."""
    out = copy.deepcopy(dict(log))
    out["deals"] = out["deals"][: deal + 1]
    out["deals"][deal]["events"] = out["deals"][deal]["events"][:events]
    return out


def setup_of(deal: Mapping[str, Any]) -> dict[str, Any]:
    """A deal of a log without its events: what ``deal`` of a validate request carries."""
    return {k: copy.deepcopy(v) for k, v in deal.items() if k != "events"}


def without_state_id(body: Mapping[str, Any]) -> dict[str, Any]:
    """The answer minus ``state_id`` (a server with a token secret makes one, the library says
    null), which must be null or a non-empty string."""
    answer = dict(body)
    state_id = answer.pop("state_id", None)
    assert state_id is None or (isinstance(state_id, str) and state_id)
    return answer


@dataclass
class Walk:
    """What a walk saw: the tokens it was given, in order (the first from the replay)."""

    tokens: list[str] = field(default_factory=list)

    @property
    def last(self) -> str:
        return self.tokens[-1]


def walk_by_token(
    post: Post,
    log: Mapping[str, Any],
    *,
    before_move: Callable[[int], None] | None = None,
    default_dealers: bool = True,
) -> Walk:
    """Validate every event of ``log`` (whose deals are all finished) by token alone, asserting
    at each move a 200, verdict ok, a new token, and the library's full-log verdict; then a
    further move on the last token gets the library's verdict on the whole log (match_over for a
    decided match, deal_over otherwise). ``before_move(i)`` runs before the ``i``-th move.
    With ``default_dealers``, every other later deal is sent without its ``dealer`` (the
    rotation's default, as in a log)."""
    walk = Walk()
    start = prefix(log, 0, 0)
    status, body = post("/v1/replays", start)
    assert status == 200, body
    assert without_state_id(body) == without_state_id(arbiter.replay(start).to_dict())
    assert isinstance(body["state_id"], str)
    walk.tokens.append(body["state_id"])
    index = 0
    for d, deal in enumerate(log["deals"]):
        for j, move in enumerate(deal["events"]):
            if before_move is not None:
                before_move(index)
            payload: dict[str, Any] = {"state_id": walk.last, "move": move}
            if d and not j:
                payload["deal"] = setup_of(deal)
                if default_dealers and d % 2:
                    del payload["deal"]["dealer"]
            status, body = post("/v1/moves/validate", payload)
            where = f"{log['ruleset']}: deal {d}, event {j} (move {index})"
            assert status == 200, (where, status, body)
            expected = arbiter.validate(prefix(log, d, j), move).to_dict()
            assert without_state_id(body) == without_state_id(expected), where
            assert body["verdict"] == "ok", where
            assert isinstance(body["state_id"], str), where
            assert body["state_id"] not in walk.tokens, where
            walk.tokens.append(body["state_id"])
            index += 1
    probe = log["deals"][-1]["events"][0]
    status, body = post("/v1/moves/validate", {"state_id": walk.last, "move": probe})
    assert status == 200, body
    assert body == arbiter.validate(log, probe).to_dict()
    return walk


def assert_token_ends(token: str, secrets: list[str], log: Mapping[str, Any]) -> None:
    """The position sealed in ``token`` (opened with ``secrets``) stands where a replay of the
    whole ``log`` does: the same deals begun, the same match standing, the same last deal."""
    position = Sealer(secrets).open(token)
    match = arbiter.replay(log).match
    assert position.deals == len(match.deals)
    assert position.standing.to_fields() == match.standing.to_fields()
    assert position.standing.over == match.standing.over
    last = match.deals[-1].state
    assert position.deal.to_fields(history=False) == last.to_fields(history=False)


@st.composite
def random_games(draw: st.DrawFn, max_deals: int = 3) -> dict[str, Any]:
    """A random log of :func:`arbiter.simulate.random_log` of any table: 1 to ``max_deals``
    deals, renuncios and declarations at drawn rates, the last deal finished or not."""
    ruleset, players = draw(st.sampled_from(TABLES))
    return random_log(
        ruleset,
        random.Random(draw(st.integers(0, 10**6))),
        players=players,
        deals=draw(st.integers(1, max_deals)),
        renuncio_rate=draw(st.sampled_from([0.0, 0.1, 0.3])),
        declare_rate=draw(st.sampled_from([0.0, 0.5, 1.0])),
        finish_last=draw(st.booleans()),
    )


def read_deals(log: Mapping[str, Any]) -> tuple[Header, list[tuple[DealSetup, list[Move]]]]:
    """A log's header and each deal's setup and moves, read but not played; a deal without a
    ``dealer`` gets the seat after the previous deal's, as in a replay."""
    header = parse_header(log)
    dealer = first_dealer(header)
    deals = []
    for raw in raw_deals(log):
        setup, moves = parse_deal(header, raw, dealer)
        deals.append((setup, moves))
        dealer = next_dealer(setup.dealer, len(header.players))
    return header, deals


def slots_of(cls: type) -> tuple[str, ...]:
    """The instance attributes of an engine class, whichever build runs: ``__mypyc_attrs__``
    once mypyc has compiled it; in pure Python its ``__slots__`` or, for a class that declares
    its attributes as annotations (:class:`~arbiter.engine.state.DealState`), those."""
    names: tuple[str, ...] = (
        getattr(cls, "__mypyc_attrs__", None)
        or cls.__dict__.get("__slots__")
        or tuple(inspect.get_annotations(cls))
    )
    return tuple(n for n in names if n != "__dict__")


__all__ = [
    "TABLES",  # tests/reference.py's, re-exported
    "Post",
    "Walk",
    "assert_token_ends",
    "decided_match",
    "prefix",
    "random_games",
    "read_deals",
    "setup_of",
    "slots_of",
    "walk_by_token",
    "without_state_id",
]
