"""The replay-state cache on a real Redis Cluster (three masters on loopback, no replicas).

The service is the in-process app of ``create_app(Settings(cache="cluster", ...))`` with the
contract-checking test client of :mod:`tests.api_support`; the cluster is the session fixture
of :mod:`tests.cluster_support`. Every answer is compared with the library
(``arbiter.replay(log).to_dict()``, ``arbiter.validate(log, move).to_dict()``) apart from
``state_id``, and the cache's work is read from ``/metrics`` and from the nodes themselves.
Each test uses its own ``state_key``, so no test sees another's entries.

The tests that crash a master start a cluster of their own.
"""

from __future__ import annotations

import copy
import random
import time
from collections import Counter
from typing import Any

import pytest
from flask.testing import FlaskClient

import arbiter
from arbiter.api import create_app
from arbiter.cache import StateCache
from arbiter.cache.ids import StateIds
from arbiter.engine.cards import cards_of, format_card
from arbiter.engine.log import parse_log
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.api_support import ANY_STATE_ID, PROBLEM_JSON, make_app, metric_value
from tests.cluster_support import LocalCluster, redis_cluster, running_cluster

__all__ = ["redis_cluster"]  # the fixture, imported for pytest

CACHE_EVENTS = "arbiter_cache_events_total"


# --- helpers ------------------------------------------------------------------------------------


def cluster_client(cluster: LocalCluster, key: str, **settings: Any) -> FlaskClient:
    app = make_app(cache="cluster", redis_cluster_url=cluster.url, state_key=key, **settings)
    client: FlaskClient = app.test_client()
    return client


def cache_events(client: FlaskClient) -> dict[str, float]:
    text = client.get("/metrics").get_data(as_text=True)
    kinds = ("hit", "miss", "error", "rejected")
    return {kind: metric_value(text, CACHE_EVENTS, kind=kind) for kind in kinds}


def without_state_id(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "state_id"}


