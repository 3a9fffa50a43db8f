"""The replay-state cache (arbiter/cache/): state ids, stores, breaker, and the service with it.

- State ids are canonical (the same game written differently has the same ids), keyed, and form
  a hash chain (the id after one more move follows from the parent's chain value).
- The in-process store is a bounded LRU with a time to live; the "off" store keeps nothing.
- The circuit breaker opens after N failures, refuses during the cooldown, then lets a call
  through, which closes it (success) or opens it again (failure).
- Through the HTTP service, with the memory and the Redis backends: an answer served from the
  cache is exactly the cold replay's answer, hits really happen (``/metrics``), and validating a
  whole deal move by move with ``state_id`` alone gives the verdicts and ids of full-log
  requests.
- Settings: a shared backend needs ``ARBITER_STATE_KEY``; ``REDIS_URL`` / ``REDIS_CLUSTER_URL``
  / ``ARBITER_CACHE=off`` pick the backend; ``/readyz`` reports it.

The Redis backend uses database :data:`tests.redis_support.TEST_DB` of the server on
127.0.0.1:6379 (flushed before and after each test).
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from redis import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

import arbiter
from arbiter.api import create_app
from arbiter.cache import StateCache, build_cache
from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.ids import ENGINE_TAG, StateIds, lookup_positions
from arbiter.cache.stores import MemoryStore, NullStore, RedisClusterStore, RedisStore
from arbiter.engine.cards import Notation, format_card, format_suit, parse_card, parse_suit
from arbiter.engine.log import parse_event, parse_log
from arbiter.settings import Settings, SettingsError
from arbiter.simulate import random_log
from tests import redis_support
from tests.api_support import (
    EXAMPLES_DIR,
    PROBLEM_JSON,
    make_client,
    metric_value,
)
from tests.redis_support import SHARED_URL, free_port

# the fixture of tests/redis_support.py
redis_db = redis_support.redis_db

KEY = "cache-tests-key-0123456789abcdef"
OTHER_KEY = "another-key-fedcba9876543210abcd"
STATE_ID = re.compile(r"[0-9a-f]{10}\.[0-9a-f]{32}")
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))
#: every ruleset with every number of players it allows
TABLES = [
    ("tute-2p", 2),
    ("tute-3p", 3),
    ("tute-4p", 4),
    ("tute-cabron", 3),
    ("tute-gana-pierde", 3),
    ("tute-gana-pierde", 4),
    ("tute-gana-pierde", 5),
]
Position = tuple[int, int]


# --- helpers ------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Recorder:
    """A cache observer that counts events."""

    def __init__(self) -> None:
        self.events: dict[str, int] = {}

    def cache_event(self, kind: str) -> None:
        self.events[kind] = self.events.get(kind, 0) + 1

    def cache_lookup(self, seconds: float) -> None:
        return None


def load_example(path: Path) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return log


def game(ruleset: str, players: int, seed: int, **kwargs: Any) -> dict[str, Any]:
    return random_log(ruleset, random.Random(seed), players=players, **kwargs)


def prefix(log: Mapping[str, Any], deals: int, events: int) -> dict[str, Any]:
    """``log`` cut after ``events`` events of its deal number ``deals`` (1-based)."""
    out = copy.deepcopy(dict(log))
    out["deals"] = out["deals"][:deals]
    out["deals"][-1]["events"] = out["deals"][-1]["events"][:events]
    return out


def positions_of(log: Mapping[str, Any]) -> list[Position]:
    """Every position of a log in order: (deals started, events of the last one)."""
    return [
        (d, k) for d, deal in enumerate(log["deals"], 1) for k in range(len(deal["events"]) + 1)
    ]


def all_ids(log: Mapping[str, Any], key: str = KEY) -> dict[Position, str]:
    """The state id of every prefix of ``log``."""
    ids = StateIds(key.encode())
    chain = ids.chain(parse_log(log), positions_of(log))
    return {p: ids.state_id(chain.game, c) for p, c in chain.at.items()}


def final_id(log: Mapping[str, Any], key: str = KEY) -> str:
    ids = StateIds(key.encode())
    chain = ids.chain(parse_log(log))
    return ids.state_id(chain.game, chain.final)


def without_state_id(body: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "state_id"}


def cold(log: Mapping[str, Any]) -> dict[str, Any]:
    """The library's answer (no cache), without ``state_id``."""
    return without_state_id(arbiter.replay(log).to_dict())


def cache_events(client: FlaskClient) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    return {
        kind: metric_value(text, "arbiter_cache_events_total", kind=kind)
        for kind in ("hit", "miss", "error", "rejected")
    }


def replay_ok(client: FlaskClient, log: Mapping[str, Any]) -> dict[str, Any]:
    """POST the log: 200 and exactly the cold answer; the body (with its state_id)."""
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    assert without_state_id(body) == cold(log)
    if body["status"] == "invalid":
        assert body["state_id"] is None
    else:
        assert isinstance(body["state_id"], str)
        assert STATE_ID.fullmatch(body["state_id"])
    return body


