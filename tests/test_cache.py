"""The replay-state cache (arbiter/cache/): prefix keys, stores, breaker, and the service with it.

- Keys name a log's prefixes by content: whitespace and the order of fields do not matter; any
  other change (a null where a field was absent, another event, another setup, another secret)
  makes other keys. The key of the log with one more event is what ``after(move)`` gives, and the
  key of a whole log is the deal-end key of every longer log: a growing log is found again.
- The in-process store is a bounded LRU with a time to live.
- The circuit breaker opens after N failures, refuses during the cooldown, then lets one call
  through, which closes it (success) or opens it again (failure); an outage is logged once when
  it begins and once when it ends.
- Through the HTTP service, with the memory and the Redis backends: an answer served from the
  cache is exactly the cold replay's, hits really happen (``/metrics``), a client that sends a
  growing log (replays, or full-log validations) hits every time, and replicas with one secret
  share cached states while another secret's are rejected.
- Settings: a shared backend needs ``ARBITER_STATE_KEY``; ``REDIS_URL`` / ``REDIS_CLUSTER_URL``
  / ``ARBITER_CACHE=off`` pick the backend; the policy's ``min_events``; ``/readyz``.

The Redis backend uses the session's throwaway Redis (``redis_db`` of tests/redis_support.py).
"""

from __future__ import annotations

import copy
import json
import logging
import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from redis.exceptions import ConnectionError as RedisConnectionError

import arbiter
from arbiter.api import create_app
from arbiter.cache import DEFAULT_MIN_EVENTS, StateCache, build_cache, prefix_keys
from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.keys import ENGINE_TAG, PrefixKeys
from arbiter.cache.stores import MemoryStore, RedisClusterStore, RedisStore
from arbiter.service import CACHE_PURPOSE
from arbiter.settings import Settings, SettingsError
from arbiter.simulate import random_log
from arbiter.tokens import derive
from tests.api_support import EXAMPLES_DIR, make_client, metric_value
from tests.positions_support import TABLES, prefix, without_state_id
from tests.redis_support import RedisDatabase, free_port

KEY = "cache-tests-key-0123456789abcdef"
OTHER_KEY = "another-key-fedcba9876543210abcd"
SECRET = b"s" * 32
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))
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


def positions_of(log: Mapping[str, Any]) -> list[Position]:
    """Every position of a log in order: (deals started, events of the last one)."""
    return [
        (d, k) for d, deal in enumerate(log["deals"], 1) for k in range(len(deal["events"]) + 1)
    ]


def keys_of(log: Mapping[str, Any], secret: bytes = SECRET) -> PrefixKeys:
    keys = prefix_keys(secret, log)
    assert keys is not None
    return keys


def whole_key(log: Mapping[str, Any], secret: bytes = SECRET) -> str:
    return keys_of(log, secret).whole


def all_keys(log: Mapping[str, Any], secret: bytes = SECRET) -> dict[Position, str]:
    """The key of every prefix of ``log``."""
    return {(d, k): whole_key(prefix(log, d - 1, k), secret) for d, k in positions_of(log)}


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
    assert (body["state_id"] is None) is (body["status"] == "invalid")
    return body


def validate(client: FlaskClient, body: Mapping[str, Any]) -> Any:
    return client.post("/v1/moves/validate", json=body)


def reversed_keys(value: Any) -> Any:
    """``value`` with the keys of every object in reverse order."""
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


# --- backends -----------------------------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The Settings fields of one cache backend (Redis: the tests' own database), with the
    policy at 0 so that every log goes through the cache. These tests count every hit and
    miss, so a reply that a loaded 2-core machine delays past the service's 0.1 s default must
    not count as the backend's failure: timeouts have tests of their own (test_operations)."""
    if request.param == "redis":
        database: RedisDatabase = request.getfixturevalue("redis_db")
        return {
            "redis_url": database.url,
            "state_key": KEY,
            "cache_min_events": 0,
            "cache_timeout": 10.0,
        }
    return {"cache": "memory", "cache_min_events": 0}


@pytest.fixture
def service(backend: dict[str, Any]) -> FlaskClient:
    """A client of the service (not checked against the contract, which tests/test_api.py
    does: these tests send hundreds of requests)."""
    return create_app(Settings(**backend)).test_client()


# === prefix keys ================================================================================

TWO_DEALS = game("tute-2p", 2, 11, deals=2, finish_last=False, stop_after=17)
FOUR_P = game("tute-4p", 4, 5, deals=2, finish_last=False, stop_after=9)
GANA_PIERDE = game("tute-gana-pierde", 5, 8, deals=1, finish_last=False, stop_after=23)
KEY_FORMAT = re.compile(rf"tute:{ENGINE_TAG}:\{{[0-9a-f]{{10}}\}}:[0-9a-f]{{32}}")


