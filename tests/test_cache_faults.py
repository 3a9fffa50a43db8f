"""The replay-state cache against real Redis servers that misbehave.

A poisoned, emptied, dead or frozen cache may cost a replay, never change an answer:

- tampered values (bytes flipped, truncated, copied to another state's key, written by another
  engine version or with another key) are ignored and counted as ``rejected``; the full log is
  answered exactly, the poisoned ``state_id`` alone gets 409, and the next full-log request
  writes the genuine value back;
- entries evicted (FLUSHDB) mid-game: full-log requests are right, ``state_id`` alone gets 409,
  and caching resumes;
- a private ``redis-server`` killed (or frozen with SIGSTOP) mid-game: every full-log request is
  still right and fast (100 ms timeouts, circuit breaker), ``state_id`` alone gets 409,
  ``/readyz`` says degraded; once it is back and the breaker's cooldown has passed, caching
  resumes;
- a Redis Cluster URL that names a plain Redis fails as softly (tests/test_cache_cluster.py
  covers real clusters).

Loopback only: the shared server on 127.0.0.1:6379 (database
:data:`tests.redis_support.TEST_DB`) and private servers on free 127.0.0.1 ports.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from flask.testing import FlaskClient
from redis import Redis

import arbiter
from arbiter.api import create_app
from arbiter.cache import StateCache
from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.ids import ENGINE_TAG, StateIds
from arbiter.cache.stores import MemoryStore
from arbiter.engine.log import parse_log
from arbiter.engine.snapshot import MAGIC, SNAPSHOT_VERSION
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests import redis_support
from tests.api_support import PROBLEM_JSON, metric_value
from tests.redis_support import SHARED_URL, RedisProcess, free_port

# the fixtures of tests/redis_support.py
redis_db = redis_support.redis_db
private_redis = redis_support.private_redis

KEY = "cache-faults-key-0123456789abcdef"
OTHER_KEY = "some-other-deployment-key-0000000"
COOLDOWN = 0.5  # breaker cooldown of these tests, in seconds
TIMEOUT = 0.1  # the Redis timeout (the default)
#: the longest a full-log request may take while Redis is down or frozen: one lookup and one
#: write that time out, plus the replay itself, with room for a slow CI machine
SLOW_REQUEST = 2 * TIMEOUT + 0.4
TAG, CHAIN = 16, 32  # bytes of a value's tag and chain value; the snapshot follows


# --- helpers ------------------------------------------------------------------------------------


def game(ruleset: str, players: int, seed: int, **kwargs: Any) -> dict[str, Any]:
    return random_log(ruleset, random.Random(seed), players=players, **kwargs)


def prefix(log: Mapping[str, Any], deals: int, events: int) -> dict[str, Any]:
    """``log`` cut after ``events`` events of its deal number ``deals`` (1-based)."""
    out = copy.deepcopy(dict(log))
    out["deals"] = out["deals"][:deals]
    out["deals"][-1]["events"] = out["deals"][-1]["events"][:events]
    return out


def without_state_id(body: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "state_id"}


def cache_events(client: FlaskClient) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    return {
        kind: metric_value(text, "arbiter_cache_events_total", kind=kind)
        for kind in ("hit", "miss", "error", "rejected")
    }


def delta(after: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    return {k: after[k] - before[k] for k in after}


def replay_ok(client: FlaskClient, log: Mapping[str, Any]) -> str:
    """POST the log: 200 and exactly the cold answer; its state id."""
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert without_state_id(body) == without_state_id(arbiter.replay(log).to_dict())
    assert isinstance(body["state_id"], str)
    state_id: str = body["state_id"]
    return state_id


def validate_by_id(client: FlaskClient, state_id: str, move: Mapping[str, Any]) -> Any:
    return client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})


def assert_unknown_state(response: Any) -> None:
    assert response.status_code == 409, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM_JSON
    assert response.get_json()["type"].endswith("/unknown-state")


def assert_accepted(
    client: FlaskClient, state_id: str, log: Mapping[str, Any], move: Mapping[str, Any]
) -> str:
    """``state_id`` names the end of ``log``: ``move`` is judged as on the full log."""
    response = validate_by_id(client, state_id, move)
    assert response.status_code == 200, response.get_data(as_text=True)
    verdict = response.get_json()
    assert without_state_id(verdict) == without_state_id(arbiter.validate(log, move).to_dict())
    assert verdict["verdict"] == "ok"
    new_id: str = verdict["state_id"]
    return new_id


def retag(key: str, state_id: str, chain: bytes, snapshot: bytes) -> bytes:
    """A value as a writer holding ``key`` makes it: tag ‖ chain ‖ snapshot (arbiter/cache)."""
    data = b"value" + state_id.encode() + chain + snapshot
    return hmac.new(key.encode(), data, hashlib.sha256).digest()[:TAG] + chain + snapshot


def expected_id(log: Mapping[str, Any]) -> str:
    """The id of the state at the end of ``log`` under :data:`KEY`."""
    ids = StateIds(KEY.encode())
    chain = ids.chain(parse_log(log))
    return ids.state_id(chain.game, chain.final)


def shared_client(**extra: Any) -> FlaskClient:
    settings = Settings(redis_url=SHARED_URL, state_key=KEY, breaker_cooldown=COOLDOWN, **extra)
    return create_app(settings).test_client()


# === tampered values ============================================================================

#: a tute-2p deal, validated up to event 14
GAME = game("tute-2p", 2, 77, deals=1, renuncio_rate=0.0)
AT = 14


def _flip(index: int) -> Callable[[bytes], bytes]:
    def flip(value: bytes) -> bytes:
        out = bytearray(value)
        out[index] ^= 0x01
        return bytes(out)

    return flip


def _other_version(value: bytes, state_id: str) -> bytes:
    """The same state written by an engine with another snapshot version (and the same key)."""
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    assert snapshot[:5] == MAGIC + bytes([SNAPSHOT_VERSION])
    assert retag(KEY, state_id, chain, snapshot) == value  # the writer is genuine
    return retag(KEY, state_id, chain, MAGIC + bytes([SNAPSHOT_VERSION + 1]) + snapshot[5:])


def _other_magic(value: bytes, state_id: str) -> bytes:
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    return retag(KEY, state_id, chain, b"PKL\x00" + snapshot[4:])


def _garbage_body(value: bytes, state_id: str) -> bytes:
    """A genuine tag over a snapshot header and a body that is not the engine's MessagePack."""
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    return retag(KEY, state_id, chain, snapshot[:5] + b"\x93\x01\x02\x03")


