"""The hot path of the JSON endpoints of /v1 (arbiter/api/hot.py) answers as the routes do.

Two apps with the same settings and state key: the shipped one, which answers ``POST
/v1/moves/validate``, ``/v1/replays`` and ``/v1/scores`` without Flask's request handling, and
one whose frame has no hot path, which answers them through the Flask routes. Every request
below goes to both: the status, every header (in order) and the body must be the same — the
``state_id`` of an ok verdict aside, which is sealed with a fresh nonce each time (both must
open, to the same position). Metrics and the access line count the request under the same
labels either way. With a rate limit (checked in the request's frame, so the thin path stays
on), each side has its own budget and both are sent the same requests: the limit's headers and
its 429s are the same too, under a stopped wall clock. An endpoint added to the route table
(arbiter/api/routes.py) gets both paths and its place in the contract from that entry alone.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

import arbiter
from arbiter.api import create_app
from arbiter.api.frame import Frame
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.api_support import metric_value

STATE_KEY = "test-hot-path-state-key-0123456789abcdef"
KEY = "key-hot-4d1e2f"
MID = random_log("tute-4p", random.Random(41), finish_last=False, stop_after=13)
NEXT = arbiter.replay(MID).to_dict()["next"]["legal_moves"]


def _apps(**settings: Any) -> tuple[Flask, Flask]:
    hot = create_app(Settings(state_key=STATE_KEY, **settings))
    flask_only = create_app(Settings(state_key=STATE_KEY, **settings))
    frame = flask_only.wsgi_app
    assert isinstance(frame, Frame) and isinstance(hot.wsgi_app, Frame)
    assert hot.wsgi_app.hot, "the shipped app has its hot path"
    frame.hot.clear()
    return hot, flask_only


def _token(client: FlaskClient) -> str:
    answer = client.post("/v1/replays", json=MID)
    assert answer.status_code == 200
    token: str = answer.get_json()["state_id"]
    return token


def _same(
    hot: FlaskClient, flask_only: FlaskClient, path: str = "/v1/moves/validate", **request: Any
) -> dict[str, Any] | None:
    """Both answers to ``request`` (keyword arguments of the test client's ``post``), which
    must be the same; the hot path's JSON body."""
    headers = {"X-Request-ID": "hot-1", **request.pop("headers", {})}
    a = hot.post(path, headers=headers, **request)
    b = flask_only.post(path, headers=headers, **request)
    assert a.status == b.status
    assert [(k, v) for k, v in a.headers if k != "Content-Length"] == [
        (k, v) for k, v in b.headers if k != "Content-Length"
    ]
    body_a, body_b = a.get_data(), b.get_data()
    if a.status_code == 200 and b'"state_id":"' in body_a:
        one, two = orjson.loads(body_a), orjson.loads(body_b)
        assert one.pop("state_id") and two.pop("state_id")
        assert one == two
        return dict(orjson.loads(body_a))
    assert body_a == body_b
    assert a.headers["Content-Length"] == b.headers["Content-Length"]
    return orjson.loads(body_a) if body_a else None


def _bodies(token: str) -> dict[str, dict[str, Any]]:
    mine = MID["deals"][-1]["events"]
    return {
        "ok by token": {"json": {"state_id": token, "move": NEXT[0]}},
        "ok by log": {"json": {**MID, "move": NEXT[-1]}},
        "another seat's card": {"json": {"state_id": token, "move": {**NEXT[0], "seat": 3}}},
        "a card played before": {"json": {"state_id": token, "move": mine[0]}},
        "in Spanish": {"json": {"state_id": token, "move": NEXT[0]},
                       "headers": {"Accept-Language": "es"}},
        "garbage token": {"json": {"state_id": "x" * 40, "move": NEXT[0]}},
        "token not a string": {"json": {"state_id": 7, "move": NEXT[0]}},
        "no move": {"json": {"state_id": token}},
        "not an object": {"json": [1, 2]},
        "not JSON": {"data": b"{", "content_type": "application/json"},
        "NaN": {"data": b'{"move": NaN}', "content_type": "application/json"},
        "text/plain": {"data": b"{}", "content_type": "text/plain"},
        "gzip": {"data": b"{}", "content_type": "application/json",
                 "headers": {"Content-Encoding": "gzip"}},
        "too large": {"data": b'{"x": "' + b"y" * 2_000_000 + b'"}',
                      "content_type": "application/json"},
        "no request id": {"json": {"state_id": token, "move": NEXT[0]},
                          "headers": {"X-Request-ID": "\x07"}},
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_bodies("t")))
def test_the_hot_path_answers_as_the_route(name: str) -> None:
    hot, flask_only = (app.test_client() for app in _apps())
    request = _bodies(_token(hot))[name]
    if name == "no request id":  # a new id each: compare all but it
        a = hot.post("/v1/moves/validate", **request)
        b = flask_only.post("/v1/moves/validate", **request)
        assert a.status == b.status and list(a.headers.keys()) == list(b.headers.keys())
        assert a.headers["X-Request-ID"] != "\x07"
        fresh = a.headers["X-Request-ID"]
        assert len(fresh) == 32 and int(fresh, 16) >= 0  # a new id drawn instead
        return
    _same(hot, flask_only, **request)


