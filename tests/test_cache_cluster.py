"""The replay-state cache on a real Redis Cluster (three masters on loopback, no replicas).

The service is the in-process app of ``make_app(cache="cluster", ...)`` with the
contract-checking test client of :mod:`tests.api_support`; the cluster is the session fixture
of :mod:`tests.cluster_support`. Every answer is compared with the library
(``arbiter.replay(log).to_dict()``, ``arbiter.validate(log, move).to_dict()``) apart from
``state_id``, and the cache's work is read from ``/metrics`` and from the nodes themselves.
Each test uses its own state key, and storage keys are keyed hashes of it, so no test sees
another's entries.

The cluster caches full-log replays only: a ``state_id`` is a sealed token that the cluster
never sees, so validating by token works — and costs the cluster nothing — whatever the
cluster does. The tests that crash masters start a cluster of their own.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest
from flask.testing import FlaskClient

import arbiter
from arbiter.engine.cards import cards_of, format_card
from arbiter.service import Referee
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.api_support import ANY_STATE_ID, PROBLEM_JSON, make_app, metric_value
from tests.cluster_support import LocalCluster, redis_cluster, running_cluster
from tests.hand_built import play
from tests.positions_support import (
    decided_match,
    prefix,
    setup_of,
    walk_by_token,
    without_state_id,
)

# A Redis Cluster of real nodes started per module, and nodes crashed: not in the quick loop.
pytestmark = pytest.mark.slow

__all__ = ["redis_cluster"]  # the fixture, imported for pytest

CACHE_EVENTS = "arbiter_cache_events_total"
NO_EVENTS = {"hit": 0, "miss": 0, "error": 0, "rejected": 0}


# --- helpers ------------------------------------------------------------------------------------


def state_key(name: str) -> str:
    """A state key of the test ``name`` (at least the 32 bytes the settings ask for)."""
    return f"cluster-test-{name}-".ljust(40, "0")


def cluster_client(cluster: LocalCluster, name: str, **settings: Any) -> FlaskClient:
    settings.setdefault("cache_min_events", 0)
    app = make_app(
        cache="cluster", redis_cluster_url=cluster.url, state_key=state_key(name), **settings
    )
    client: FlaskClient = app.test_client()
    return client


def game_tag(client: FlaskClient, log: dict[str, Any]) -> str:
    """The hash tag under which ``client``'s service stores ``log``'s states."""
    referee: Referee = client.application.extensions["arbiter.referee"]
    assert referee.cache is not None
    keys = referee.cache.keys_for(log)
    assert keys is not None
    return keys.game


def post(client: FlaskClient, path: str, payload: Any) -> tuple[int, Any]:
    response = client.post(path, json=payload)
    return response.status_code, response.get_json()


def cache_events(client: FlaskClient) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    kinds = ("hit", "miss", "error", "rejected")
    return {kind: metric_value(text, CACHE_EVENTS, kind=kind) for kind in kinds}


def expected_replay(log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    body = arbiter.replay(log).to_dict(lang)
    body["state_id"] = None if body["status"] == "invalid" else ANY_STATE_ID
    return body


def replay(client: FlaskClient, log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    response = client.post("/v1/replays", json=log, headers={"Accept-Language": lang})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    body: dict[str, Any] = response.get_json()
    return body


def validate_full(client: FlaskClient, log: dict[str, Any], move: dict[str, Any]) -> Any:
    """The full log and ``move``: 200 and the library's verdict; the verdict."""
    response = client.post("/v1/moves/validate", json={**log, "move": move})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    body = response.get_json()
    assert without_state_id(body) == without_state_id(arbiter.validate(log, move).to_dict())
    return body


def game(seed: int, deals: int = 3, **kwargs: Any) -> dict[str, Any]:
    """A tute-2p match of ``deals`` finished deals (match_target 5, so none ends it early)."""
    kwargs.setdefault("options", {"match_target": 5})
    log = random_log("tute-2p", random.Random(seed), deals=deals, **kwargs)
    assert len(log["deals"]) == deals
    return log


# --- the cluster as a cache ---------------------------------------------------------------------


def test_readyz_reports_the_cluster(redis_cluster: LocalCluster) -> None:
    client = cluster_client(redis_cluster, "readyz")
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.get_json() == {
        "status": "ready",
        "cache": {"backend": "cluster", "reachable": True},
    }