def test_keys_name_every_prefix_apart_and_share_the_game_tag() -> None:
    keys = all_keys(TWO_DEALS)
    assert len(set(keys.values())) == len(keys), "two prefixes of one log share a key"
    assert all(KEY_FORMAT.fullmatch(k) for k in keys.values())
    assert len({k.split("}")[0] for k in keys.values()}) == 1  # one game, one hash slot


def test_the_lookups_are_the_whole_log_its_parent_and_every_deal_end() -> None:
    log = game("tute-2p", 2, 4, deals=3, finish_last=False, stop_after=6)
    lengths = [len(d["events"]) for d in log["deals"]]
    keys = keys_of(log)
    assert [p for p, _ in keys.lookups] == [(3, 6), (3, 5), (2, lengths[1]), (1, lengths[0])]
    every = all_keys(log)
    assert all(key == every[p] for p, key in keys.lookups)
    assert [p for p, _ in keys_of(prefix(log, 1, 0)).lookups] == [(2, 0), (1, lengths[0])]


@pytest.mark.parametrize("log", [TWO_DEALS, FOUR_P, GANA_PIERDE], ids=["2p", "4p", "gp5"])
def test_after_a_move_is_the_key_of_the_longer_log(log: dict[str, Any]) -> None:
    every = all_keys(log)
    checked = 0
    for d, k in positions_of(log):
        events = log["deals"][d - 1]["events"]
        if k == len(events):
            continue
        assert keys_of(prefix(log, d - 1, k)).after(events[k]) == every[(d, k + 1)]
        checked += 1
    assert checked == sum(len(d["events"]) for d in log["deals"])


def test_whitespace_and_the_order_of_fields_do_not_change_keys() -> None:
    other = reversed_keys(TWO_DEALS)
    assert json.dumps(other) != json.dumps(TWO_DEALS)
    assert all_keys(other) == all_keys(TWO_DEALS)
    spaced = json.loads(json.dumps(TWO_DEALS, indent=3))
    assert all_keys(spaced) == all_keys(TWO_DEALS)


def _changes() -> dict[str, tuple[dict[str, Any], Position]]:
    """Changed logs, each with the first position whose key must differ."""

    def changed(edit: Any, log: dict[str, Any] = TWO_DEALS) -> dict[str, Any]:
        out = copy.deepcopy(log)
        edit(out)
        return out

    return {
        "an option": (changed(lambda b: b.update(options={"match_target": 5})), (1, 0)),
        "an option at its default": (changed(lambda b: b.update(options={})), (1, 0)),
        "a player renamed": (changed(lambda b: b["players"].__setitem__(1, "x")), (1, 0)),
        "notation null": (changed(lambda b: b.update(notation=None)), (1, 0)),
        "notation spanish": (changed(lambda b: b.update(notation="spanish")), (1, 0)),
        "the first dealer": (changed(lambda b: b["deals"][0].update(dealer=0)), (1, 0)),
        "a card of the second deal": (
            changed(lambda b: b["deals"][1]["hands"][0].reverse()),
            (2, 0),
        ),
        "an event of the first deal": (
            changed(lambda b: b["deals"][0]["events"][13].update(seat=9)),
            (1, 14),
        ),
        "an event of the second deal": (
            changed(lambda b: b["deals"][1]["events"][5].update(card="1o")),
            (2, 6),
        ),
        "a field on an event": (
            changed(lambda b: b["deals"][1]["events"][0].update(note=1)),
            (2, 1),
        ),
    }


@pytest.mark.parametrize("change", list(_changes()))
def test_any_other_change_changes_the_keys_from_there_on(change: str) -> None:
    other, first = _changes()[change]
    ours, theirs = all_keys(TWO_DEALS), all_keys(other)
    for position in ours:
        if position < first:
            assert ours[position] == theirs[position], position
        else:
            assert ours[position] != theirs[position], position


def test_another_secret_gives_other_keys() -> None:
    ours, theirs = all_keys(TWO_DEALS), all_keys(TWO_DEALS, b"t" * 32)
    assert not set(ours.values()) & set(theirs.values())


@pytest.mark.parametrize(
    "log",
    [
        [1],
        {"deals": "x"},
        {"deals": []},
        {"deals": [1]},
        {"deals": [{"events": "x"}]},
        {"deals": [{"events": None}]},
    ],
)
def test_what_is_not_shaped_like_a_log_has_no_keys(log: Any) -> None:
    assert prefix_keys(SECRET, log) is None


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