COMPLETE = random_log("tute-3p", random.Random(42), deals=2, renuncio_rate=0.2)
LOGS: dict[str, dict[str, Any]] = {
    "complete": {"json": COMPLETE},
    "in progress": {"json": MID},
    "with steps": {"json": {**MID, "steps": True}},
    "steps not a flag": {"json": {**MID, "steps": "yes"}},
    "in Spanish": {"json": COMPLETE, "headers": {"Accept-Language": "es-ES"}},
    "a card dealt twice": {"json": {**MID, "deals": [{**MID["deals"][0], "hands": [
        MID["deals"][0]["hands"][0], *MID["deals"][0]["hands"][:-1]]}]}},
    "no ruleset": {"json": {"players": ["a", "b"], "deals": []}},
    "empty object": {"json": {}},
    "not JSON": {"data": b"[", "content_type": "application/json"},
    "a JSON text type": {"data": orjson.dumps(MID), "content_type": "application/vnd.x+json"},
    "text/plain": {"data": orjson.dumps(MID), "content_type": "text/plain"},
}  # fmt: skip


@pytest.mark.parametrize("path", ["/v1/replays", "/v1/scores"])
@pytest.mark.parametrize("name", sorted(LOGS))
def test_replays_and_scores_answer_as_their_routes(path: str, name: str) -> None:
    hot, flask_only = (app.test_client() for app in _apps())
    request = {k: dict(v) if isinstance(v, dict) else v for k, v in LOGS[name].items()}
    _same(hot, flask_only, path, **request)


def test_a_token_of_the_hot_path_opens_on_the_route_and_back() -> None:
    hot, flask_only = (app.test_client() for app in _apps())
    answer = _same(hot, flask_only, json={"state_id": _token(hot), "move": NEXT[0]})
    assert answer is not None and answer["verdict"] == "ok"
    after = hot.post("/v1/moves/validate", json={"state_id": _token(flask_only), "move": NEXT[0]})
    token = after.get_json()["state_id"]
    follow = arbiter.replay(
        {**MID, "deals": [{**MID["deals"][0], "events": [*MID["deals"][0]["events"], NEXT[0]]}]}
    ).to_dict()
    move = follow["next"]["legal_moves"][0]
    _same(hot, flask_only, json={"state_id": token, "move": move})


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": KEY}, {"X-API-Key": "wrong"},
                                     {"Authorization": f"Bearer {KEY}"}])  # fmt: skip
def test_keys_are_checked_on_the_hot_path(headers: dict[str, str]) -> None:
    hot, flask_only = (app.test_client() for app in _apps(api_keys=(KEY,)))
    answer = _same(hot, flask_only, json={**MID, "move": NEXT[0]}, headers=headers)
    assert answer is not None
    assert ("verdict" in answer) is (KEY in str(headers))


def test_a_fault_of_ours_is_the_same_500(monkeypatch: pytest.MonkeyPatch) -> None:
    hot_app, flask_app = _apps()

    def broken(*_: Any) -> Any:
        raise RuntimeError("a bug")

    for app in (hot_app, flask_app):
        monkeypatch.setattr(app.extensions["arbiter.referee"], "validate_request", broken)
    problem = _same(hot_app.test_client(), flask_app.test_client(),
                    json={"state_id": "x", "move": NEXT[0]})  # fmt: skip
    assert problem is not None and problem["status"] == 500
    assert "hot-1" in problem["detail"]


def test_metrics_and_the_access_line_count_it_alike(capsys: pytest.CaptureFixture[str]) -> None:
    hot_app, flask_app = _apps()
    for app in (hot_app, flask_app):
        client = app.test_client()
        token = _token(client)
        capsys.readouterr()
        client.post("/v1/moves/validate", json={"state_id": token, "move": NEXT[0]})
        client.post("/v1/moves/validate", data=b"{", content_type="application/json")
        lines = [orjson.loads(line) for line in capsys.readouterr().err.splitlines()]
        assert [(line["path"], line["status"]) for line in lines] == [
            ("/v1/moves/validate", 200),
            ("/v1/moves/validate", 400),
        ]
        text = client.get("/metrics").get_data(as_text=True)
        for status in (200, 400):
            labels = {"method": "POST", "endpoint": "/v1/moves/validate", "status": str(status)}
            assert metric_value(text, "arbiter_requests_total", **labels) == 1
        assert metric_value(text, "arbiter_request_duration_seconds_count", method="POST",
                            endpoint="/v1/moves/validate") == 2  # fmt: skip


