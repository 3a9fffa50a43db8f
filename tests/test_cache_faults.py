"""The replay-state cache against real Redis servers that misbehave.

The cache only holds states of full logs; a ``state_id`` is a sealed token that needs no store.
So a poisoned, emptied, dead or frozen cache may cost a replay, never change an answer, and
never touches a token:

- tampered values (bytes flipped in the tag or the snapshot, truncated, copied to another key or
  from another game, written with another secret, another snapshot version or a corrupt body
  under a genuine tag) are ignored and counted as ``rejected``; the full log is answered exactly
  as the library answers it, the genuine value is written back, and the token of the same
  position is still accepted;
- FLUSHDB mid-game (of a private server): full-log answers are exact, tokens are accepted,
  caching resumes;
- a private ``redis-server`` killed, frozen (SIGSTOP) or restarted mid-game: every full-log
  answer is exact and bounded in time (100 ms timeouts, circuit breaker), ``/readyz`` says
  degraded, validation by token goes on (not one 409); the outage is logged once when it begins
  and once when it ends, however many requests meet it; caching resumes afterwards;
- a Redis refusing writes, a port nobody listens on, a cluster URL naming a plain Redis (real
  clusters: tests/test_cache_cluster.py) fail as softly.

Values are forged as a writer holding the secret would make them (:func:`forge`);
:func:`test_the_forgeries_are_what_the_service_writes` checks that this is the service's format.
Loopback only: the session's throwaway Redis (``redis_db`` of tests/redis_support.py) and
private servers on free 127.0.0.1 ports.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack
import pytest
from flask import Flask
from flask.testing import FlaskClient

import arbiter
from arbiter.api import create_app
from arbiter.engine.snapshot import MAGIC, SNAPSHOT_VERSION, decode
from arbiter.service import Referee
from arbiter.settings import Settings
from arbiter.simulate import random_log
from arbiter.tokens import derive
from tests.api_support import PROBLEM_JSON, metric_value
from tests.positions_support import prefix, setup_of, without_state_id
from tests.redis_support import RedisDatabase, RedisProcess, free_port

KEY = "cache-faults-key-0123456789abcdef"
OTHER_KEY = "some-other-deployment-key-0000000"
COOLDOWN = 0.5  # breaker cooldown of these tests, in seconds
TIMEOUT = 0.1  # the Redis timeout (the default)
#: the longest a full-log request may take while Redis is down or frozen: one lookup and one
#: write that time out, plus the replay itself, with room for a loaded machine
SLOW_REQUEST = 2 * TIMEOUT + 0.5
TAG = 16  # bytes of a value's tag; the snapshot follows
#: what the service derives the cache's secret with from the state key (arbiter/service.py)
CACHE_PURPOSE = b"tute-arbiter/cache/v1"
KINDS = ("hit", "miss", "error", "rejected")


# --- helpers ------------------------------------------------------------------------------------


def game(ruleset: str, players: int, seed: int, **kwargs: Any) -> dict[str, Any]:
    return random_log(ruleset, random.Random(seed), players=players, **kwargs)


def forge(state_key: str, key: str, snapshot: bytes) -> bytes:
    """``tag ‖ snapshot`` as a writer holding ``state_key`` stores it under ``key``."""
    secret = derive(state_key, CACHE_PURPOSE)
    named = len(key).to_bytes(2, "big") + key.encode()
    tag = hashlib.blake2b(named + snapshot, key=secret, digest_size=TAG, person=b"tute-tag")
    return tag.digest() + snapshot


def app_of(url: str, **extra: Any) -> Flask:
    """The service with ``url`` as its Redis, the cache used for logs of any length."""
    options: dict[str, Any] = {"breaker_cooldown": COOLDOWN, "cache_min_events": 0, **extra}
    return create_app(Settings(redis_url=url, state_key=KEY, **options))


def referee(client: FlaskClient) -> Referee:
    found: Referee = client.application.extensions["arbiter.referee"]
    return found


def whole_key(client: FlaskClient, log: Mapping[str, Any]) -> str:
    """The storage key of the state at the end of ``log``."""
    cache = referee(client).cache
    assert cache is not None
    keys = cache.keys_for(log)
    assert keys is not None
    return keys.whole


def cache_events(client: FlaskClient) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    return {kind: metric_value(text, "arbiter_cache_events_total", kind=kind) for kind in KINDS}


def delta(after: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    return {k: after[k] - before[k] for k in after}


def replay_ok(client: FlaskClient, log: Mapping[str, Any]) -> str:
    """POST the log: 200 and exactly the library's answer; its token."""
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert without_state_id(body) == without_state_id(arbiter.replay(log).to_dict())
    state_id: str = body["state_id"]
    return state_id