def _truncated_body(value: bytes, state_id: str) -> bytes:
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    return retag(KEY, state_id, chain, snapshot[: len(snapshot) // 2])


def _other_key(value: bytes, state_id: str) -> bytes:
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    return retag(OTHER_KEY, state_id, chain, snapshot)


TAMPERS: dict[str, Callable[[bytes, str], bytes]] = {
    "tag byte flipped": lambda v, _: _flip(0)(v),
    "last tag byte flipped": lambda v, _: _flip(TAG - 1)(v),
    "chain byte flipped": lambda v, _: _flip(TAG + 7)(v),
    "magic byte flipped": lambda v, _: _flip(TAG + CHAIN)(v),
    "version byte flipped": lambda v, _: _flip(TAG + CHAIN + 4)(v),
    "snapshot body byte flipped": lambda v, _: _flip(len(v) - 1)(v),
    "snapshot middle byte flipped": lambda v, _: _flip(TAG + CHAIN + (len(v) - TAG - CHAIN) // 2)(
        v
    ),
    "truncated": lambda v, _: v[: len(v) - 3],
    "only the tag": lambda v, _: v[:TAG],
    "tag and chain only": lambda v, _: v[: TAG + CHAIN],
    "empty": lambda v, _: b"",
    "a byte appended": lambda v, _: v + b"\x00",
    "another engine version, tagged with the key": _other_version,
    "another magic, tagged with the key": _other_magic,
    "a corrupt body, tagged with the key": _garbage_body,
    "a truncated body, tagged with the key": _truncated_body,
    "written with another key": _other_key,
}


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_a_tampered_value_is_rejected_and_answers_stay_exact(redis_db: Redis, tamper: str) -> None:
    client = shared_client()
    parent_id = replay_ok(client, prefix(GAME, 1, AT - 1))
    state_id = replay_ok(client, prefix(GAME, 1, AT))
    key = StateCache.storage_key(state_id)
    genuine = redis_db.get(key)
    assert genuine is not None
    assert redis_db.get(StateCache.storage_key(parent_id)) is not None
    poisoned = TAMPERS[tamper](genuine, state_id)
    assert poisoned != genuine
    redis_db.set(key, poisoned)
    move = GAME["deals"][0]["events"][AT]
    before = cache_events(client)
    # the id alone: the poisoned value is refused
    assert_unknown_state(validate_by_id(client, state_id, move))
    assert delta(cache_events(client), before) == {
        "hit": 0,
        "miss": 0,
        "error": 0,
        "rejected": 1,
    }
    # the full log: exact, resumed from the parent state, and the genuine value written back
    assert replay_ok(client, prefix(GAME, 1, AT)) == state_id
    assert delta(cache_events(client), before) == {
        "hit": 1,
        "miss": 0,
        "error": 0,
        "rejected": 2,
    }
    assert redis_db.get(key) == genuine
    assert_accepted(client, state_id, prefix(GAME, 1, AT), move)


def test_a_value_copied_to_another_states_key_is_rejected(redis_db: Redis) -> None:
    client = shared_client()
    ids = [replay_ok(client, prefix(GAME, 1, k)) for k in range(AT + 1)]
    values = [redis_db.get(StateCache.storage_key(i)) for i in ids]
    assert all(v is not None for v in values)
    # every state's key now holds the value of the state before it
    for i in range(1, len(ids)):
        redis_db.set(StateCache.storage_key(ids[i]), values[i - 1])
    before = cache_events(client)
    for k in range(1, AT + 1):
        assert_unknown_state(validate_by_id(client, ids[k], GAME["deals"][0]["events"][k]))
    assert delta(cache_events(client), before)["rejected"] == AT
    # a full log cannot resume from a copied value either (the whole log, then its parent)
    assert replay_ok(client, prefix(GAME, 1, AT)) == ids[AT]
    after = delta(cache_events(client), before)
    assert after == {"hit": 0, "miss": 1, "error": 0, "rejected": AT + 2}
    # the state at event 0 was not touched: the game can be validated again from there
    state_id = ids[0]
    for k in range(AT):
        state_id = assert_accepted(
            client, state_id, prefix(GAME, 1, k), GAME["deals"][0]["events"][k]
        )
        assert state_id == ids[k + 1]


def test_a_copy_from_another_game_is_rejected(redis_db: Redis) -> None:
    client = shared_client()
    other = game("tute-2p", 2, 78, deals=1, finish_last=False, stop_after=AT)
    other_value = redis_db.get(StateCache.storage_key(replay_ok(client, other)))
    state_id = replay_ok(client, prefix(GAME, 1, AT))
    assert other_value is not None
    redis_db.set(StateCache.storage_key(state_id), other_value)
    before = cache_events(client)
    assert_unknown_state(validate_by_id(client, state_id, GAME["deals"][0]["events"][AT]))
    assert replay_ok(client, prefix(GAME, 1, AT)) == state_id
    assert delta(cache_events(client), before) == {
        "hit": 0,
        "miss": 1,
        "error": 0,
        "rejected": 2,
    }


def test_states_written_under_another_engine_version_are_never_read(redis_db: Redis) -> None:
    """Keys carry the engine tag: another version's entries live under other names."""
    client = shared_client()
    state_id = replay_ok(client, prefix(GAME, 1, AT))
    key = StateCache.storage_key(state_id)
    assert key.startswith(f"tute:{ENGINE_TAG}:")
    value = redis_db.get(key)
    assert value is not None
    redis_db.delete(key)
    redis_db.set(key.replace(f"tute:{ENGINE_TAG}:", "tute:s0:"), value)
    before = cache_events(client)
    assert_unknown_state(validate_by_id(client, state_id, GAME["deals"][0]["events"][AT]))
    assert delta(cache_events(client), before) == {
        "hit": 0,
        "miss": 1,
        "error": 0,
        "rejected": 0,
    }


def test_a_poisoned_deal_boundary_costs_a_replay_not_a_verdict(redis_db: Redis) -> None:
    client = shared_client()
    log = game("tute-4p", 4, 12, deals=3, renuncio_rate=0.1, finish_last=False, stop_after=9)
    assert len(log["deals"]) == 3
    replay_ok(client, log)  # keeps the whole log and the end of the second deal
    keys = sorted(redis_db.keys("*"))
    assert len(keys) == 2
    for k in keys:  # poison both
        value = redis_db.get(k)
        assert value is not None
        redis_db.set(k, value[:-1] + bytes([value[-1] ^ 0xFF]))
    corrected = prefix(log, 3, 5)
    before = cache_events(client)
    replay_ok(client, corrected)
    # looked up: (3, 5), (3, 4), the poisoned end of deal 2, the end of deal 1 (never kept)
    assert delta(cache_events(client), before) == {
        "hit": 0,
        "miss": 1,
        "error": 0,
        "rejected": 1,
    }


# === evicted entries ============================================================================


def test_flushdb_mid_game_costs_replays_and_caching_resumes(redis_db: Redis) -> None:
    client = shared_client()
    log = game("tute-3p", 3, 5, deals=1, renuncio_rate=0.0)
    events = log["deals"][0]["events"]
    state_id = replay_ok(client, prefix(log, 1, 0))
    ids = [state_id]
    for k in range(10):
        state_id = assert_accepted(client, state_id, prefix(log, 1, k), events[k])
        ids.append(state_id)
    redis_db.flushdb()
    before = cache_events(client)
    for k, old in enumerate(ids):
        assert_unknown_state(validate_by_id(client, old, events[k]))
    assert delta(cache_events(client), before) == {
        "hit": 0,
        "miss": len(ids),
        "error": 0,
        "rejected": 0,
    }
    # full logs are answered exactly, with the same ids as before the flush
    assert replay_ok(client, prefix(log, 1, 10)) == ids[10]
    full = client.post("/v1/moves/validate", json={**prefix(log, 1, 10), "move": events[10]})
    assert full.status_code == 200
    verdict = full.get_json()
    expected = arbiter.validate(prefix(log, 1, 10), events[10]).to_dict()
    assert without_state_id(verdict) == without_state_id(expected)
    # and caching resumes: the rest of the deal by state_id alone
    state_id = verdict["state_id"]
    for k in range(11, len(events)):
        state_id = assert_accepted(client, state_id, prefix(log, 1, k), events[k])
    assert replay_ok(client, log) == state_id
    after = delta(cache_events(client), before)
    # hits: the full-log validation at event 10, the rest of the deal by id, the whole log
    assert after["hit"] == 1 + (len(events) - 11) + 1
    assert after["miss"] == len(ids) + 1  # the old ids, and the first full log after the flush


def test_an_evicted_state_is_rebuilt_from_its_parent(redis_db: Redis) -> None:
    client = shared_client()
    ids = [replay_ok(client, prefix(GAME, 1, k)) for k in range(AT + 1)]
    redis_db.delete(StateCache.storage_key(ids[AT]))
    before = cache_events(client)
    assert_unknown_state(validate_by_id(client, ids[AT], GAME["deals"][0]["events"][AT]))
    assert replay_ok(client, prefix(GAME, 1, AT)) == ids[AT]
    assert delta(cache_events(client), before) == {
        "hit": 1,
        "miss": 1,
        "error": 0,
        "rejected": 0,
    }
    assert_accepted(client, ids[AT], prefix(GAME, 1, AT), GAME["deals"][0]["events"][AT])


# === Redis killed, frozen, restarted ============================================================


def private_client(server: RedisProcess, **extra: Any) -> FlaskClient:
    settings = Settings(
        redis_url=server.url, state_key=KEY, breaker_cooldown=COOLDOWN, breaker_failures=3, **extra
    )
    return create_app(settings).test_client()


def timed_replay(client: FlaskClient, log: Mapping[str, Any]) -> tuple[str, float]:
    started = time.perf_counter()
    state_id = replay_ok(client, log)
    return state_id, time.perf_counter() - started


def readyz(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/readyz")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


DEGRADED = {"status": "degraded", "cache": {"backend": "redis", "reachable": False}}
READY = {"status": "ready", "cache": {"backend": "redis", "reachable": True}}


def test_redis_killed_mid_game_then_restarted(private_redis: RedisProcess) -> None:
    client = private_client(private_redis)
    log = game("tute-4p", 4, 9, deals=2, renuncio_rate=0.05)
    deal = len(log["deals"])
    events = log["deals"][-1]["events"]
    n = len(events)
    assert readyz(client) == READY
    ids = [replay_ok(client, prefix(log, deal, k)) for k in range(10)]
    assert_accepted(client, ids[9], prefix(log, deal, 9), events[9])
    assert cache_events(client)["error"] == 0

    private_redis.kill()
    down_since = time.monotonic()
    # every full-log request is answered exactly (with the id it always had), and fast
    slowest = 0.0
    for k in range(10, 25):
        state_id, seconds = timed_replay(client, prefix(log, deal, k))
        assert state_id == expected_id(prefix(log, deal, k))
        ids.append(state_id)
        slowest = max(slowest, seconds)
    assert slowest < SLOW_REQUEST
    errors = cache_events(client)["error"]
    if time.monotonic() - down_since < COOLDOWN:
        # the lookup and the write of the first request, the lookup of the second: then open
        assert errors == 3
    else:
        assert errors >= 3
    # nothing can be resumed by id: earlier ids and ids issued while down alike
    for k in (9, 12, 24):
        assert_unknown_state(validate_by_id(client, ids[k], events[k]))
    assert readyz(client) == DEGRADED
    full = client.post("/v1/moves/validate", json={**prefix(log, deal, 24), "move": events[24]})
    assert full.status_code == 200
    verdict = full.get_json()
    expected = arbiter.validate(prefix(log, deal, 24), events[24]).to_dict()
    assert without_state_id(verdict) == without_state_id(expected)
    assert verdict["state_id"] == expected_id(prefix(log, deal, 25))
    assert_unknown_state(validate_by_id(client, verdict["state_id"], events[25]))
    down = cache_events(client)

    private_redis.start()  # the same port, no data
    assert readyz(client) == READY  # the probe bypasses the breaker
    time.sleep(COOLDOWN + 0.05)
    # the restarted server lost everything: an old id is unknown ...
    assert_unknown_state(validate_by_id(client, ids[9], events[9]))
    # ... but a new answer's id is accepted again, and the deal goes on by id alone
    state_id = replay_ok(client, prefix(log, deal, 25))
    for k in range(25, n):
        state_id = assert_accepted(client, state_id, prefix(log, deal, k), events[k])
    assert replay_ok(client, log) == state_id
    recovered = delta(cache_events(client), down)
    # the old id (a miss), the replay at event 25 (a miss), the rest by id, the whole log
    assert recovered == {"hit": (n - 25) + 1, "miss": 2, "error": 0, "rejected": 0}


def test_redis_frozen_mid_game_costs_at_most_the_timeouts(private_redis: RedisProcess) -> None:
    client = private_client(private_redis)
    log = game("tute-2p", 2, 19, deals=1, renuncio_rate=0.0)
    events = log["deals"][0]["events"]
    state_id = replay_ok(client, prefix(log, 1, 0))
    for k in range(6):
        state_id = assert_accepted(client, state_id, prefix(log, 1, k), events[k])

    private_redis.freeze()
    started = time.perf_counter()
    times = [timed_replay(client, prefix(log, 1, k))[1] for k in range(6, 16)]
    assert max(times) < SLOW_REQUEST
    # the breaker opened after three timeouts: the later requests do not wait at all
    # (without the breaker: 10 x 2 timeouts, 2 s)
    assert sum(times) < 3 * TIMEOUT + 1.0
    errors = cache_events(client)["error"]
    if time.perf_counter() - started < COOLDOWN:
        assert errors == 3
    assert_unknown_state(validate_by_id(client, state_id, events[6]))
    probe = time.perf_counter()
    assert readyz(client) == DEGRADED
    assert time.perf_counter() - probe < SLOW_REQUEST

    private_redis.thaw()
    time.sleep(COOLDOWN + 0.05)
    state_id = replay_ok(client, prefix(log, 1, 16))
    for k in range(16, 24):
        state_id = assert_accepted(client, state_id, prefix(log, 1, k), events[k])
    assert readyz(client) == READY


def test_a_full_redis_refusing_writes_costs_replays(private_redis: RedisProcess) -> None:
    """A Redis out of memory (maxmemory, noeviction) answers reads and refuses writes."""
    client = private_client(private_redis)
    admin = private_redis.client()
    try:
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", "1")
        log = prefix(GAME, 1, AT)
        for _ in range(5):
            assert replay_ok(client, log) == expected_id(log)
        # each request: a lookup that misses, a write that fails (reads keep the breaker shut)
        assert cache_events(client) == {"hit": 0, "miss": 5, "error": 5, "rejected": 0}
        move = GAME["deals"][0]["events"][AT]
        assert_unknown_state(validate_by_id(client, expected_id(log), move))
        assert readyz(client) == READY
        admin.config_set("maxmemory", "0")  # room again
        assert replay_ok(client, log) == expected_id(log)
        assert_accepted(client, expected_id(log), log, move)
        assert admin.dbsize() == 2
    finally:
        admin.close()


def test_nothing_listening_from_the_start() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    client = create_app(Settings(redis_url=url, state_key=KEY, breaker_cooldown=60)).test_client()
    log = game("tute-gana-pierde", 5, 3, deals=2)
    started = time.perf_counter()
    for deals in range(1, len(log["deals"]) + 1):
        for k in (0, 7, len(log["deals"][deals - 1]["events"])):
            replay_ok(client, prefix(log, deals, k))
    assert time.perf_counter() - started < 3.0
    assert cache_events(client) == {"hit": 0, "miss": 0, "error": 3, "rejected": 0}
    assert readyz(client) == DEGRADED


# === a cluster URL that names a plain Redis ======================================================


def test_a_cluster_url_naming_a_plain_redis_is_a_miss_not_a_500(
    private_redis: RedisProcess,
) -> None:
    """A misconfiguration (REDIS_CLUSTER_URL pointing at a server without cluster mode) costs
    replays, not answers."""
    settings = Settings(redis_cluster_url=private_redis.url, state_key=KEY)
    client = create_app(settings).test_client()
    log = game("tute-3p", 3, 8, deals=1, finish_last=False, stop_after=11)
    for _ in range(4):
        assert replay_ok(client, log) == expected_id(log)
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    assert_unknown_state(validate_by_id(client, expected_id(log), move))
    events = cache_events(client)
    assert events["error"] >= 3
    assert (events["hit"], events["rejected"]) == (0, 0)
    assert readyz(client) == {
        "status": "degraded",
        "cache": {"backend": "cluster", "reachable": False},
    }


def test_the_values_format_is_what_the_fault_tests_forge() -> None:
    """The forgeries above are only meaningful if ``retag`` builds genuine values."""
    cache = StateCache(MemoryStore(10), KEY.encode(), 60, CircuitBreaker(3, 5))
    replayed = cache.replay(parse_log(prefix(GAME, 1, AT)))
    assert replayed.state_id is not None
    value = cache.pack(replayed.state_id, replayed.chain, replayed.match)
    chain, snapshot = value[TAG : TAG + CHAIN], value[TAG + CHAIN :]
    assert chain == replayed.chain
    assert snapshot.startswith(MAGIC + bytes([SNAPSHOT_VERSION]))
    assert retag(KEY, replayed.state_id, chain, snapshot) == value
    assert cache.unpack(replayed.state_id, value) is not None
    assert cache.unpack(replayed.state_id, _other_version(value, replayed.state_id)) is None