LIMITED: dict[str, Any] = {"rate_limit": "3/minute"}


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wall clock stopped, so that both apps' budgets read the same Reset and Retry-After
    (each side's counters are its own; a second's edge between them would tell them apart)."""
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now)


def test_with_a_rate_limit_the_thin_path_answers_it() -> None:
    """ARBITER_RATE_LIMIT no longer turns the thin path off: the frame counts the request."""
    app = create_app(Settings(state_key=STATE_KEY, **LIMITED))
    frame = app.wsgi_app
    assert isinstance(frame, Frame) and set(frame.hot) == {
        "/v1/replays", "/v1/scores", "/v1/moves/validate", "/v1/positions"}  # fmt: skip

    def not_flask(*_: Any) -> Any:
        raise AssertionError("a request of the thin path went through Flask")

    frame.wsgi_app = not_flask
    client = app.test_client()
    answers = [client.post("/v1/moves/validate", json={**MID, "move": NEXT[0]})
               for _ in range(4)]  # fmt: skip
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert int(answers[-1].headers["Retry-After"]) >= 1


@pytest.mark.usefixtures("frozen_clock")
@pytest.mark.parametrize("path", ["/v1/moves/validate", "/v1/replays", "/v1/scores"])
def test_with_a_rate_limit_the_thin_path_answers_as_the_route(path: str) -> None:
    """The same requests, one budget each side: the same answers, the limit's headers and the
    429s included, whether the thin path or Flask answers."""
    hot, flask_only = (app.test_client() for app in _apps(**LIMITED))
    body = {**MID, "move": NEXT[0]} if path == "/v1/moves/validate" else MID
    sent = [{"json": body}, {"data": b"{", "content_type": "application/json"},
            {"json": body, "headers": {"Accept-Language": "es"}}, {"json": body},
            {"json": {"ruleset": "tute-2p"}}]  # fmt: skip
    statuses = []
    for request in sent:
        answer = _same(hot, flask_only, path, **dict(request))
        assert answer is not None
        statuses.append(answer["status"] if "type" in answer else 200)  # a problem, or not
    assert statuses == [200, 400, 200, 429, 429]


@pytest.mark.usefixtures("frozen_clock")
def test_with_keys_and_a_rate_limit_each_key_has_its_budget_both_ways() -> None:
    other = "key-hot-second-9a8b"
    hot, flask_only = (app.test_client() for app in _apps(api_keys=(KEY, other), **LIMITED))
    move = {"json": {**MID, "move": NEXT[0]}}
    seen = []
    for headers in [{"X-API-Key": KEY}] * 4 + [{"X-API-Key": "wrong"}, {"X-API-Key": other}]:
        answer = _same(hot, flask_only, headers=headers, **dict(move))
        assert answer is not None
        seen.append(answer["status"] if "type" in answer else 200)
    assert seen == [200, 200, 200, 429, 401, 200]


def test_other_methods_and_paths_go_through_flask() -> None:
    hot, flask_only = (app.test_client() for app in _apps())
    same = {"X-Request-ID": "other-1"}  # the problems name it: the same on both sides
    send: list[Callable[[FlaskClient], Any]] = [
        lambda c: c.get("/v1/moves/validate", headers=same),
        lambda c: c.put("/v1/moves/validate", json={}, headers=same),
        lambda c: c.post("/v1/moves/validate/", json={}, headers=same),
        lambda c: c.post("/v1/moves/validat", json={}, headers=same),
    ]
    for request in send:
        a, b = request(hot), request(flask_only)
        assert a.status_code == b.status_code and a.status_code >= 300
        assert a.get_data() == b.get_data()
        assert a.headers.get("Allow") == b.headers.get("Allow")


def test_one_entry_of_the_table_makes_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """An endpoint added to the route table is registered, documented in the contract and
    answered by the thin path, from that entry alone."""
    from arbiter.api import routes
    from arbiter.api.schemas import GameLogSchema, HealthSchema
    from arbiter.api.spec import spec_yaml

    def echoed(call: routes.Call) -> bytes:
        return orjson.dumps({"ruleset": call.body().get("ruleset")})

    entry = routes.Endpoint(
        "POST", "/v1/echo", "Echo a ruleset", answers=echoed,
        body=routes.Body(GameLogSchema, lambda: {}), answer=routes.Answer(dict, HealthSchema),
        problems=(400, 401, 429),
    )  # fmt: skip
    table = (*routes.V1, entry)
    blueprints = [(n, d, table if t is routes.V1 else t) for n, d, t in routes.BLUEPRINTS]
    monkeypatch.setattr(routes, "V1", table)
    monkeypatch.setattr(routes, "BLUEPRINTS", tuple(blueprints))
    hot, flask_only = _apps(**LIMITED)
    assert isinstance(hot.wsgi_app, Frame) and "/v1/echo" in hot.wsgi_app.hot
    assert "/v1/echo:\n    post:\n" in spec_yaml(hot)
    answer = _same(hot.test_client(), flask_only.test_client(), "/v1/echo", json=MID)
    assert answer == {"ruleset": MID["ruleset"]}