def test_state_cache_values_are_tagged_and_expire_with_the_ttl() -> None:
    clock = FakeClock()
    recorder = Recorder()
    store = MemoryStore(100, clock=clock)
    cache = StateCache(store, SECRET, 30, CircuitBreaker(3, 5), 0, recorder)
    cache.keep({"k1": b"snapshot one"})
    [value] = store.get_many(["k1"])
    assert value is not None and value.endswith(b"snapshot one") and len(value) == 16 + 12
    clock.advance(29.5)
    assert cache.load_first(["k0", "k1"]) == (1, b"snapshot one")
    assert recorder.events == {}  # a hit is counted once the caller has used the value
    store.put_many({"k2": value}, 30)  # a genuine value under another key
    assert cache.load_first(["k2"]) is None
    clock.advance(0.5)
    assert cache.load_first(["k1"]) is None
    assert recorder.events == {"rejected": 1, "miss": 2}


def test_the_memory_cache_stays_within_its_bound() -> None:
    client = make_client(cache="memory", cache_max_entries=5, cache_min_events=0)
    log = game("tute-3p", 3, 2, deals=1)
    for k in range(12):
        replay_ok(client, prefix(log, 0, k))
    referee = client.application.extensions["arbiter.referee"]
    store = referee.cache.store
    assert isinstance(store, MemoryStore)
    assert len(store) == 5
    before = cache_events(client)
    replay_ok(client, prefix(log, 0, 11))  # one of the newest
    replay_ok(client, prefix(log, 0, 1))  # evicted long ago
    after = cache_events(client)
    assert (after["hit"] - before["hit"], after["miss"] - before["miss"]) == (1, 1)


def test_cache_off_answers_correctly_and_tokens_still_work() -> None:
    client = make_client(cache="off")
    assert client.get("/readyz").get_json() == {
        "status": "ready",
        "cache": {"backend": "off", "reachable": True},
    }
    log = game("tute-4p", 4, 3, deals=1, finish_last=False, stop_after=12)
    body = replay_ok(client, log)
    move = body["next"]["legal_moves"][0]
    answer = validate(client, {"state_id": body["state_id"], "move": move})
    assert answer.status_code == 200
    assert without_state_id(answer.get_json()) == without_state_id(
        arbiter.validate(log, move).to_dict()
    )
    assert cache_events(client) == {"hit": 0, "miss": 0, "error": 0, "rejected": 0}


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
    assert not breaker.failure()
    assert not breaker.failure()
    assert breaker.allow() and not breaker.is_open
    assert not breaker.success()  # not consecutive: counting starts again; no outage ended
    breaker.failure()
    breaker.failure()
    assert breaker.allow()
    assert breaker.failure()  # this one opens it: an outage begins
    assert breaker.is_open
    assert not breaker.allow()
    assert not breaker.failure()  # still the same outage


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


def test_breaker_half_open_success_closes_it_and_ends_the_outage() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(2, 5.0, clock)
    breaker.failure()
    breaker.failure()
    clock.advance(5.0)
    assert breaker.allow()
    assert breaker.success()
    assert not breaker.success()
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
    assert not breaker.failure()  # one failure suffices now, and it is the same outage
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
    assert breaker.failure()
    assert not breaker.allow()


def test_an_outage_is_logged_once_when_it_begins_and_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    store = FlakyStore()
    recorder = Recorder()
    cache = StateCache(store, SECRET, 60, CircuitBreaker(3, 10.0, clock), 0, recorder)
    referee = arbiter.Referee(cache=cache)
    log = prefix(TWO_DEALS, 1, 6)
    caplog.set_level(logging.INFO, logger="arbiter.cache")
    referee.replay(log)
    assert store.calls == 2  # one lookup, one write
    store.down = True
    for _ in range(30):  # many requests, retries after cooldowns, failed probes: one outage
        assert without_state_id(referee.replay(log).to_dict()) == cold(log)
        clock.advance(1.0)
    assert store.calls < 2 + 3 + 30 // 10 * 2 + 2  # the breaker stopped most calls
    assert recorder.events["error"] >= 3
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "state cache (flaky) unreachable" in warnings[0].getMessage()
    assert not [r for r in caplog.records if r.levelno == logging.INFO]
    store.down = False
    clock.advance(10.0)
    for _ in range(5):
        referee.replay(log)
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert [r.getMessage() for r in infos] == ["state cache (flaky) reachable again"]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    assert recorder.events["hit"] >= 4  # caching resumed