def judged_ok(
    client: FlaskClient, payload: Mapping[str, Any], log: Mapping[str, Any], move: Any
) -> str:
    """POST ``payload`` to validate: 200, ok, exactly the library's verdict on ``move`` at the
    end of ``log``; the next token."""
    response = client.post("/v1/moves/validate", json=payload)
    assert response.status_code == 200, response.get_data(as_text=True)
    verdict = response.get_json()
    assert without_state_id(verdict) == without_state_id(arbiter.validate(log, move).to_dict())
    assert verdict["verdict"] == "ok"
    state_id: str = verdict["state_id"]
    return state_id


def validate_ok(client: FlaskClient, log: Mapping[str, Any], move: Mapping[str, Any]) -> str:
    """The full log and ``move``, judged ok as the library judges it; the next token."""
    return judged_ok(client, {**log, "move": move}, log, move)


def by_token(
    client: FlaskClient,
    state_id: str,
    log: Mapping[str, Any],
    move: Mapping[str, Any],
    deal: Mapping[str, Any] | None = None,
) -> str:
    """``state_id`` holds the end of ``log``: ``move`` sent with the token alone (and ``deal``,
    to begin it) is judged as on the full log; the next token."""
    payload: dict[str, Any] = {"state_id": state_id, "move": move}
    if deal is not None:
        payload["deal"] = deal
    return judged_ok(client, payload, log, move)


def readyz(client: FlaskClient) -> dict[str, Any]:
    response = client.get("/readyz")
    assert response.status_code == 200
    body: dict[str, Any] = response.get_json()
    return body


DEGRADED = {"status": "degraded", "cache": {"backend": "redis", "reachable": False}}
READY = {"status": "ready", "cache": {"backend": "redis", "reachable": True}}


@contextlib.contextmanager
def cache_log(caplog: pytest.LogCaptureFixture) -> Iterator[Callable[[], list[tuple[str, str]]]]:
    """The lines of the ``arbiter.cache`` logger while the block runs, as (level, message).
    The ``arbiter`` loggers do not propagate to the root, where caplog listens: its handler goes
    on the ``arbiter`` logger too (where pytest >= 9 may have put it already)."""
    logger = logging.getLogger("arbiter")
    handler = caplog.handler
    attached = handler not in logger.handlers
    if attached:
        logger.addHandler(handler)
    try:
        yield lambda: [
            (r.levelname, r.getMessage()) for r in caplog.records if r.name == "arbiter.cache"
        ]
    finally:
        if attached:
            logger.removeHandler(handler)


def outage_lines(lines: list[tuple[str, str]], backend: str = "redis") -> list[str]:
    """Each line as ``down`` or ``up``; anything else fails."""
    out = []
    for level, message in lines:
        if level == "WARNING" and message.startswith(f"state cache ({backend}) unreachable"):
            out.append("down")
        elif level == "INFO" and message == f"state cache ({backend}) reachable again":
            out.append("up")
        else:
            raise AssertionError(f"an unexpected line of arbiter.cache: {level} {message}")
    return out


# === tampered values ============================================================================

#: a tute-2p deal, looked at after event 14
GAME = game("tute-2p", 2, 77, deals=1)
AT = 14
#: another game at the same point
OTHER_GAME = game("tute-2p", 2, 78, deals=1)