@pytest.mark.parametrize(("seed", "lang"), [(1, "en"), (2, "es"), (3, "en")])
def test_replays_through_the_cluster_match_the_library(
    redis_cluster: LocalCluster, seed: int, lang: str
) -> None:
    """A log resumed from the cache at each kind of cached prefix (the end of the previous
    deal, the log minus its last event, the same log) answers exactly as the library."""
    client = cluster_client(redis_cluster, f"replays-{seed}")
    full = game(seed, renuncio_rate=0.05)
    last = len(full["deals"]) - 1
    n = len(full["deals"][last]["events"])
    boundary = prefix(full, last - 1, len(full["deals"][last - 1]["events"]))
    shorter = prefix(full, last, n - 6)
    log = prefix(full, last, n - 5)
    corrected = prefix(full, last, n - 9)  # another continuation of the previous deal

    assert replay(client, boundary, lang) == expected_replay(boundary, lang)
    assert cache_events(client) == {**NO_EVENTS, "miss": 1}
    assert replay(client, shorter, lang) == expected_replay(shorter, lang)  # from the boundary
    assert replay(client, log, lang) == expected_replay(log, lang)  # from `shorter`
    assert replay(client, log, lang) == expected_replay(log, lang)  # the very state
    assert replay(client, corrected, lang) == expected_replay(corrected, lang)  # the boundary
    assert cache_events(client) == {**NO_EVENTS, "hit": 4, "miss": 1}

    # the scores endpoint agrees with the library, without the cache (archives send a game once)
    scores = client.post("/v1/scores", json=log).get_json()
    assert scores == arbiter.replay(log).scores_dict()
    assert cache_events(client) == {**NO_EVENTS, "hit": 4, "miss": 1}


def test_validate_with_the_full_log_matches_the_library(redis_cluster: LocalCluster) -> None:
    """Every legal move on a full log gets the library's verdict; the first request keeps the
    log's own state, which the other moves on it resume from, and each keeps the state after its
    move, which the next, longer log resumes from."""
    client = cluster_client(redis_cluster, "validate-full")
    log = prefix(game(4, deals=2), 1, 13)
    moves = arbiter.replay(log).to_dict()["next"]["legal_moves"]
    assert len(moves) > 1
    for move in moves:
        body = validate_full(client, log, move)
        assert body["verdict"] == "ok"
        assert body["state_id"] == ANY_STATE_ID
    assert cache_events(client) == {**NO_EVENTS, "miss": 1, "hit": len(moves) - 1}
    for move in moves:
        longer = prefix(log, 1, 13)
        longer["deals"][1]["events"].append(move)
        assert replay(client, longer) == expected_replay(longer)
    assert cache_events(client) == {**NO_EVENTS, "hit": 2 * len(moves) - 1, "miss": 1}


def test_a_whole_match_by_token_costs_the_cluster_nothing(redis_cluster: LocalCluster) -> None:
    """A decided match validated move by move by token alone, its later deals begun with
    ``deal``: every verdict is the library's, and once the first token is issued (a replay: one
    lookup, one write) the cluster is neither read nor written."""
    client = cluster_client(redis_cluster, "move-by-move")
    log = decided_match("tute-4p", 4, 5)
    tag = game_tag(client, prefix(log, 0, 0))
    events = []

    def before_move(index: int) -> None:
        if index == 0:
            events.append(cache_events(client))
            assert events[0] == {**NO_EVENTS, "miss": 1}

    walk_by_token(lambda path, payload: post(client, path, payload), log, before_move=before_move)
    assert cache_events(client) == events[0]
    stored = [k for keys in redis_cluster.keys(f"*{{{tag}}}*").values() for k in keys]
    assert len(stored) == 1  # the state of the first replay