# === through the service: cache hits are cold replays ==========================================


def test_examples_answer_the_same_from_the_cache(service: FlaskClient) -> None:
    assert len(EXAMPLES) >= 9
    for path in EXAMPLES:
        log = load_example(path)
        before = cache_events(service)
        replay_ok(service, log)
        replay_ok(service, log)
        after = cache_events(service)
        valid = arbiter.replay(log).to_dict()["status"] != "invalid"
        assert after["hit"] - before["hit"] == int(valid), path.name
        # prefixes: the end of every deal, and points inside every deal
        for d, deal in enumerate(log["deals"]):
            n = len(deal["events"])
            for k in sorted({0, 1, n // 3, n // 2, n - 1, n} - {-1}):
                replay_ok(service, prefix(log, d, k))
        replay_ok(service, log)  # and the whole log once more, after all that
    assert cache_events(service)["error"] == 0
    assert cache_events(service)["rejected"] == 0


@pytest.mark.slow
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
            replay_ok(service, prefix(log, d - 1, k))
            requests += 1
        replay_ok(service, log)  # the same log again
        requests += 1
    events = cache_events(service)
    # one cold start per game; every other request resumed from a cached state
    assert events == {"hit": requests - len(games), "miss": len(games), "error": 0, "rejected": 0}


@pytest.mark.parametrize(("ruleset", "players"), TABLES, ids=[f"{r}-{n}" for r, n in TABLES])
def test_full_log_validation_move_by_move_hits_every_time(
    service: FlaskClient, ruleset: str, players: int
) -> None:
    log = game(ruleset, players, 40, deals=2, renuncio_rate=0.0, declare_rate=0.7)
    steps = 0
    for d, raw in enumerate(log["deals"]):
        for k, move in enumerate(raw["events"]):
            before = prefix(log, d, k)
            answer = validate(service, {**before, "move": move})
            assert answer.status_code == 200, answer.get_data(as_text=True)
            expected = arbiter.validate(before, move).to_dict()
            assert without_state_id(answer.get_json()) == without_state_id(expected)
            steps += 1
    events = cache_events(service)
    # the first request misses; each next log is the last one plus its move, kept under the key
    # of the longer log; the first move of the second deal finds the end of the first deal
    assert events == {"hit": steps - 1, "miss": 1, "error": 0, "rejected": 0}


@pytest.mark.parametrize(("ruleset", "players"), TABLES, ids=[f"{r}-{n}" for r, n in TABLES])
def test_a_replay_resumes_from_the_longest_cached_prefix(
    backend: dict[str, Any], ruleset: str, players: int
) -> None:
    recorder = Recorder()
    settings = Settings(**{**backend, "state_key": KEY})
    referee = arbiter.Referee.from_settings(settings, recorder)
    log = game(ruleset, players, 21, deals=3, renuncio_rate=0.05)
    lengths = [len(d["events"]) for d in log["deals"]]
    last = len(lengths)
    assert last >= 2
    replays = [prefix(log, last - 2, lengths[-2]), log]
    for each in replays:  # each is kept
        assert without_state_id(referee.replay(each).to_dict()) == cold(each)
    assert recorder.events == {"miss": 1, "hit": 1}  # the second resumed from the first
    # a shorter last deal resumes from the end of the deal before
    corrected = copy.deepcopy(log)
    del corrected["deals"][-1]["events"][3:]
    assert without_state_id(referee.replay(corrected).to_dict()) == cold(corrected)
    whole = referee.replay(log)
    assert whole.match.progress == (last, lengths[-1])
    assert without_state_id(whole.to_dict()) == cold(log)
    assert recorder.events == {"miss": 1, "hit": 3}


def test_replicas_with_one_secret_share_states_and_others_are_rejected(
    redis_db: RedisDatabase,
) -> None:
    one = make_client(redis_url=redis_db.url, state_key=KEY, cache_min_events=0)
    two = make_client(redis_url=redis_db.url, state_key=KEY, cache_min_events=0)
    other = make_client(redis_url=redis_db.url, state_key=OTHER_KEY, cache_min_events=0)
    log = game("tute-4p", 4, 6, deals=1, finish_last=False, stop_after=7)
    token = replay_ok(one, log)["state_id"]
    replay_ok(two, log)
    assert cache_events(two)["hit"] == 1  # written by one, read by two
    replay_ok(other, log)  # another secret: other keys, so a miss, never a wrong state
    assert cache_events(other) == {"hit": 0, "miss": 1, "error": 0, "rejected": 0}
    ours = whole_key(log, derive(KEY, CACHE_PURPOSE))
    theirs = whole_key(log, derive(OTHER_KEY, CACHE_PURPOSE))
    assert sorted(k.decode() for k in redis_db.own_keys()) == sorted([ours, theirs])
    # a genuine value of one secret, copied under the other's key, fails its tag
    redis_db.set(theirs, redis_db.get(ours) or b"")
    replay_ok(other, log)
    assert cache_events(other)["rejected"] == 1
    # tokens are not in Redis at all: the same secret opens them anywhere
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    assert validate(two, {"state_id": token, "move": move}).status_code == 200
    assert validate(other, {"state_id": token, "move": move}).status_code == 409


def test_redis_entries_carry_the_ttl_and_one_hash_tag(redis_db: RedisDatabase) -> None:
    client = make_client(redis_url=redis_db.url, state_key=KEY, cache_ttl=120, cache_min_events=0)
    log = game("tute-2p", 2, 12, deals=2, finish_last=False, stop_after=4)
    replay_ok(client, log)
    replay_ok(client, prefix(log, 1, 3))
    keys = sorted(k.decode() for k in redis_db.own_keys())
    assert len(keys) == 2
    for key in keys:
        assert 110 <= redis_db.ttl(key) <= 120
        assert KEY_FORMAT.fullmatch(key)
    assert len({k.split("}")[0] for k in keys}) == 1  # one game, one Redis Cluster slot


def test_below_min_events_the_cache_is_skipped() -> None:
    client = make_client(cache="memory", cache_min_events=30)
    short = game("tute-2p", 2, 3, deals=1, finish_last=False, stop_after=29)
    long = game("tute-2p", 2, 3, deals=1, finish_last=False, stop_after=30)
    for _ in range(3):
        replay_ok(client, short)
    assert cache_events(client) == {"hit": 0, "miss": 0, "error": 0, "rejected": 0}
    for _ in range(3):
        replay_ok(client, long)
    assert cache_events(client) == {"hit": 2, "miss": 1, "error": 0, "rejected": 0}


# === settings and readiness =====================================================================

#: Settings only: nothing connects to these.
REDIS = "redis://redis.test:6380/0"
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
        ({"ARBITER_CACHE": "off", "REDIS_URL": REDIS}, "off", None),
        ({"ARBITER_CACHE": "OFF"}, "off", None),
        ({"ARBITER_CACHE": ""}, "memory", MemoryStore),
    ],
)
def test_the_environment_selects_the_backend(
    env: dict[str, str], backend: str, store: type | None
) -> None:
    settings = Settings.from_env(env)
    assert settings.cache_backend == backend
    cache = build_cache(settings, SECRET)  # builds no connection: clients are made on first use
    if store is None:
        assert cache is None
        return
    assert cache is not None
    assert isinstance(cache.store, store)
    assert cache.backend == backend
    assert cache.min_events == DEFAULT_MIN_EVENTS[arbiter.BUILD][backend]


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
            "ARBITER_CACHE_MIN_EVENTS": "12",
        }
    )
    assert (settings.redis_url, settings.state_key) == (REDIS, KEY)
    assert (settings.cache_ttl, settings.cache_timeout) == (90, 0.05)
    assert (settings.breaker_failures, settings.breaker_cooldown) == (5, 0.2)
    assert settings.cache_max_entries == 7
    cache = build_cache(settings, SECRET)
    assert cache is not None and cache.min_events == 12
    assert Settings.from_env({"ARBITER_CACHE_MIN_EVENTS": ""}).cache_min_events is None


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
        ({"ARBITER_CACHE_MIN_EVENTS": "many"}, "ARBITER_CACHE_MIN_EVENTS must be an integer"),
    ],
)
def test_bad_cache_settings_are_refused(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        Settings.from_env(env)


def test_readyz_reports_the_memory_backend() -> None:
    body = make_client().get("/readyz").get_json()
    assert body == {"status": "ready", "cache": {"backend": "memory", "reachable": True}}


def test_readyz_reports_the_redis_backend(redis_db: RedisDatabase) -> None:
    response = make_client(redis_url=redis_db.url, state_key=KEY).get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "cache": {"backend": "redis", "reachable": True},
    }


def test_readyz_reports_an_unreachable_redis_as_degraded() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = make_client(redis_url=url, state_key=KEY, cache_min_events=0)
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "degraded",
        "cache": {"backend": "redis", "reachable": False},
    }
    replay_ok(client, TWO_DEALS)  # and the service answers anyway