@dataclass(frozen=True)
class Stored:
    """The genuine values around the tampered one, as the service wrote them."""

    key: str  # the key of the state after AT events
    value: bytes
    parent: bytes  # the value of the state after AT - 1 events
    other_game: bytes  # the value of OTHER_GAME after AT events

    @property
    def snapshot(self) -> bytes:
        return self.value[TAG:]

    def retagged(self, snapshot: bytes, state_key: str = KEY) -> bytes:
        return forge(state_key, self.key, snapshot)


def _flip(value: bytes, index: int) -> bytes:
    out = bytearray(value)
    out[index] ^= 0x01
    return bytes(out)


def _corrupt_msgpack(s: Stored) -> bytes:
    body = msgpack.unpackb(s.snapshot[5:], raw=False)
    body[-1][-1][0] = b"\x93\x01\x02"  # the current deal's packed fields: an array cut short
    return s.retagged(s.snapshot[:5] + msgpack.packb(body, use_bin_type=True))


#: name: (how the stored value is altered, whether its tag still holds). A value whose tag
#: fails is skipped for the next longer prefix (here the parent state); one whose tag holds but
#: whose snapshot is not the state its key names costs a replay from the start.
TAMPERS: dict[str, tuple[Callable[[Stored], bytes], bool]] = {
    "first tag byte flipped": (lambda s: _flip(s.value, 0), False),
    "last tag byte flipped": (lambda s: _flip(s.value, TAG - 1), False),
    "magic byte flipped": (lambda s: _flip(s.value, TAG), False),
    "version byte flipped": (lambda s: _flip(s.value, TAG + 4), False),
    "middle snapshot byte flipped": (lambda s: _flip(s.value, (TAG + len(s.value)) // 2), False),
    "last byte flipped": (lambda s: _flip(s.value, len(s.value) - 1), False),
    "truncated": (lambda s: s.value[:-3], False),
    "only the tag": (lambda s: s.value[:TAG], False),
    "less than a tag": (lambda s: s.value[: TAG - 1], False),
    "empty": (lambda s: b"", False),
    "a byte appended": (lambda s: s.value + b"\x00", False),
    "the parent's value copied to this key": (lambda s: s.parent, False),
    "another game's value copied to this key": (lambda s: s.other_game, False),
    "written with another secret": (lambda s: s.retagged(s.snapshot, OTHER_KEY), False),
    "another snapshot version, tagged": (
        lambda s: s.retagged(MAGIC + bytes([SNAPSHOT_VERSION + 1]) + s.snapshot[5:]),
        True,
    ),
    "another magic, tagged": (lambda s: s.retagged(b"PKL\x00" + s.snapshot[4:]), True),
    "a body that is not MessagePack, tagged": (
        lambda s: s.retagged(s.snapshot[:5] + b"\xc1\xc1\xc1"),
        True,
    ),
    "a body of the wrong shape, tagged": (
        lambda s: s.retagged(s.snapshot[:5] + b"\x93\x01\x02\x03"),
        True,
    ),
    "a truncated body, tagged": (
        lambda s: s.retagged(s.snapshot[: len(s.snapshot) // 2]),
        True,
    ),
    "a corrupt deal inside, tagged": (_corrupt_msgpack, True),
    "the parent's snapshot, tagged under this key": (lambda s: s.retagged(s.parent[TAG:]), True),
}


def stored_values(client: FlaskClient, redis: RedisDatabase) -> Stored:
    """Replays of GAME after AT - 1 and AT events and of OTHER_GAME after AT: what they keep."""
    replay_ok(client, prefix(OTHER_GAME, 0, AT))
    replay_ok(client, prefix(GAME, 0, AT - 1))
    replay_ok(client, prefix(GAME, 0, AT))
    keys = [
        whole_key(client, prefix(GAME, 0, AT)),
        whole_key(client, prefix(GAME, 0, AT - 1)),
        whole_key(client, prefix(OTHER_GAME, 0, AT)),
    ]
    assert len(set(keys)) == 3
    assert len(redis.own_keys()) == 3
    value, parent, other = (redis.get(k) for k in keys)
    assert value is not None and parent is not None and other is not None
    return Stored(keys[0], value, parent, other)


@pytest.mark.parametrize("tamper", list(TAMPERS))
def test_a_tampered_value_is_rejected_and_answers_stay_exact(
    redis_db: RedisDatabase, tamper: str
) -> None:
    client = app_of(redis_db.url).test_client()
    stored = stored_values(client, redis_db)
    alter, tag_holds = TAMPERS[tamper]
    poisoned = alter(stored)
    assert poisoned != stored.value
    redis_db.set(stored.key, poisoned)
    log = prefix(GAME, 0, AT)
    before = cache_events(client)

    state_id = replay_ok(client, log)  # exact, whatever the cache held
    seen = delta(cache_events(client), before)
    assert (seen["rejected"], seen["error"]) == (1, 0), seen
    if not tag_holds:  # skipped for the parent state, the next longer prefix
        assert (seen["hit"], seen["miss"]) == (1, 0), seen
    else:  # replayed from the start; the lookup itself is counted once
        assert seen["hit"] + seen["miss"] == 1, seen
    assert redis_db.get(stored.key) == stored.value  # the genuine value is back

    # and is used again; the token of the same position needs no cache at all
    move = GAME["deals"][0]["events"][AT]
    validate_ok(client, log, move)
    by_token(client, state_id, log, move)
    assert delta(cache_events(client), before)["hit"] == seen["hit"] + 1


@pytest.mark.parametrize("endpoint", ["/v1/replays", "/v1/scores", "/v1/moves/validate"])
@pytest.mark.parametrize("corrupt", [0, 1], ids=["first deal", "last deal"])
def test_a_corrupt_finished_deal_under_a_genuine_tag_costs_a_replay_not_a_500(
    redis_db: RedisDatabase, endpoint: str, corrupt: int
) -> None:
    """A snapshot under a genuine tag whose finished deal does not unpack (as a writer with the
    same secret and snapshot version but another encoding makes it: a deploy that forgot to
    bump the version). Finished deals are unpacked when something looks at them: the report
    does, for every deal; a validate only looks at the deal the log ends with."""
    client = app_of(redis_db.url).test_client()
    log = game("tute-2p", 2, 5, deals=2, options={"match_target": 5})
    assert len(log["deals"]) == 2
    replay_ok(client, log)
    key = whole_key(client, log)
    value = redis_db.get(key)
    assert value is not None
    snapshot = value[TAG:]
    body = msgpack.unpackb(snapshot[5:], raw=False)
    body[-1][corrupt][0] = b"\x93\x01\x02"  # the deal's packed fields: an array cut short
    redis_db.set(key, forge(KEY, key, snapshot[:5] + msgpack.packb(body, use_bin_type=True)))
    before = cache_events(client)

    probe = log["deals"][-1]["events"][0]
    payload = {**log, "move": probe} if endpoint.endswith("validate") else log
    response = client.post(endpoint, json=payload)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    if endpoint.endswith("validate"):
        expected = arbiter.validate(log, probe).to_dict()
    elif endpoint.endswith("scores"):
        expected = arbiter.replay(log).scores_dict()
    else:
        expected = arbiter.replay(log).to_dict()
    assert without_state_id(response.get_json()) == without_state_id(expected)
    # a validate reads only the deal the log ends with; /v1/scores never uses the cache
    looked_at = endpoint.endswith("replays") or (endpoint.endswith("validate") and corrupt == 1)
    assert delta(cache_events(client), before)["rejected"] == int(looked_at)
    if looked_at:
        assert redis_db.get(key) == value  # the genuine value is back


def test_a_poisoned_deal_boundary_costs_a_replay_not_a_verdict(redis_db: RedisDatabase) -> None:
    """The state kept for a log that ends with a finished deal is the boundary a longer log
    resumes from; poisoned, it is rejected and the longer log replayed from the start."""
    client = app_of(redis_db.url).test_client()
    log = game("tute-4p", 4, 12, deals=3, finish_last=False, stop_after=9)
    assert len(log["deals"]) == 3
    two_deals = prefix(log, 1, len(log["deals"][1]["events"]))
    replay_ok(client, two_deals)
    key = whole_key(client, two_deals)
    assert redis_db.own_keys() == [key.encode()]
    value = redis_db.get(key)
    assert value is not None
    redis_db.set(key, _flip(value, len(value) - 1))
    before = cache_events(client)
    replay_ok(client, log)
    # looked up: the whole log, the log minus its last event, the poisoned end of deal 1,
    # the end of deal 0 (never kept)
    assert delta(cache_events(client), before) == {"hit": 0, "miss": 1, "error": 0, "rejected": 1}
    # the genuine boundary is written back only by a log that ends there
    replay_ok(client, two_deals)
    assert redis_db.get(key) == value
    replay_ok(client, log)
    assert delta(cache_events(client), before)["hit"] == 1


def test_the_forgeries_are_what_the_service_writes(redis_db: RedisDatabase) -> None:
    """The forgeries above are only meaningful if :func:`forge` builds genuine values."""
    client = app_of(redis_db.url).test_client()
    stored = stored_values(client, redis_db)
    assert stored.snapshot.startswith(MAGIC + bytes([SNAPSHOT_VERSION]))
    assert stored.retagged(stored.snapshot) == stored.value
    assert decode(stored.snapshot).progress == (1, AT)
    assert decode(stored.parent[TAG:]).progress == (1, AT - 1)
    # and a forgery with a genuine tag is taken as genuine: resumed from, not rejected
    redis_db.set(stored.key, stored.retagged(stored.snapshot))
    before = cache_events(client)
    replay_ok(client, prefix(GAME, 0, AT))
    assert delta(cache_events(client), before) == {"hit": 1, "miss": 0, "error": 0, "rejected": 0}


# === evicted entries ============================================================================


def test_flushdb_mid_game_costs_a_replay_and_caching_resumes(private_redis: RedisProcess) -> None:
    """A deal followed both ways at once: the full log with each move, and the token alone."""
    client = app_of(private_redis.url).test_client()
    log = game("tute-3p", 3, 5, deals=2)
    events = log["deals"][1]["events"]
    state_id = replay_ok(client, prefix(log, 1, 0))
    before = cache_events(client)
    for k in range(10):
        validate_ok(client, prefix(log, 1, k), events[k])
        state_id = by_token(client, state_id, prefix(log, 1, k), events[k])
    # each validate resumed from the state the one before kept
    assert delta(cache_events(client), before) == {"hit": 10, "miss": 0, "error": 0, "rejected": 0}
    private_redis.flush()
    for k in range(10, len(events)):
        validate_ok(client, prefix(log, 1, k), events[k])
        state_id = by_token(client, state_id, prefix(log, 1, k), events[k])
    # one miss after the flush, then hits again
    after = delta(cache_events(client), before)
    assert after == {"hit": len(events) - 1, "miss": 1, "error": 0, "rejected": 0}
    replay_ok(client, log)
    assert delta(cache_events(client), before)["hit"] == len(events)


# === Redis killed, frozen, restarted ============================================================


def private_client(server: RedisProcess, **extra: Any) -> FlaskClient:
    return app_of(server.url, breaker_failures=3, **extra).test_client()


class Game:
    """A deal followed both ways at once: by full log (timed) and by token alone."""

    def __init__(self, client: FlaskClient, log: dict[str, Any], deal: int) -> None:
        self.client = client
        self.log = log
        self.deal = deal
        self.events = log["deals"][deal]["events"]
        self.next = 0
        self.state_id = replay_ok(client, prefix(log, deal, 0))

    def step(self) -> float:
        """The next move, both ways; the seconds the full-log request took."""
        k, log = self.next, prefix(self.log, self.deal, self.next)
        started = time.perf_counter()
        validate_ok(self.client, log, self.events[k])
        seconds = time.perf_counter() - started
        self.state_id = by_token(self.client, self.state_id, log, self.events[k])
        self.next += 1
        return seconds

    def steps(self, count: int) -> list[float]:
        return [self.step() for _ in range(count)]


@pytest.mark.slow
def test_redis_killed_mid_game_then_restarted(
    private_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    client = private_client(private_redis)
    with cache_log(caplog) as lines:
        play = Game(client, game("tute-4p", 4, 9, deals=2), deal=1)
        assert readyz(client) == READY
        play.steps(10)
        assert cache_events(client) == {"hit": 10, "miss": 1, "error": 0, "rejected": 0}
        assert lines() == []

        private_redis.kill()
        down_since = time.monotonic()
        assert max(play.steps(8)) < SLOW_REQUEST
        errors = cache_events(client)["error"]
        if time.monotonic() - down_since < COOLDOWN:
            # the lookup and the write of the first request, the lookup of the second: open
            assert errors == 3
        assert readyz(client) == DEGRADED
        time.sleep(COOLDOWN + 0.05)  # the next request probes the dead server, in vain
        assert max(play.steps(4)) < SLOW_REQUEST
        assert cache_events(client)["error"] > errors
        assert outage_lines(lines()) == ["down"]  # 12 requests and a probe: one line
        down = cache_events(client)

        private_redis.start()  # the same port, no data
        assert readyz(client) == READY  # the probe bypasses the breaker
        time.sleep(COOLDOWN + 0.05)
        remaining = len(play.events) - play.next
        play.steps(remaining)
        recovered = delta(cache_events(client), down)
        # the first lookup after the restart misses (the data are gone), then hits again
        assert recovered == {"hit": remaining - 1, "miss": 1, "error": 0, "rejected": 0}
        replay_ok(client, play.log)
        assert outage_lines(lines()) == ["down", "up"]


@pytest.mark.slow
def test_two_outages_are_two_pairs_of_lines(
    private_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    client = private_client(private_redis)
    with cache_log(caplog) as lines:
        play = Game(client, game("tute-2p", 2, 3, deals=1), deal=0)
        for _ in range(2):
            play.steps(3)
            private_redis.kill()
            play.steps(6)
            private_redis.start()
            time.sleep(COOLDOWN + 0.05)
            play.steps(3)
        assert outage_lines(lines()) == ["down", "up", "down", "up"]


@pytest.mark.slow
def test_redis_frozen_mid_game_costs_at_most_the_timeouts(
    private_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    client = private_client(private_redis)
    with cache_log(caplog) as lines:
        play = Game(client, game("tute-2p", 2, 19, deals=1), deal=0)
        play.steps(6)

        private_redis.freeze()
        started = time.perf_counter()
        times = play.steps(10)
        assert max(times) < SLOW_REQUEST
        # the breaker opened after three timeouts: the later requests do not wait at all
        # (without the breaker: 10 requests x 2 timeouts, 2 s)
        assert sum(times) < 3 * TIMEOUT + 1.0
        if time.perf_counter() - started < COOLDOWN:
            assert cache_events(client)["error"] == 3
        probe = time.perf_counter()
        assert readyz(client) == DEGRADED
        assert time.perf_counter() - probe < SLOW_REQUEST
        assert outage_lines(lines()) == ["down"]
        frozen = cache_events(client)

        private_redis.thaw()
        time.sleep(COOLDOWN + 0.05)
        play.steps(8)
        assert readyz(client) == READY
        # nothing was kept while frozen: the first lookup misses, and keeps, then hits again
        assert delta(cache_events(client), frozen) == {
            "hit": 7,
            "miss": 1,
            "error": 0,
            "rejected": 0,
        }
        assert outage_lines(lines()) == ["down", "up"]


def test_a_full_redis_refusing_writes_costs_replays(
    private_redis: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    """A Redis out of memory (maxmemory, noeviction) answers reads and refuses writes: every
    request misses and fails its write, and that is no outage (reads keep the breaker shut)."""
    client = private_client(private_redis)
    log = prefix(GAME, 0, AT)
    move = GAME["deals"][0]["events"][AT]
    with cache_log(caplog) as lines, private_redis.client() as admin:
        admin.config_set("maxmemory-policy", "noeviction")
        admin.config_set("maxmemory", "1")
        state_id = replay_ok(client, log)
        for _ in range(4):
            replay_ok(client, log)
        assert cache_events(client) == {"hit": 0, "miss": 5, "error": 5, "rejected": 0}
        assert readyz(client) == READY
        by_token(client, state_id, log, move)
        assert lines() == []
        admin.config_set("maxmemory", "0")  # room again
        replay_ok(client, log)
        validate_ok(client, log, move)
        assert admin.dbsize() == 2
        assert cache_events(client)["hit"] == 1


def test_nothing_listening_from_the_start(caplog: pytest.LogCaptureFixture) -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"
    client = app_of(url, breaker_cooldown=60).test_client()
    log = game("tute-gana-pierde", 5, 3, deals=2)
    with cache_log(caplog) as lines:
        started = time.perf_counter()
        for d, deal in enumerate(log["deals"]):
            for k in (0, 7, len(deal["events"])):
                replay_ok(client, prefix(log, d, k))
        assert time.perf_counter() - started < 3.0
        assert cache_events(client) == {"hit": 0, "miss": 0, "error": 3, "rejected": 0}
        assert readyz(client) == DEGRADED
        assert outage_lines(lines()) == ["down"]
    # a whole deal by token, the next one begun with its setup, without any cache
    state_id = replay_ok(client, prefix(log, 0, 0))
    for d, deal in enumerate(log["deals"]):
        for k, move in enumerate(deal["events"]):
            setup = setup_of(deal) if d and not k else None
            state_id = by_token(client, state_id, prefix(log, d, k), move, setup)


# === a cluster URL that names a plain Redis ======================================================


def test_a_cluster_url_naming_a_plain_redis_is_a_miss_not_a_500(
    private_redis: RedisProcess,
) -> None:
    """A misconfiguration (REDIS_CLUSTER_URL pointing at a server without cluster mode) costs
    replays, not answers."""
    settings = Settings(redis_cluster_url=private_redis.url, state_key=KEY, cache_min_events=0)
    client = create_app(settings).test_client()
    log = game("tute-3p", 3, 8, deals=1, finish_last=False, stop_after=11)
    state_id = ""
    for _ in range(4):
        state_id = replay_ok(client, log)
    move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
    validate_ok(client, log, move)
    by_token(client, state_id, log, move)
    events = cache_events(client)
    assert events["error"] >= 3
    assert (events["hit"], events["rejected"]) == (0, 0)
    assert readyz(client) == {
        "status": "degraded",
        "cache": {"backend": "cluster", "reachable": False},
    }


def test_a_garbage_token_is_a_409_whatever_the_cache(private_redis: RedisProcess) -> None:
    """A token that does not open is a 409 problem, counted, with Redis up or down."""
    client = private_client(private_redis)
    log = prefix(GAME, 0, AT)
    move = GAME["deals"][0]["events"][AT]
    state_id = replay_ok(client, log)
    altered = state_id[:-2] + ("AA" if state_id[-2:] != "AA" else "BB")
    for phase in ("up", "down"):
        for token in (altered, "garbage", state_id + "A"):
            response = client.post("/v1/moves/validate", json={"state_id": token, "move": move})
            assert response.status_code == 409, (phase, response.get_data(as_text=True))
            assert response.mimetype == PROBLEM_JSON
        by_token(client, state_id, log, move)
        private_redis.kill()
    text = client.get("/metrics").get_data(as_text=True)
    assert metric_value(text, "arbiter_state_tokens_rejected_total") == 6