def _position_with_a_renuncio(log: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first prefix of the deal where the seat to play holds both correct plays and
    renuncios, and every play of that seat's hand (plus one out of turn)."""
    events = log["deals"][0]["events"]
    for j in range(len(events)):
        at = prefix(log, 0, j)
        state = arbiter.replay(at).match.current
        assert state is not None
        seat = state.turn
        moves = [
            play(seat, format_card(card, "spanish"))
            for card in cards_of(state.hands[seat])
        ]
        verdicts = {arbiter.validate(at, m).judgement.verdict for m in moves}
        if verdicts == {"ok", "renuncio"}:
            return at, [*moves, {**moves[0], "seat": 1 - seat}]
    raise AssertionError("no position with a possible renuncio in this deal")


def test_a_renuncio_or_an_illegal_move_by_token(redis_cluster: LocalCluster) -> None:
    """Through a token, every play of the hand gets the library's verdict; only an ok move
    gets a token, and the token judged on is unchanged (the same renuncio again)."""
    client = cluster_client(redis_cluster, "renuncio")
    log, moves = _position_with_a_renuncio(game(6, deals=1))
    state_id = replay(client, log)["state_id"]
    verdicts: Counter[str] = Counter()
    for move in [*moves, *moves]:
        response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert response.status_code == 200
        body = response.get_json()
        # on a token, a renuncio also gives the position after it (a log's verdict does not:
        # the log with the move added says it)
        after = body.pop("after", None)
        assert (after is not None) == (body["verdict"] == "renuncio")
        assert after is None or (after["state_id"] and after["position"]["renuncios"])
        expected = arbiter.validate(log, move).to_dict()
        assert without_state_id(body) == without_state_id(expected)
        assert (body["state_id"] is None) == (body["verdict"] != "ok")
        verdicts[body["verdict"]] += 1
    assert verdicts["ok"] >= 2
    assert verdicts["renuncio"] >= 2
    assert verdicts["illegal"] == 2  # the play out of turn
    assert cache_events(client) == {**NO_EVENTS, "miss": 1}  # the replay alone


def test_an_unknown_or_garbage_token_is_409(redis_cluster: LocalCluster) -> None:
    client = cluster_client(redis_cluster, "unknown")
    log = prefix(game(7, deals=1), 0, 4)
    move = log["deals"][0]["events"][-1]
    genuine = replay(client, log)["state_id"]
    other = replay(cluster_client(redis_cluster, "unknown-other"), log)["state_id"]
    flipped = genuine[:20] + ("A" if genuine[20] != "A" else "B") + genuine[21:]
    garbage = ["nodot", "x.y", "A" * 64, genuine[:-4], genuine + "AAAA", flipped, other]
    for state_id in garbage:
        response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert response.status_code == 409, state_id
        assert response.mimetype == PROBLEM_JSON
        assert response.get_json()["type"].endswith("/unknown-state")
    text = client.get("/metrics").get_data(as_text=True)
    assert metric_value(text, "arbiter_state_tokens_rejected_total") == len(garbage)
    # the genuine token opens (a play out of turn: illegal, but judged)
    response = client.post("/v1/moves/validate", json={"state_id": genuine, "move": move})
    assert response.status_code == 200
    assert response.get_json() == arbiter.validate(log, move).to_dict()


def test_the_keys_of_one_game_share_one_hash_slot(redis_cluster: LocalCluster) -> None:
    """Every state a game's full-log requests keep is stored under the game's hash tag: one
    slot, one master, and exactly the states kept (the replay's, one per validated move)."""
    client = cluster_client(redis_cluster, "slots")
    full = game(8, deals=2)
    events = full["deals"][1]["events"][:12]
    replay(client, prefix(full, 1, 0))
    for k, move in enumerate(events):
        assert validate_full(client, prefix(full, 1, k), move)["verdict"] == "ok"
    tags = {game_tag(client, prefix(full, d, k)) for d in (0, 1) for k in (0, 5, 12)}
    assert len(tags) == 1
    tag = tags.pop()
    # the replay misses, and every validate resumes from the state the request before kept
    assert cache_events(client) == {**NO_EVENTS, "hit": len(events), "miss": 1}

    found = redis_cluster.keys(f"*{{{tag}}}*")
    by_node = {port: keys for port, keys in found.items() if keys}
    assert len(by_node) == 1, by_node
    ((port, keys),) = by_node.items()
    assert len(keys) == 1 + len(events)
    assert all(key.startswith("tute:") for key in keys)
    slots = {redis_cluster.keyslot(key) for key in keys}
    assert slots == {redis_cluster.keyslot(f"{{{tag}}}")}
    assert redis_cluster.owner_of_slot(slots.pop()) == port
    with redis_cluster.node(port) as node:
        ttls = [node.ttl(key) for key in keys]
    assert all(0 < ttl <= Settings().cache_ttl for ttl in ttls), ttls


def test_different_matches_of_the_same_players_spread_over_the_cluster(
    redis_cluster: LocalCluster,
) -> None:
    client = cluster_client(redis_cluster, "spread")
    logs = [prefix(game(100 + seed, 1), 0, 6) for seed in range(12)]
    for log in logs:
        replay(client, log)
    tags = {game_tag(client, log) for log in logs}
    slots = {redis_cluster.keyslot(f"{{{tag}}}") for tag in tags}
    # 12 matches between the same two names: all in one slot would be a 1-in-16384**11
    # accident, unless the hash tag only depended on the header (ruleset, options, players)
    assert len(tags) == 12
    assert len(slots) == 12
    holders = {p for tag in tags for p, keys in redis_cluster.keys(f"*{{{tag}}}*").items() if keys}
    assert len(holders) > 1


# --- masters crash --------------------------------------------------------------------------


def _logs_on(
    cluster: LocalCluster, client: FlaskClient, port: int, count: int
) -> list[dict[str, Any]]:
    """``count`` two-deal logs (last deal in progress) whose states (under ``client``'s key)
    live on the master ``port``."""
    found = []
    for seed in range(1000, 1200):
        log = prefix(game(seed, deals=2), 1, 15)
        if cluster.owner_of_slot(cluster.keyslot(f"{{{game_tag(client, log)}}}")) == port:
            found.append(log)
            if len(found) == count:
                return found
    raise AssertionError(f"not {count} games found whose states live on {port}")


def test_a_master_crashes_mid_run() -> None:
    """SIGKILL the master that holds two games' states and is the node of REDIS_CLUSTER_URL.
    Full-log requests stay exactly right and tokens keep working — also those of the games
    whose states lived on the crashed master; nothing is a 5xx, before the cluster notices
    (connection refused) and after it marks itself failed (CLUSTERDOWN)."""
    with running_cluster(node_timeout_ms=1000) as cluster:
        client = cluster_client(cluster, "crash", breaker_cooldown=0.2)
        victim = cluster.ports[0]  # the node the service was given
        on_victim = _logs_on(cluster, client, victim, 2)
        elsewhere = _logs_on(cluster, client, cluster.ports[1], 1)
        logs = [on_victim[0], elsewhere[0], on_victim[1]]
        tokens = {}
        for i, log in enumerate(logs):
            assert replay(client, log) == expected_replay(log)
            tokens[i] = replay(client, log)["state_id"]
        assert cache_events(client) == {**NO_EVENTS, "hit": len(logs), "miss": len(logs)}
        stored = cluster.keys("tute:*")
        assert len(stored[victim]) == 2
        assert len(stored[cluster.ports[1]]) == 1

        cluster.kill(victim)
        statuses: Counter[int] = Counter()

        def round_of_requests(phase: str) -> None:
            for i, log in enumerate(logs):
                assert replay(client, log) == expected_replay(log), phase
                move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
                expected = without_state_id(arbiter.validate(log, move).to_dict())
                response = client.post("/v1/moves/validate", json={**log, "move": move})
                statuses[response.status_code] += 1
                assert response.status_code == 200, (phase, response.get_data(as_text=True))
                assert without_state_id(response.get_json()) == expected, phase
                response = client.post(
                    "/v1/moves/validate", json={"state_id": tokens[i], "move": move}
                )
                statuses[response.status_code] += 1
                assert response.status_code == 200, (phase, response.get_data(as_text=True))
                assert without_state_id(response.get_json()) == expected, phase
                ready = client.get("/readyz")
                assert ready.status_code == 200
                assert ready.get_json()["cache"]["backend"] == "cluster"

        round_of_requests("node down, not yet noticed")
        cluster.wait_state("fail", timeout=15)
        round_of_requests("cluster_state:fail")
        time.sleep(0.3)  # past the breaker's cooldown: the backend is called again
        round_of_requests("cluster_state:fail, breaker half-open")
        assert statuses == {200: 2 * 3 * len(logs)}
        assert cache_events(client)["error"] >= 1


@pytest.mark.parametrize(
    "case",
    [
        # a worker that makes its client (first use after the fork; gunicorn recycles workers
        # every max_requests) while the node of REDIS_CLUSTER_URL is down
        "client made while the configured node is down",
        # every master down (a cluster restart) under a client that worked before
        "whole cluster down under a working client",
    ],
)
def test_no_5xx_when_no_cluster_node_answers(case: str) -> None:
    """Without any reachable node the cache is a miss: the requests are answered by
    replaying, tokens are judged as ever, /readyz says degraded (200). Regression: redis-py
    raises RedisClusterException ('Redis Cluster cannot be connected'), which is not a
    RedisError; until 7f83f48 it escaped STORE_ERRORS and every request was a 500."""
    full = game(21, deals=2)
    log = prefix(full, 1, 7)
    with running_cluster(node_timeout_ms=1000) as cluster:
        client = cluster_client(cluster, "no-node")
        first_deal = prefix(full, 0, len(full["deals"][0]["events"]))
        start = replay(client, first_deal)["state_id"]
        if case.startswith("whole"):
            assert client.post("/v1/replays", json=log).status_code == 200
            for port in cluster.ports:
                cluster.kill(port)
        else:
            cluster.kill(cluster.ports[0])
            client = cluster_client(cluster, "no-node")
        statuses = []
        for _ in range(5):  # past the breaker's threshold of 3 failures
            response = client.post("/v1/replays", json=log)
            statuses.append(response.status_code)
            if response.status_code == 200:
                assert without_state_id(response.get_json()) == (
                    without_state_id(arbiter.replay(log).to_dict())
                )
        state_id = start
        for k, move in enumerate(full["deals"][1]["events"][:7]):
            payload = {"state_id": state_id, "move": move}
            if k == 0:
                payload["deal"] = setup_of(full["deals"][1])  # the token's deal has ended
            response = client.post("/v1/moves/validate", json=payload)
            statuses.append(response.status_code)
            state_id = response.get_json()["state_id"]
        ready = client.get("/readyz")
        assert (statuses, ready.status_code) == ([200] * 12, 200)
        assert ready.get_json() == {
            "status": "degraded",
            "cache": {"backend": "cluster", "reachable": False},
        }