def validate(client: FlaskClient, body: Mapping[str, Any]) -> Any:
    return client.post("/v1/moves/validate", json=body)


def assert_unknown_state(response: Any) -> None:
    assert response.status_code == 409, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM_JSON
    problem = response.get_json()
    assert problem["status"] == 409
    assert problem["type"].endswith("/unknown-state")


def to_deck(log: Mapping[str, Any]) -> dict[str, Any]:
    """The same log with every deal given as a ``deck`` (dealing order, as docs/api.md says)."""
    out = copy.deepcopy(dict(log))
    n = len(out["players"])
    for deal in out["deals"]:
        hands = deal.pop("hands")
        stock = deal.pop("stock", [])
        deal.pop("trump_card", None)
        mano = (deal["dealer"] + 1) % n
        size = len(hands[0])
        deal["deck"] = [hands[(mano + i) % n][i // n] for i in range(size * n)] + stock
    return out


def lower_case(log: Mapping[str, Any]) -> dict[str, Any]:
    """The same log with every card and suit code in lower case."""
    out = copy.deepcopy(dict(log))
    for deal in out["deals"]:
        if "hands" in deal:
            deal["hands"] = [[c.lower() for c in hand] for hand in deal["hands"]]
        for name in ("stock", "deck"):
            if name in deal:
                deal[name] = [c.lower() for c in deal[name]]
        if "trump_card" in deal:
            deal["trump_card"] = deal["trump_card"].lower()
        for event in deal["events"]:
            for name in ("card", "suit"):
                if name in event:
                    event[name] = event[name].lower()
    return out


def to_notation(log: Mapping[str, Any], notation: Notation) -> dict[str, Any]:
    """The same game written in another notation (codes translated one by one)."""
    source: Notation = log.get("notation", "spanish")
    out = copy.deepcopy(dict(log))
    out["notation"] = notation

    def card(code: str) -> str:
        return format_card(parse_card(code, source), notation)

    for deal in out["deals"]:
        if "hands" in deal:
            deal["hands"] = [[card(c) for c in hand] for hand in deal["hands"]]
        for name in ("stock", "deck"):
            if name in deal:
                deal[name] = [card(c) for c in deal[name]]
        if "trump_card" in deal:
            deal["trump_card"] = card(deal["trump_card"])
        for event in deal["events"]:
            if "card" in event:
                event["card"] = card(event["card"])
            if "suit" in event:
                event["suit"] = format_suit(parse_suit(event["suit"], source), notation)
    return out


def reversed_keys(value: Any) -> Any:
    """``value`` with the keys of every object in reverse order."""
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


# --- backends -----------------------------------------------------------------------------------

BACKENDS = ["memory", "redis"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The Settings fields of one cache backend (Redis: the tests' own database)."""
    if request.param == "redis":
        request.getfixturevalue("redis_db")
        return {"redis_url": SHARED_URL, "state_key": KEY}
    return {"cache": "memory"}


@pytest.fixture
def service(backend: dict[str, Any]) -> FlaskClient:
    """A client of the service (not checked against the contract, which tests/test_api.py
    does: these tests send hundreds of requests)."""
    return create_app(Settings(**backend)).test_client()


# === state ids ==================================================================================

TWO_DEALS = game("tute-2p", 2, 11, deals=2, finish_last=False, stop_after=17)
FOUR_P = game("tute-4p", 4, 5, deals=2, finish_last=False, stop_after=9)
GANA_PIERDE = game("tute-gana-pierde", 5, 8, deals=1, finish_last=False, stop_after=23)


def test_state_ids_look_like_game_dot_digest_and_share_the_game_tag() -> None:
    ids = all_ids(TWO_DEALS)
    assert len(ids) == len(positions_of(TWO_DEALS))
    assert len(set(ids.values())) == len(ids), "two prefixes of one log share an id"
    games = {i.partition(".")[0] for i in ids.values()}
    assert len(games) == 1
    for state_id in ids.values():
        assert STATE_ID.fullmatch(state_id), state_id
    assert final_id(TWO_DEALS) == ids[(2, 17)]


def _with_options(log: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(log)
    out["options"] = options
    return out


SAME_GAME: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "lower-case codes": lower_case,
    "deck instead of hands": to_deck,
    "deck in lower case": lambda log: lower_case(to_deck(log)),
    "an extra description": lambda log: {"description": "a comment", **copy.deepcopy(log)},
    "explicit notation": lambda log: {**copy.deepcopy(log), "notation": "spanish"},
    "dealers left out": lambda log: {
        **copy.deepcopy(log),
        "deals": [{k: v for k, v in d.items() if k != "dealer"} for d in log["deals"]],
    },
    "keys in another order": reversed_keys,
}


@pytest.mark.parametrize("form", SAME_GAME, ids=list(SAME_GAME))
@pytest.mark.parametrize("log", [TWO_DEALS, FOUR_P], ids=["tute-2p", "tute-4p"])
def test_the_same_game_written_differently_has_the_same_ids(log: dict[str, Any], form: str) -> None:
    other = SAME_GAME[form](log)
    assert json.dumps(other) != json.dumps(log)  # another text
    assert arbiter.replay(other).to_dict() == arbiter.replay(log).to_dict()  # the same game
    assert all_ids(other) == all_ids(log)


def test_option_order_and_defaults_do_not_change_ids() -> None:
    base = _with_options(TWO_DEALS, {"match_target": 5, "tie_break": "none"})
    reordered = _with_options(TWO_DEALS, {"tie_break": "none", "match_target": 5})
    assert list(reordered["options"]) != list(base["options"])
    assert all_ids(reordered) == all_ids(base)
    # an option given at its default value is the same game as the option left out
    assert all_ids(_with_options(TWO_DEALS, {"match_target": 3})) == all_ids(TWO_DEALS)
    assert all_ids(_with_options(TWO_DEALS, {})) == all_ids(TWO_DEALS)


def _header_changes() -> dict[str, dict[str, Any]]:
    swapped = copy.deepcopy(TWO_DEALS)
    swapped["players"] = list(reversed(swapped["players"]))
    renamed = copy.deepcopy(TWO_DEALS)
    renamed["players"][1] = renamed["players"][1] + "x"
    return {
        "another option value": _with_options(TWO_DEALS, {"match_target": 5}),
        "another option": _with_options(TWO_DEALS, {"exchange_requires_trick_won": True}),
        "a player renamed": renamed,
        "players swapped": swapped,
        "another notation": to_notation(TWO_DEALS, "french"),
    }


@pytest.mark.parametrize("change", list(_header_changes()))
def test_a_different_header_changes_every_id(change: str) -> None:
    other = _header_changes()[change]
    theirs, ours = all_ids(other), all_ids(TWO_DEALS)
    assert set(theirs) == set(ours)
    assert not set(theirs.values()) & set(ours.values())
    # the game tag (the Redis Cluster hash tag) is keyed by the header too
    assert {i.partition(".")[0] for i in theirs.values()} != {
        i.partition(".")[0] for i in ours.values()
    }


def _assert_ids_diverge_at(base: dict[str, Any], other: dict[str, Any], first: Position) -> None:
    """Ids are equal before ``first`` and differ from it on (the chain property)."""
    ours, theirs = all_ids(base), all_ids(other)
    assert set(ours) == set(theirs)
    for position in sorted(ours):
        if position < first:
            assert ours[position] == theirs[position], position
        else:
            assert ours[position] != theirs[position], position
    assert final_id(base) != final_id(other)


@pytest.mark.parametrize(("deal", "event"), [(1, 0), (1, 13), (2, 0), (2, 16)])
def test_a_different_event_changes_the_ids_from_that_event_on(deal: int, event: int) -> None:
    other = copy.deepcopy(TWO_DEALS)
    events = other["deals"][deal - 1]["events"]
    original = events[event]
    # the same card played by the other seat (legal or not: ids name any prefix of a log)
    replacement = {"type": "play", "seat": 1 - original["seat"], "card": original.get("card", "1O")}
    events[event] = replacement
    assert replacement != original
    _assert_ids_diverge_at(TWO_DEALS, other, (deal, event + 1))


@pytest.mark.parametrize("kind", ["exchange", "sing", "tute"])
def test_a_declaration_instead_of_a_play_changes_the_ids(kind: str) -> None:
    other = copy.deepcopy(TWO_DEALS)
    event = {"type": kind, "seat": 0, "suit": "O", "of": "kings"}
    if kind != "sing":
        del event["suit"]
    if kind != "tute":
        del event["of"]
    other["deals"][1]["events"][5] = event
    _assert_ids_diverge_at(TWO_DEALS, other, (2, 6))


def _setup_changes() -> dict[str, tuple[dict[str, Any], Position]]:
    two_hands = copy.deepcopy(TWO_DEALS)
    hands = two_hands["deals"][1]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    stock = copy.deepcopy(TWO_DEALS)
    deal = stock["deals"][1]
    deal["stock"][0], deal["stock"][1] = deal["stock"][1], deal["stock"][0]
    dealer = copy.deepcopy(TWO_DEALS)
    dealer["deals"][0]["dealer"] = 1 - dealer["deals"][0].get("dealer", 1)
    dealer["deals"][1]["dealer"] = TWO_DEALS["deals"][1]["dealer"]
    trump = copy.deepcopy(FOUR_P)
    first = trump["deals"][0]
    dealer_hand = first["hands"][first["dealer"]]
    first["trump_card"] = next(c for c in dealer_hand if c != first["trump_card"])
    return {
        "cards swapped between hands": (two_hands, (2, 0)),
        "stock in another order": (stock, (2, 0)),
        "another dealer": (dealer, (1, 0)),
        "another trump card": (trump, (1, 0)),
    }


@pytest.mark.parametrize("change", list(_setup_changes()))
def test_a_different_setup_changes_the_ids_from_that_deal_on(change: str) -> None:
    other, first = _setup_changes()[change]
    base = FOUR_P if change == "another trump card" else TWO_DEALS
    _assert_ids_diverge_at(base, other, first)
    # the game tag (the cluster hash tag) covers the header and the first deal
    same_game = first[0] > 1
    assert (final_id(other).partition(".")[0] == final_id(base).partition(".")[0]) is same_game


def test_the_order_of_cards_within_a_hand_does_not_change_ids() -> None:
    other = copy.deepcopy(TWO_DEALS)
    for deal in other["deals"]:
        for hand in deal["hands"]:
            hand.reverse()
    assert all_ids(other) == all_ids(TWO_DEALS)


def test_a_different_key_gives_different_ids() -> None:
    ours, theirs = all_ids(TWO_DEALS, KEY), all_ids(TWO_DEALS, OTHER_KEY)
    assert set(ours) == set(theirs)
    assert not set(ours.values()) & set(theirs.values())
    assert {i.partition(".")[0] for i in ours.values()} != {
        i.partition(".")[0] for i in theirs.values()
    }
    # and the storage keys differ as well: one key's entries are invisible to the other
    assert not {StateCache.storage_key(i) for i in ours.values()} & {
        StateCache.storage_key(i) for i in theirs.values()
    }


@pytest.mark.parametrize("log", [TWO_DEALS, FOUR_P, GANA_PIERDE], ids=["2p", "4p", "gp5"])
def test_next_chain_gives_the_id_of_the_longer_log(log: dict[str, Any]) -> None:
    ids = StateIds(KEY.encode())
    parsed = parse_log(log)
    chain = ids.chain(parsed, positions_of(log))
    expected = all_ids(log)
    n = len(log["players"])
    checked = 0
    for (deal, k), value in chain.at.items():
        events = parsed.deals[deal - 1].events
        if k == len(events):
            continue
        move = parse_event(log["deals"][deal - 1]["events"][k], n, "spanish")
        assert move == events[k]
        assert ids.state_id(chain.game, StateIds.next_chain(value, move)) == expected[(deal, k + 1)]
        checked += 1
    assert checked == sum(len(d["events"]) for d in log["deals"])


def test_keep_after_stores_the_state_under_the_id_of_the_longer_log() -> None:
    recorder = Recorder()
    cache = StateCache(MemoryStore(100), KEY.encode(), 60, CircuitBreaker(3, 5), recorder)
    log = FOUR_P
    short = prefix(log, 2, 8)
    replayed = cache.replay(parse_log(short))
    assert replayed.state_id == final_id(short)
    move_raw = log["deals"][1]["events"][8]
    verdict = arbiter.validate(replayed.match, move_raw)
    assert verdict.legal
    new_id = cache.keep_after(
        replayed.game, replayed.chain, verdict.after(), verdict.judgement.move
    )
    assert new_id == final_id(log) == final_id(prefix(log, 2, 9))
    loaded = cache.load(new_id)
    assert loaded is not None
    assert arbiter.Replay(loaded.match).to_dict() == arbiter.replay(log).to_dict()
    assert loaded.chain == StateIds(KEY.encode()).chain(parse_log(log)).final


def test_lookup_positions_are_the_whole_log_its_parent_and_every_deal_end() -> None:
    log = game("tute-2p", 2, 4, deals=3, finish_last=False, stop_after=6)
    lengths = [len(d["events"]) for d in log["deals"]]
    assert lookup_positions(parse_log(log)) == [(3, 6), (3, 5), (2, lengths[1]), (1, lengths[0])]
    assert lookup_positions(parse_log(prefix(log, 2, 0))) == [(2, 0), (1, lengths[0])]


# === stores =====================================================================================


def test_memory_store_evicts_the_least_recently_used() -> None:
    store = MemoryStore(3, clock=FakeClock())
    store.put_many({"a": b"1", "b": b"2", "c": b"3"}, 60)
    assert store.get_many(["a"]) == [b"1"]  # a is now the most recently used
    store.put_many({"d": b"4"}, 60)
    assert len(store) == 3
    assert store.get_many(["a", "b", "c", "d"]) == [b"1", None, b"3", b"4"]
    store.put_many({"c": b"3'"}, 60)  # rewriting refreshes too
    store.put_many({"e": b"5"}, 60)
    assert store.get_many(["a", "c", "d", "e"]) == [None, b"3'", b"4", b"5"]
    store.put_many({str(i): bytes([i]) for i in range(10)}, 60)  # more than fits at once
    assert len(store) == 3
    assert store.get_many(["7", "8", "9", "c", "e"]) == [b"\x07", b"\x08", b"\t", None, None]


def test_memory_store_entries_expire_after_their_ttl() -> None:
    clock = FakeClock()
    store = MemoryStore(10, clock=clock)
    store.put_many({"a": b"1"}, 10)
    clock.advance(5)
    store.put_many({"b": b"2"}, 10)
    clock.advance(4.75)
    assert store.get_many(["a", "b"]) == [b"1", b"2"]
    clock.advance(0.25)  # a is exactly 10 s old
    assert store.get_many(["a", "b"]) == [None, b"2"]
    assert len(store) == 1  # the expired entry is dropped, not kept
    store.put_many({"b": b"2'"}, 10)  # rewriting renews the ttl
    clock.advance(9.5)
    assert store.get_many(["b"]) == [b"2'"]
    clock.advance(0.5)
    assert store.get_many(["b"]) == [None]
    assert store.ping() is True


def test_null_store_keeps_nothing() -> None:
    store = NullStore()
    store.put_many({"a": b"1"}, 10)
    assert store.get_many(["a", "b"]) == [None, None]
    assert store.get_many([]) == []
    assert store.ping() is True
    assert store.name == "off"


def test_state_cache_entries_expire_with_the_ttl() -> None:
    clock = FakeClock()
    recorder = Recorder()
    cache = StateCache(
        MemoryStore(100, clock=clock), KEY.encode(), 30, CircuitBreaker(3, 5), recorder
    )
    log = prefix(TWO_DEALS, 1, 10)
    state_id = cache.replay(parse_log(log)).state_id
    assert state_id is not None
    clock.advance(29.5)
    assert cache.load(state_id) is not None
    assert cache.replay(parse_log(log)).resumed_from == (1, 10)
    clock.advance(0.5)
    assert cache.load(state_id) is None
    replayed = cache.replay(parse_log(log))
    assert replayed.resumed_from is None
    assert replayed.state_id == state_id
    assert recorder.events == {"miss": 3, "hit": 2}


def test_the_memory_cache_stays_within_its_bound() -> None:
    client = make_client(cache="memory", cache_max_entries=5)
    log = game("tute-3p", 3, 2, deals=1)
    ids = []
    for k in range(12):
        body = replay_ok(client, prefix(log, 1, k))
        ids.append(body["state_id"])
    store = client.application.extensions["arbiter.cache"].store
    assert isinstance(store, MemoryStore)
    assert len(store) == 5
    # the oldest states were evicted, the newest are still there
    assert_unknown_state(
        validate(client, {"state_id": ids[0], "move": log["deals"][0]["events"][0]})
    )
    answer = validate(client, {"state_id": ids[11], "move": log["deals"][0]["events"][11]})
    assert answer.status_code == 200
    assert answer.get_json()["verdict"] == "ok"


def test_cache_off_answers_correctly_and_names_no_state() -> None:
    client = make_client(cache="off")
    assert client.get("/readyz").get_json() == {
        "status": "ready",
        "cache": {"backend": "off", "reachable": True},
    }
    log = game("tute-4p", 4, 3, deals=1, finish_last=False, stop_after=12)
    for _ in range(2):
        response = client.post("/v1/replays", json=log)
        assert response.status_code == 200
        assert response.get_json() == arbiter.replay(log).to_dict()  # state_id null
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    answer = validate(client, {**log, "move": move})
    assert answer.status_code == 200
    assert answer.get_json() == arbiter.validate(log, move).to_dict()
    assert answer.get_json()["verdict"] == "ok"
    assert answer.get_json()["state_id"] is None
    # no id is known, not even one that another deployment with a cache would accept
    assert_unknown_state(validate(client, {"state_id": final_id(log), "move": move}))
    events = cache_events(client)
    assert events == {"hit": 0, "miss": 1, "error": 0, "rejected": 0}  # the id lookup


class FlakyStore:
    """A store that fails (like a Redis that is down) while ``down`` is set; counts calls."""

    name = "flaky"

    def __init__(self) -> None:
        self.inner = MemoryStore(1000)
        self.down = False
        self.calls = 0

    def _call(self) -> None:
        self.calls += 1
        if self.down:
            raise RedisConnectionError("down")

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self._call()
        return self.inner.get_many(keys)

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None:
        self._call()
        self.inner.put_many(items, ttl)

    def ping(self) -> bool:
        self._call()
        return True


# === circuit breaker ============================================================================


def test_breaker_opens_after_n_consecutive_failures() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(3, 5.0, clock)
    assert breaker.allow()
    breaker.failure()
    breaker.failure()
    assert breaker.allow() and not breaker.is_open
    breaker.success()  # not consecutive: counting starts again
    breaker.failure()
    breaker.failure()
    assert breaker.allow()
    breaker.failure()
    assert breaker.is_open
    assert not breaker.allow()


def test_breaker_refuses_during_the_cooldown_then_lets_a_call_through() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(2, 4.0, clock)
    breaker.failure()
    breaker.failure()
    for _ in range(3):
        clock.advance(1.25)
        assert not breaker.allow()  # 3.75 s after the failure that opened it
    clock.advance(0.25)
    assert breaker.allow()  # the cooldown is over: half-open


def test_breaker_half_open_success_closes_it() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(2, 5.0, clock)
    breaker.failure()
    breaker.failure()
    clock.advance(5.0)
    assert breaker.allow()
    breaker.success()
    assert breaker.allow() and not breaker.is_open
    breaker.failure()  # closed again: one failure is below the threshold
    assert breaker.allow()
    breaker.failure()
    assert not breaker.allow()


def test_breaker_half_open_failure_opens_it_again_at_once() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(3, 5.0, clock)
    for _ in range(3):
        breaker.failure()
    clock.advance(5.0)
    assert breaker.allow()
    breaker.failure()  # one failure suffices now
    assert not breaker.allow()
    clock.advance(4.9)
    assert not breaker.allow()  # a whole new cooldown
    clock.advance(0.1)
    assert breaker.allow()


def test_breaker_half_open_lets_only_one_call_through() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(1, 4.0, clock)
    breaker.failure()
    clock.advance(4.0)
    assert breaker.allow()  # the probe
    assert not breaker.allow()  # a second caller before the probe reported back
    assert not breaker.allow()
    clock.advance(3.75)
    assert not breaker.allow()
    clock.advance(0.25)  # the probe never reported back: after a cooldown, another one
    assert breaker.allow()
    assert not breaker.allow()
    breaker.success()
    assert breaker.allow() and breaker.allow()


def test_breaker_with_zero_failures_opens_at_the_first() -> None:
    breaker = CircuitBreaker(0, 5.0, FakeClock())
    assert breaker.allow()
    breaker.failure()
    assert not breaker.allow()


def test_state_cache_behind_the_breaker_stops_calling_a_failing_store() -> None:
    clock = FakeClock()
    store = FlakyStore()
    recorder = Recorder()
    cache = StateCache(store, KEY.encode(), 60, CircuitBreaker(3, 10.0, clock), recorder)
    log = prefix(TWO_DEALS, 2, 6)
    good = cache.replay(parse_log(log))
    assert good.state_id is not None
    assert store.calls == 2  # one lookup, one write
    store.down = True
    for _ in range(4):
        answer = cache.replay(parse_log(log))
        assert arbiter.Replay(answer.match).to_dict() == arbiter.replay(log).to_dict()
        assert answer.state_id == good.state_id
        assert answer.resumed_from is None
    # the lookup and the write of the first replay, the lookup of the second: open after three
    assert store.calls == 2 + 3
    assert recorder.events["error"] == 3
    assert cache.load(good.state_id) is None
    assert store.calls == 5
    assert not cache.reachable()  # the probe bypasses the breaker
    assert store.calls == 6
    clock.advance(10.0)
    store.down = False
    loaded = cache.load(good.state_id)  # half-open: the call goes through and succeeds
    assert loaded is not None
    assert store.calls == 7
    assert cache.replay(parse_log(log)).resumed_from == (2, 6)
    assert store.calls == 8  # a hit at the whole log: nothing to write


# === through the service: cache hits are cold replays ==========================================


def test_examples_answer_the_same_from_the_cache(service: FlaskClient) -> None:
    assert len(EXAMPLES) >= 9
    for path in EXAMPLES:
        log = load_example(path)
        before = cache_events(service)
        first = replay_ok(service, log)
        second = replay_ok(service, log)
        after = cache_events(service)
        assert second["state_id"] == first["state_id"], path.name
        if first["status"] != "invalid":
            assert after["hit"] - before["hit"] == 1, path.name
            assert after["miss"] - before["miss"] == 1, path.name
        # prefixes: the end of every deal, and points inside every deal
        for d, deal in enumerate(log["deals"], 1):
            n = len(deal["events"])
            for k in sorted({0, 1, n // 3, n // 2, n - 1, n} - {-1}):
                replay_ok(service, prefix(log, d, k))
        # and the whole log once more, after all that
        assert replay_ok(service, log)["state_id"] == first["state_id"]
    assert cache_events(service)["error"] == 0
    assert cache_events(service)["rejected"] == 0


@pytest.mark.parametrize("log", [TWO_DEALS, FOUR_P], ids=["tute-2p", "tute-4p"])
def test_the_same_game_written_differently_hits_the_cache(
    service: FlaskClient, log: dict[str, Any]
) -> None:
    first = replay_ok(service, log)
    before = cache_events(service)
    for form in SAME_GAME.values():
        assert replay_ok(service, form(log))["state_id"] == first["state_id"]
    after = cache_events(service)
    assert after["hit"] - before["hit"] == len(SAME_GAME)
    assert after["miss"] == before["miss"]


@pytest.mark.parametrize(("ruleset", "players"), TABLES, ids=[f"{r}-{n}" for r, n in TABLES])
def test_random_games_prefix_by_prefix_hit_the_cache(
    service: FlaskClient, ruleset: str, players: int
) -> None:
    requests = 0
    games = ((1, True), (2, False))
    for seed, finish in games:
        log = game(
            ruleset, players, seed, deals=3, finish_last=finish, renuncio_rate=0.05, stop_after=20
        )
        for d, k in positions_of(log):
            replay_ok(service, prefix(log, d, k))
            requests += 1
        replay_ok(service, log)  # the same log again
        requests += 1
    events = cache_events(service)
    # one cold start per game; every other request resumed from a cached state
    assert events == {"hit": requests - len(games), "miss": len(games), "error": 0, "rejected": 0}


@pytest.mark.parametrize(("ruleset", "players"), TABLES, ids=[f"{r}-{n}" for r, n in TABLES])
def test_a_replay_resumes_from_the_longest_cached_prefix(
    backend: dict[str, Any], ruleset: str, players: int
) -> None:
    cache = build_cache(Settings(**backend).with_(state_key=KEY))
    log = game(ruleset, players, 21, deals=3, renuncio_rate=0.05)
    lengths = [len(d["events"]) for d in log["deals"]]
    last = len(lengths)
    assert last >= 2
    first = cache.replay(parse_log(log))
    assert first.resumed_from is None
    assert arbiter.Replay(first.match).to_dict() == arbiter.replay(log).to_dict()
    # the end of the deal before the last was kept too: a shorter last deal resumes there
    corrected = copy.deepcopy(log)
    del corrected["deals"][-1]["events"][3:]
    again = cache.replay(parse_log(corrected))
    assert again.resumed_from == (last - 1, lengths[-2])
    assert arbiter.Replay(again.match).to_dict() == arbiter.replay(corrected).to_dict()
    earlier = cache.replay(parse_log(prefix(log, last - 1, lengths[-2])))
    assert earlier.resumed_from == (last - 1, lengths[-2])
    parent = cache.replay(parse_log(prefix(log, last, lengths[-1] - 1)))
    assert parent.resumed_from == (last - 1, lengths[-2])
    whole = cache.replay(parse_log(log))
    assert whole.resumed_from == (last, lengths[-1])
    assert whole.state_id == first.state_id
    assert arbiter.Replay(whole.match).to_dict() == arbiter.replay(log).to_dict()


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4), ("tute-cabron", 3), ("tute-gana-pierde", 4)],
)
def test_move_by_move_with_state_ids_matches_full_log_requests(
    service: FlaskClient, ruleset: str, players: int
) -> None:
    log = game(ruleset, players, 40, deals=1, renuncio_rate=0.0, declare_rate=0.7)
    events = log["deals"][0]["events"]
    assert len(events) >= 20
    state_id = replay_ok(service, prefix(log, 1, 0))["state_id"]
    for k, move in enumerate(events):
        before = prefix(log, 1, k)
        by_id = validate(service, {"state_id": state_id, "move": move})
        assert by_id.status_code == 200, by_id.get_data(as_text=True)
        by_log = validate(service, {**before, "move": move})
        assert by_log.status_code == 200
        assert by_id.get_json() == by_log.get_json()  # verdicts and ids alike
        verdict = by_id.get_json()
        assert without_state_id(verdict) == without_state_id(
            arbiter.validate(before, move).to_dict()
        )
        assert verdict["verdict"] == "ok", (k, move)
        after = replay_ok(service, prefix(log, 1, k + 1))
        assert verdict["state_id"] == after["state_id"] == final_id_for(service, log, k + 1)
        state_id = verdict["state_id"]
    # the deal is over: any move now is illegal, by id and by log alike
    move = {"type": "play", "seat": 0, "card": log["deals"][0]["hands"][0][0]}
    by_id = validate(service, {"state_id": state_id, "move": move}).get_json()
    assert by_id == validate(service, {**log, "move": move}).get_json()
    assert by_id == arbiter.validate(log, move).to_dict()
    assert by_id["code"] in {"deal_over", "match_over"}
    n = len(events)
    assert cache_events(service) == {"hit": 3 * n + 2, "miss": 1, "error": 0, "rejected": 0}


def final_id_for(client: FlaskClient, log: Mapping[str, Any], events: int) -> str:
    """The id the service's key gives the state after ``events`` events of the first deal."""
    cache: StateCache = client.application.extensions["arbiter.cache"]
    parsed = parse_log(prefix(log, 1, events))
    chain = cache.ids.chain(parsed)
    return cache.ids.state_id(chain.game, chain.final)


def test_replicas_with_one_key_share_states_and_other_keys_do_not(redis_db: Redis) -> None:
    one = make_client(redis_url=SHARED_URL, state_key=KEY)
    two = make_client(redis_url=SHARED_URL, state_key=KEY)
    other = make_client(redis_url=SHARED_URL, state_key=OTHER_KEY)
    log = game("tute-4p", 4, 6, deals=1, finish_last=False, stop_after=7)
    state_id = replay_ok(one, log)["state_id"]
    assert state_id == final_id(log)
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    answer = validate(two, {"state_id": state_id, "move": move})
    assert answer.status_code == 200
    assert without_state_id(answer.get_json()) == without_state_id(
        arbiter.validate(log, move).to_dict()
    )
    assert_unknown_state(validate(other, {"state_id": state_id, "move": move}))
    assert replay_ok(other, log)["state_id"] != state_id
    # one wrote the state, two the state after the move (shared), other a state of its own
    assert len(redis_db.keys("*")) == 3
    assert cache_events(two)["hit"] == 1


def test_redis_entries_carry_the_ttl(redis_db: Redis) -> None:
    client = make_client(redis_url=SHARED_URL, state_key=KEY, cache_ttl=120)
    log = game("tute-2p", 2, 12, deals=2, finish_last=False, stop_after=4)
    state_id = replay_ok(client, log)["state_id"]
    key = StateCache.storage_key(state_id)
    assert redis_db.exists(key)
    assert 110 <= redis_db.ttl(key) <= 120
    keys = sorted(k.decode() for k in redis_db.keys("*"))
    assert len(keys) == 2  # the whole log and the end of the first deal
    game_tag = state_id.partition(".")[0]
    for k in keys:  # one game, one hash tag (one Redis Cluster slot)
        assert k.startswith(f"tute:{ENGINE_TAG}:{{{game_tag}}}:")


# === settings and readiness =====================================================================

REDIS = SHARED_URL
CLUSTER = "redis://127.0.0.1:7000/0"


@pytest.mark.parametrize(
    "env",
    [
        {"REDIS_URL": REDIS},
        {"REDIS_CLUSTER_URL": CLUSTER},
        {"REDIS_URL": REDIS, "REDIS_CLUSTER_URL": CLUSTER},
        {"ARBITER_CACHE": "redis", "REDIS_URL": REDIS},
        {"ARBITER_CACHE": "cluster", "REDIS_CLUSTER_URL": CLUSTER, "ARBITER_STATE_KEY": ""},
    ],
)
def test_a_shared_cache_without_a_state_key_is_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="needs ARBITER_STATE_KEY") as info:
        Settings.from_env(env)
    assert "same secret on every worker and replica" in str(info.value)


@pytest.mark.parametrize(
    "settings",
    [Settings(redis_url=REDIS), Settings(cache="cluster", redis_cluster_url=CLUSTER)],
    ids=["redis", "cluster"],
)
def test_create_app_refuses_a_shared_cache_without_a_state_key(settings: Settings) -> None:
    with pytest.raises(SettingsError, match="ARBITER_STATE_KEY"):
        create_app(settings)


@pytest.mark.parametrize(
    ("env", "backend", "store"),
    [
        ({}, "memory", MemoryStore),
        ({"ARBITER_CACHE": "memory", "REDIS_URL": REDIS}, "memory", MemoryStore),
        ({"REDIS_URL": REDIS, "ARBITER_STATE_KEY": KEY}, "redis", RedisStore),
        ({"REDIS_CLUSTER_URL": CLUSTER, "ARBITER_STATE_KEY": KEY}, "cluster", RedisClusterStore),
        (
            {"REDIS_URL": REDIS, "REDIS_CLUSTER_URL": CLUSTER, "ARBITER_STATE_KEY": KEY},
            "cluster",
            RedisClusterStore,
        ),
        ({"ARBITER_CACHE": "off", "REDIS_URL": REDIS}, "off", NullStore),
        ({"ARBITER_CACHE": "OFF"}, "off", NullStore),
        ({"ARBITER_CACHE": ""}, "memory", MemoryStore),
    ],
)
def test_the_environment_selects_the_backend(
    env: dict[str, str], backend: str, store: type
) -> None:
    settings = Settings.from_env(env)
    assert settings.cache_backend == backend
    cache = build_cache(settings)  # builds no connection: clients are made on first use
    assert isinstance(cache.store, store)
    assert cache.backend == backend


def test_settings_from_env_reads_the_cache_fields() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": REDIS,
            "ARBITER_STATE_KEY": KEY,
            "ARBITER_CACHE_TTL": "90",
            "ARBITER_CACHE_TIMEOUT": "0.05",
            "ARBITER_BREAKER_FAILURES": "5",
            "ARBITER_BREAKER_COOLDOWN": "0.2",
            "ARBITER_CACHE_MAX_ENTRIES": "7",
        }
    )
    assert (settings.redis_url, settings.state_key) == (REDIS, KEY)
    assert (settings.cache_ttl, settings.cache_timeout) == (90, 0.05)
    assert (settings.breaker_failures, settings.breaker_cooldown) == (5, 0.2)
    assert settings.cache_max_entries == 7


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARBITER_CACHE": "redis"}, "ARBITER_CACHE=redis needs REDIS_URL"),
        ({"ARBITER_CACHE": "cluster", "REDIS_URL": REDIS}, "needs REDIS_CLUSTER_URL"),
        ({"ARBITER_CACHE": "disk"}, "ARBITER_CACHE must be one of auto, memory, redis"),
        ({"ARBITER_CACHE_TTL": "0"}, "must be > 0"),
        ({"ARBITER_CACHE_MAX_ENTRIES": "-1"}, "must be > 0"),
        ({"ARBITER_CACHE_TTL": "soon"}, "ARBITER_CACHE_TTL must be an integer, not 'soon'"),
        ({"ARBITER_BREAKER_COOLDOWN": "x"}, "ARBITER_BREAKER_COOLDOWN must be a number"),
    ],
)
def test_bad_cache_settings_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        Settings.from_env(env)


def test_readyz_reports_the_memory_backend() -> None:
    body = make_client().get("/readyz").get_json()
    assert body == {"status": "ready", "cache": {"backend": "memory", "reachable": True}}


def test_readyz_reports_the_redis_backend(redis_db: Redis) -> None:
    response = make_client(redis_url=SHARED_URL, state_key=KEY).get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "cache": {"backend": "redis", "reachable": True},
    }


def test_readyz_reports_an_unreachable_redis_as_degraded() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = make_client(redis_url=url, state_key=KEY)
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "degraded",
        "cache": {"backend": "redis", "reachable": False},
    }
    replay_ok(client, TWO_DEALS)  # and the service answers anyway