def expected_replay(log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    body = arbiter.replay(log).to_dict(lang)
    body["state_id"] = None if body["status"] == "invalid" else ANY_STATE_ID
    return body


def replay(client: FlaskClient, log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    response = client.post("/v1/replays", json=log, headers={"Accept-Language": lang})
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    body: dict[str, Any] = response.get_json()
    return body


def with_events(log: dict[str, Any], deal: int, count: int) -> dict[str, Any]:
    """``log`` cut after deal ``deal`` and ``count`` events of it."""
    out = copy.deepcopy(log)
    out["deals"] = out["deals"][: deal + 1]
    out["deals"][deal]["events"] = out["deals"][deal]["events"][:count]
    return out


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
    """A log resumed from the cache at each kind of cached prefix (the log minus its last
    event, the same log, the end of the previous deal) answers exactly as the library."""
    client = cluster_client(redis_cluster, f"replays-{seed}")
    full = game(seed, renuncio_rate=0.05)
    last = len(full["deals"]) - 1
    n = len(full["deals"][last]["events"])
    log = with_events(full, last, n - 5)  # the last deal in progress
    shorter = with_events(full, last, n - 6)
    corrected = with_events(full, last, n - 9)  # another continuation of the previous deal

    first = replay(client, shorter, lang)
    assert first == expected_replay(shorter, lang)
    assert cache_events(client) == {"hit": 0, "miss": 1, "error": 0, "rejected": 0}

    second = replay(client, log, lang)  # resumes from `shorter` (log minus its last event)
    assert second == expected_replay(log, lang)
    third = replay(client, log, lang)  # the very state
    assert third == second
    fourth = replay(client, corrected, lang)  # resumes from the end of the previous deal
    assert fourth == expected_replay(corrected, lang)
    assert cache_events(client) == {"hit": 3, "miss": 1, "error": 0, "rejected": 0}
    assert len({first["state_id"], second["state_id"], fourth["state_id"]}) == 3

    # the scores endpoint resumes too, and agrees with the library
    scores = client.post("/v1/scores", json=log).get_json()
    assert scores == arbiter.replay(log).scores_dict()
    assert cache_events(client)["hit"] == 4


def test_validate_with_the_full_log_matches_the_library(redis_cluster: LocalCluster) -> None:
    client = cluster_client(redis_cluster, "validate-full")
    log = with_events(game(4, deals=2), 1, 13)
    for move in arbiter.replay(log).to_dict()["next"]["legal_moves"]:
        response = client.post("/v1/moves/validate", json={**log, "move": move})
        assert response.status_code == 200
        body = response.get_json()
        assert without_state_id(body) == without_state_id(arbiter.validate(log, move).to_dict())
        assert body["verdict"] == "ok"
        assert body["state_id"] == ANY_STATE_ID
    moves = len(arbiter.replay(log).to_dict()["next"]["legal_moves"])
    assert cache_events(client) == {"hit": moves - 1, "miss": 1, "error": 0, "rejected": 0}


def test_move_by_move_with_state_ids_works_across_a_whole_deal(
    redis_cluster: LocalCluster,
) -> None:
    """From the state_id of a replay at the start of a deal, every move of that deal is
    validated sending only ``state_id`` + move; each answer equals the library's on the log
    so far. The id after the deal's last move names the state a replay of the whole log
    reaches (a cache hit); beyond it the deal is over: the next deal needs the full log."""
    client = cluster_client(redis_cluster, "move-by-move")
    full = game(5, deals=2)
    events = full["deals"][1]["events"]
    start = with_events(full, 1, 0)
    state_id = replay(client, start)["state_id"]
    assert state_id == ANY_STATE_ID
    for j, move in enumerate(events):
        response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert response.status_code == 200, (j, response.get_data(as_text=True)[:300])
        body = response.get_json()
        expected = arbiter.validate(with_events(full, 1, j), move).to_dict()
        assert without_state_id(body) == without_state_id(expected), j
        assert body["verdict"] == "ok"
        assert body["state_id"] == ANY_STATE_ID
        assert body["state_id"] != state_id
        state_id = body["state_id"]
    events_so_far = cache_events(client)
    assert events_so_far == {"hit": len(events), "miss": 1, "error": 0, "rejected": 0}

    # the id reached move by move is the id of the whole log, and that state is cached
    whole = replay(client, full)
    assert whole == expected_replay(full)
    assert whole["status"] == "complete"
    assert whole["state_id"] == state_id
    assert cache_events(client)["hit"] == len(events) + 1

    # the deal is over: a state_id alone cannot go on into the next deal
    move = {"type": "play", "seat": 0, "card": "1O"}
    response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
    assert response.status_code == 200
    body = response.get_json()
    assert body == {**arbiter.validate(full, move).to_dict(), "state_id": None}
    assert (body["verdict"], body["code"], body["legal_moves"]) == ("illegal", "deal_over", [])
    assert cache_events(client)["hit"] == len(events) + 2  # the state was found: it is over

    # ... while the full log with the next deal resumes from the state the moves reached
    third = game(5, deals=3)
    assert third["deals"][:2] == full["deals"]
    next_deal = with_events(third, 2, 0)
    assert replay(client, next_deal) == expected_replay(next_deal)
    assert cache_events(client) == {"hit": len(events) + 3, "miss": 1, "error": 0, "rejected": 0}


def _position_with_a_renuncio(log: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The first prefix of the deal where the seat to play holds both correct plays and
    renuncios, and every play of that seat's hand (plus one out of turn)."""
    events = log["deals"][0]["events"]
    for j in range(len(events)):
        prefix = with_events(log, 0, j)
        state = arbiter.replay(prefix).match.current
        assert state is not None
        seat = state.turn
        moves = [
            {"type": "play", "seat": seat, "card": format_card(card, "spanish")}
            for card in cards_of(state.hands[seat])
        ]
        verdicts = {arbiter.validate(prefix, m).judgement.verdict for m in moves}
        if verdicts == {"ok", "renuncio"}:
            return prefix, [*moves, {**moves[0], "seat": 1 - seat}]
    raise AssertionError("no position with a possible renuncio in this deal")


def test_state_id_with_a_renuncio_or_an_illegal_move(redis_cluster: LocalCluster) -> None:
    """Through a state_id, every play of the hand gets the library's verdict; only an ok
    move gets a state_id."""
    client = cluster_client(redis_cluster, "renuncio")
    log, moves = _position_with_a_renuncio(game(6, deals=1))
    state_id = replay(client, log)["state_id"]
    verdicts: Counter[str] = Counter()
    for move in moves:
        response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert response.status_code == 200
        body = response.get_json()
        expected = arbiter.validate(log, move).to_dict()
        assert without_state_id(body) == without_state_id(expected)
        assert (body["state_id"] is None) == (body["verdict"] != "ok")
        verdicts[body["verdict"]] += 1
    assert verdicts["ok"] >= 1
    assert verdicts["renuncio"] >= 1
    assert verdicts["illegal"] == 1  # the play out of turn
    assert cache_events(client) == {"hit": len(moves), "miss": 1, "error": 0, "rejected": 0}


def test_unknown_state_id_is_409(redis_cluster: LocalCluster) -> None:
    client = cluster_client(redis_cluster, "unknown")
    move = {"type": "play", "seat": 0, "card": "1O"}
    for state_id in ("0123456789.00000000000000000000000000000000", "x.y", "nodot"):
        response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert response.status_code == 409
        assert response.mimetype == PROBLEM_JSON
    # an id made with another key is unknown here
    other = cluster_client(redis_cluster, "unknown-other")
    state_id = replay(other, with_events(game(7, deals=1), 0, 4))["state_id"]
    response = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
    assert response.status_code == 409


def _game_keys(cluster: LocalCluster, game_tag: str) -> dict[int, list[str]]:
    found = cluster.keys(f"*{{{game_tag}}}*")
    return {port: keys for port, keys in found.items() if keys}


def test_the_keys_of_one_game_share_one_hash_slot(redis_cluster: LocalCluster) -> None:
    """Every state of a game is stored under the game's hash tag: one slot, one master, and
    exactly the states the requests made (boundary, start of the deal, one per move)."""
    client = cluster_client(redis_cluster, "slots")
    full = game(8, deals=2)
    events = full["deals"][1]["events"][:12]
    state_id = replay(client, with_events(full, 1, 0))["state_id"]
    ids = [state_id]
    for move in events:
        body = client.post("/v1/moves/validate", json={"state_id": ids[-1], "move": move})
        ids.append(body.get_json()["state_id"])
    tag = StateCache.game_of(state_id)
    assert {StateCache.game_of(i) for i in ids} == {tag}

    by_node = _game_keys(redis_cluster, tag)
    assert len(by_node) == 1, by_node
    (port, keys) = next(iter(by_node.items()))
    # the end of deal 0 (kept by the replay of a two-deal log), then one key per state id
    assert len(keys) == len(ids) + 1
    assert {StateCache.storage_key(i) for i in ids} < set(keys)
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
    tags = set()
    for seed in range(12):
        tags.add(
            StateCache.game_of(replay(client, with_events(game(100 + seed, 1), 0, 6))["state_id"])
        )
    slots = {redis_cluster.keyslot(f"{{{tag}}}") for tag in tags}
    # 12 matches between the same two names: all in one slot would be a 1-in-16384**11
    # accident, unless the hash tag only depended on the header (ruleset, options, players)
    assert len(tags) == 12
    assert len(slots) == 12


# --- a master crashes --------------------------------------------------------------------------


def _logs_on(cluster: LocalCluster, key: str, port: int, count: int) -> list[dict[str, Any]]:
    """``count`` two-deal logs (last deal in progress) whose states (under ``key``) live on
    the master ``port``."""
    ids = StateIds(key.encode())
    found = []
    for seed in range(1000, 1200):
        log = with_events(game(seed, deals=2), 1, 15)
        tag = ids.chain(parse_log(log)).game
        if cluster.owner_of_slot(cluster.keyslot(f"{{{tag}}}")) == port:
            found.append(log)
            if len(found) == count:
                return found
    raise AssertionError(f"not {count} games found whose states live on {port}")


def test_a_master_crashes_mid_run() -> None:
    """SIGKILL the master that holds the game's states and is the node of
    REDIS_CLUSTER_URL. Full-log requests stay exactly right; a state_id whose state lived on
    the crashed master is a 409 (resend the log); nothing is a 5xx, before the cluster
    notices (connection refused) and after it marks itself failed (CLUSTERDOWN)."""
    key = "crash"
    with running_cluster(node_timeout_ms=1000) as cluster:
        victim = cluster.ports[0]  # the node the service was given
        on_victim = _logs_on(cluster, key, victim, 2)
        elsewhere = _logs_on(cluster, key, cluster.ports[1], 1)
        logs = [on_victim[0], elsewhere[0], on_victim[1]]
        client = cluster_client(cluster, key, breaker_cooldown=0.2)
        ids = {}
        for i, log in enumerate(logs):
            assert replay(client, log) == expected_replay(log)
            ids[i] = replay(client, log)["state_id"]
        assert cache_events(client)["hit"] == len(logs)
        stored = cluster.keys("tute:*")
        assert StateCache.storage_key(ids[0]) in stored[victim]
        assert StateCache.storage_key(ids[2]) in stored[victim]
        assert StateCache.storage_key(ids[1]) in stored[cluster.ports[1]]

        cluster.kill(victim)
        statuses: Counter[int] = Counter()

        def round_of_requests(phase: str) -> None:
            for i, log in enumerate(logs):
                body = replay(client, log)
                assert body == expected_replay(log), phase
                move = arbiter.replay(log).to_dict()["next"]["legal_moves"][0]
                expected = without_state_id(arbiter.validate(log, move).to_dict())
                response = client.post("/v1/moves/validate", json={**log, "move": move})
                assert response.status_code == 200, (phase, response.get_data(as_text=True))
                assert without_state_id(response.get_json()) == expected, phase
                response = client.post(
                    "/v1/moves/validate", json={"state_id": ids[i], "move": move}
                )
                statuses[response.status_code] += 1
                assert response.status_code in (200, 409), (phase, response.status_code)
                if response.status_code == 409:
                    assert response.mimetype == PROBLEM_JSON
                else:
                    assert without_state_id(response.get_json()) == expected, phase
                if i != 1:  # the state lived only on the crashed master
                    assert response.status_code == 409, phase
                ready = client.get("/readyz")
                assert ready.status_code == 200
                assert ready.get_json()["cache"]["backend"] == "cluster"

        round_of_requests("node down, not yet noticed")
        cluster.wait_state("fail", timeout=15)
        round_of_requests("cluster_state:fail")
        time.sleep(0.3)  # past the breaker's cooldown: the backend is called again
        round_of_requests("cluster_state:fail, breaker half-open")
        assert statuses[409] >= 6
        assert set(statuses) <= {200, 409}
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
    replaying, /readyz says degraded (200). Regression: redis-py raises
    RedisClusterException ('Redis Cluster cannot be connected'), which is not a RedisError;
    until 7f83f48 it escaped STORE_ERRORS and every request was a 500."""
    log = with_events(game(21, deals=2), 1, 7)
    with running_cluster(node_timeout_ms=1000) as cluster:
        app = create_app(
            Settings(cache="cluster", redis_cluster_url=cluster.url, state_key="no-node")
        )
        client = app.test_client()
        if case.startswith("whole"):
            assert client.post("/v1/replays", json=log).status_code == 200
            for port in cluster.ports:
                cluster.kill(port)
        else:
            cluster.kill(cluster.ports[0])
        statuses = []
        for _ in range(5):  # past the breaker's threshold of 3 failures
            response = client.post("/v1/replays", json=log)
            statuses.append(response.status_code)
            if response.status_code == 200:
                assert without_state_id(response.get_json()) == (
                    without_state_id(arbiter.replay(log).to_dict())
                )
        ready = client.get("/readyz")
        assert (statuses, ready.status_code) == ([200] * 5, 200)
        assert ready.get_json() == {
            "status": "degraded",
            "cache": {"backend": "cluster", "reachable": False},
        }
