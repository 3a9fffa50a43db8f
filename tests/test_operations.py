"""Operations features of the service, in process (Flask test client, ``create_app(Settings)``).

- API keys (``Settings.api_keys``): every ``/v1/`` call needs ``Authorization: Bearer <key>`` or
  ``X-API-Key: <key>``; health, readiness, the contract and ``/docs`` stay open; ``/metrics``
  follows ``Settings.metrics`` (open, protected, off).
- Rate limits (``Settings.rate_limit``, the ``limits`` library in the request's frame): per API
  key, or per client address without keys (the forwarded one behind a trusted proxy); counters
  in the state cache's Redis when one is configured (the session's throwaway Redis,
  ``redis_db`` of tests/redis_support.py).
- Security headers on every answer, request ids, JSON access logs without personal data, and
  the Prometheus counters of requests and verdicts.

Answers of ``/v1/`` operations are also checked against the committed contract
(:func:`tests.api_support.assert_conforms`).
"""

from __future__ import annotations

import io
import logging
import random
import re
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

import arbiter
from arbiter.api import create_app, logs
from arbiter.jsonlog import JsonFormatter, formatter
from arbiter.settings import Settings, SettingsError
from arbiter.simulate import random_log
from tests.api_support import (
    JSON,
    PROBLEM_JSON,
    assert_conforms,
    assert_problem,
    four_player_log,
    metric_value,
    template_of,
)
from tests.hand_built import play
from tests.redis_support import RedisDatabase

KEY_1 = "key-alpha-7f3c91d2"
KEY_2 = "key-bravo-0b44e6a8"
WRONG_KEY = "key-charlie-5aa1c0de"
HEX32 = re.compile(r"[0-9a-f]{32}")

#: The security headers of every answer outside /docs.
API_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Cache-Control": "no-store",
}

# --- logs and calls ---------------------------------------------------------------------------

COMPLETE_LOG = random_log("tute-2p", random.Random(11), renuncio_rate=0.05)
MID_LOG = random_log("tute-2p", random.Random(12), finish_last=False, stop_after=9)
NEXT_MOVE = arbiter.replay(MID_LOG).to_dict()["next"]["legal_moves"][0]

#: (method, path, JSON body) of every /v1/ adjudication call (the contract's operations).
V1_CALLS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/v1/replays", COMPLETE_LOG),
    ("POST", "/v1/scores", COMPLETE_LOG),
    ("POST", "/v1/moves/validate", {**MID_LOG, "move": NEXT_MOVE}),
    ("GET", "/v1/rulesets", None),
    ("GET", "/v1/rulesets/tute-cabron", None),
]
V1_IDS = [f"{m} {p}" for m, p, _ in V1_CALLS]


def call(
    client: FlaskClient,
    method: str,
    path: str,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    **kwargs: Any,
) -> TestResponse:
    """One request; the answer of a contract operation is checked against the contract."""
    response = client.open(path, method=method, json=body, headers=headers or {}, **kwargs)
    template = template_of(path)
    if template is not None and template.startswith("/v1/"):
        assert_conforms(response, template, method)
    return response


def client_of(**settings: Any) -> FlaskClient:
    return create_app(Settings(**settings)).test_client()


@pytest.fixture
def keyed() -> FlaskClient:
    return client_of(api_keys=(KEY_1, KEY_2))


# --- API keys -----------------------------------------------------------------------------------

#: Credentials that must not open /v1/.
BAD_CREDENTIALS: dict[str, dict[str, str]] = {
    "none": {},
    "wrong bearer": {"Authorization": f"Bearer {WRONG_KEY}"},
    "wrong X-API-Key": {"X-API-Key": WRONG_KEY},
    "bearer without token": {"Authorization": "Bearer"},
    "bearer with blank token": {"Authorization": "Bearer    "},
    "key without scheme": {"Authorization": KEY_1},
    "scheme glued to key": {"Authorization": f"Bearer{KEY_1}"},
    "basic scheme": {"Authorization": "Basic a2V5LWFscGhhLTdmM2M5MWQy"},
    "token scheme": {"Authorization": f"Token {KEY_1}"},
    "empty X-API-Key": {"X-API-Key": ""},
    "key prefix": {"X-API-Key": KEY_1[:-1]},
    "key with suffix": {"X-API-Key": KEY_1 + "0"},
    "two keys in one": {"X-API-Key": f"{KEY_1},{KEY_2}"},
    "non-ASCII key": {"X-API-Key": "cl\u00e9-" + KEY_1},
    "non-ASCII bearer": {"Authorization": "Bearer \u00f1" + KEY_1},
    "wrong bearer beats a good X-API-Key": {
        "Authorization": f"Bearer {WRONG_KEY}",
        "X-API-Key": KEY_1,
    },
}

#: Credentials that open /v1/.
GOOD_CREDENTIALS: dict[str, dict[str, str]] = {
    "bearer key 1": {"Authorization": f"Bearer {KEY_1}"},
    "bearer key 2": {"Authorization": f"Bearer {KEY_2}"},
    "lower-case scheme": {"Authorization": f"bearer {KEY_1}"},
    "X-API-Key key 1": {"X-API-Key": KEY_1},
    "X-API-Key key 2": {"X-API-Key": KEY_2},
}


@pytest.mark.parametrize("credentials", BAD_CREDENTIALS.values(), ids=BAD_CREDENTIALS.keys())
@pytest.mark.parametrize(("method", "path", "body"), V1_CALLS, ids=V1_IDS)
def test_v1_refuses_missing_wrong_or_malformed_keys(
    keyed: FlaskClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    credentials: dict[str, str],
) -> None:
    response = call(keyed, method, path, body, credentials)
    problem = assert_problem(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="tute-arbiter"'
    assert set(problem) == {"type", "title", "status", "detail", "request_id"}
    text = response.get_data(as_text=True)
    for secret in (KEY_1, KEY_2, WRONG_KEY):  # the answer never reflects a key
        assert secret not in text
        assert all(secret not in v for v in response.headers.values())


@pytest.mark.parametrize("credentials", GOOD_CREDENTIALS.values(), ids=GOOD_CREDENTIALS.keys())
@pytest.mark.parametrize(("method", "path", "body"), V1_CALLS, ids=V1_IDS)
def test_v1_accepts_a_configured_key(
    keyed: FlaskClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    credentials: dict[str, str],
) -> None:
    response = call(keyed, method, path, body, credentials)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == JSON
    assert "WWW-Authenticate" not in response.headers


def test_the_answer_with_a_key_is_the_answer_without_keys(keyed: FlaskClient) -> None:
    """Keys only gate access: the adjudication is the same as on an open server."""
    open_client = client_of()
    for method, path, body in V1_CALLS:
        with_key = call(keyed, method, path, body, {"X-API-Key": KEY_2}).get_json()
        without = call(open_client, method, path, body).get_json()
        if isinstance(with_key, dict):  # state ids depend on each server's random key
            with_key.pop("state_id", None)
            without.pop("state_id", None)
        assert with_key == without, path


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/v1/openapi.yaml", "/docs/", "/metrics"])
def test_service_endpoints_stay_open_with_keys(keyed: FlaskClient, path: str) -> None:
    response = keyed.get(path)
    assert response.status_code == 200, path
    assert "WWW-Authenticate" not in response.headers


def test_docs_redirect_and_assets_stay_open_with_keys(keyed: FlaskClient) -> None:
    redirect = keyed.get("/docs")
    assert redirect.status_code in (301, 308)
    page = keyed.get("/docs/").get_data(as_text=True)
    assets = re.findall(r'(?:src|href)="([^"?/][^"?]*)"', page)  # relative to /docs/
    assert len(assets) >= 4, page[:500]
    for asset in assets:
        assert keyed.get("/docs/" + asset).status_code == 200, asset


def test_unknown_v1_path_needs_a_key_too(keyed: FlaskClient) -> None:
    """Nothing under /v1/ tells an anonymous client which paths exist."""
    assert_problem(keyed.get("/v1/nope"), 401, "unauthorized")
    assert_problem(keyed.get("/v1/nope", headers={"X-API-Key": KEY_1}), 404, "not-found")


def test_metrics_protected_needs_a_key() -> None:
    client = client_of(api_keys=(KEY_1, KEY_2), metrics="protected")
    for credentials in ({}, {"X-API-Key": WRONG_KEY}, {"Authorization": "Bearer"}):
        response = client.get("/metrics", headers=credentials)
        assert_problem(response, 401, "unauthorized")
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="tute-arbiter"'
    for credentials in ({"X-API-Key": KEY_1}, {"Authorization": f"Bearer {KEY_2}"}):
        response = client.get("/metrics", headers=credentials)
        assert response.status_code == 200
        assert "arbiter_requests_total" in response.get_data(as_text=True)
    assert client.get("/healthz").status_code == 200  # the rest stays as it was


def test_contract_documents_the_metrics_answers_of_protected_and_off() -> None:
    protected = client_of(api_keys=(KEY_1,), metrics="protected").get("/metrics")
    assert_conforms(protected, "/metrics", "GET")
    off = client_of(metrics="off").get("/metrics")
    assert_conforms(off, "/metrics", "GET")


def test_metrics_open_by_default_even_with_keys() -> None:
    for client in (client_of(), client_of(api_keys=(KEY_1,))):
        response = client.get("/metrics")
        assert response.status_code == 200
        assert response.mimetype == "text/plain"


@pytest.mark.parametrize("keys", [(), (KEY_1,)])
def test_metrics_off_is_not_found(keys: tuple[str, ...]) -> None:
    client = client_of(api_keys=keys, metrics="off")
    for credentials in ({}, {"X-API-Key": KEY_1}):
        assert_problem(client.get("/metrics", headers=credentials), 404, "not-found")
    assert client.get("/healthz").status_code == 200


def test_protected_metrics_without_keys_is_refused() -> None:
    with pytest.raises(SettingsError, match="ARBITER_API_KEYS"):
        Settings(metrics="protected").check()
    with pytest.raises(SettingsError, match="ARBITER_API_KEYS"):
        create_app(Settings(metrics="protected"))
    with pytest.raises(SettingsError, match="ARBITER_API_KEYS"):
        Settings.from_env({"ARBITER_METRICS": "protected"})
    with pytest.raises(SettingsError, match="ARBITER_METRICS"):
        Settings.from_env({"ARBITER_METRICS": "public"})


def test_api_keys_from_the_environment() -> None:
    settings = Settings.from_env({"ARBITER_API_KEYS": f" {KEY_1} ,, {KEY_2},"})
    assert settings.api_keys == (KEY_1, KEY_2)
    client = create_app(settings).test_client()
    assert client.get("/v1/rulesets", headers={"X-API-Key": KEY_2}).status_code == 200
    assert client.get("/v1/rulesets", headers={"X-API-Key": ""}).status_code == 401
    assert Settings.from_env({"ARBITER_API_KEYS": " , "}).api_keys == ()


# --- rate limits --------------------------------------------------------------------------------


def assert_limited(response: TestResponse) -> None:
    problem = assert_problem(response, 429, "too-many-requests")
    assert "3 per 1 minute" in problem["detail"]
    retry_after = int(response.headers["Retry-After"])
    assert 0 < retry_after <= 60


@pytest.mark.parametrize(("method", "path", "body"), V1_CALLS, ids=V1_IDS)
def test_fourth_call_of_a_key_is_limited(
    method: str, path: str, body: dict[str, Any] | None
) -> None:
    client = client_of(api_keys=(KEY_1, KEY_2), rate_limit="3/minute")
    for _ in range(3):
        response = call(client, method, path, body, {"X-API-Key": KEY_1})
        assert response.status_code == 200
    limited = call(client, method, path, body, {"Authorization": f"Bearer {KEY_1}"})
    assert_limited(limited)
    # the other key has its own bucket
    for _ in range(3):
        assert call(client, method, path, body, {"X-API-Key": KEY_2}).status_code == 200
    assert_limited(call(client, method, path, body, {"X-API-Key": KEY_2}))


def test_the_limit_covers_all_of_v1_together() -> None:
    client = client_of(api_keys=(KEY_1,), rate_limit="3/minute")
    statuses = [
        call(client, method, path, body, {"X-API-Key": KEY_1}).status_code
        for method, path, body in V1_CALLS[:4]
    ]
    assert statuses == [200, 200, 200, 429]


def test_without_keys_the_bucket_is_the_client_address() -> None:
    client = client_of(rate_limit="3/minute")
    first = {"REMOTE_ADDR": "192.0.2.10"}
    second = {"REMOTE_ADDR": "192.0.2.11"}
    for _ in range(3):
        assert client.get("/v1/rulesets", environ_base=first).status_code == 200
    assert_limited(client.get("/v1/rulesets", environ_base=first))
    for _ in range(3):
        assert client.get("/v1/rulesets", environ_base=second).status_code == 200
    assert_limited(client.get("/v1/rulesets", environ_base=second))
    # an API key header means nothing when no keys are configured: still the address
    assert_limited(client.get("/v1/rulesets", environ_base=first, headers={"X-API-Key": "k"}))


PROXY = "192.0.2.1"  # addresses of documentation ranges: only ever written into an environ


def _through(proxy: str, forwarded: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": proxy}, "headers": {"X-Forwarded-For": forwarded}}


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_budget() -> None:
    client = client_of(rate_limit="3/minute", forwarded_allow_ips=f"{PROXY},192.0.2.128/25")
    for i in range(12):
        for _ in range(3):
            answer = client.get("/v1/rulesets", **_through(PROXY, f"198.51.100.{i}"))
            assert answer.status_code == 200, i
        assert_limited(client.get("/v1/rulesets", **_through(PROXY, f"198.51.100.{i}")))
    # what a client writes to the left of its proxy's hop is not believed; trusted hops are
    # skipped (a second proxy of the network 192.0.2.128/25)
    assert_limited(client.get("/v1/rulesets", **_through(PROXY, "203.0.113.9, 198.51.100.3")))
    chain = _through(PROXY, "198.51.100.4, 192.0.2.200")
    assert_limited(client.get("/v1/rulesets", **chain))
    assert client.get("/v1/rulesets", **_through(PROXY, "198.51.100.99")).status_code == 200
    # the proxy's own requests (no X-Forwarded-For) are its own bucket
    assert client.get("/v1/rulesets", environ_base={"REMOTE_ADDR": PROXY}).status_code == 200


def test_a_peer_that_is_no_trusted_proxy_is_its_own_bucket_whatever_it_forwards() -> None:
    client = client_of(rate_limit="3/minute", forwarded_allow_ips="192.0.2.50")
    for i in range(3):
        assert client.get("/v1/rulesets", **_through(PROXY, f"198.51.100.{i}")).status_code == 200
    assert_limited(client.get("/v1/rulesets", **_through(PROXY, "198.51.100.77")))
    untrusting = client_of(rate_limit="3/minute")  # ARBITER_FORWARDED_ALLOW_IPS unset
    for i in range(3):
        answer = untrusting.get("/v1/rulesets", **_through(PROXY, f"198.51.100.{i}"))
        assert answer.status_code == 200
    assert_limited(untrusting.get("/v1/rulesets", **_through(PROXY, "198.51.100.77")))


def test_with_keys_behind_a_proxy_the_budget_is_the_keys() -> None:
    client = client_of(api_keys=(KEY_1, KEY_2), rate_limit="3/minute", forwarded_allow_ips=PROXY)

    def ask(forwarded: str, key: str) -> TestResponse:
        headers = {"X-Forwarded-For": forwarded, "X-API-Key": key}
        return client.get("/v1/rulesets", environ_base={"REMOTE_ADDR": PROXY}, headers=headers)

    for i in range(3):
        assert ask(f"198.51.100.{i}", KEY_1).status_code == 200
    assert_limited(ask("198.51.100.50", KEY_1))  # a new address, the same key
    assert ask("198.51.100.0", KEY_2).status_code == 200


def test_forwarded_allow_ips_must_be_addresses() -> None:
    with pytest.raises(SettingsError, match="ARBITER_FORWARDED_ALLOW_IPS"):
        Settings.from_env({"ARBITER_FORWARDED_ALLOW_IPS": "127.0.0.1,proxy.example"})
    assert Settings.from_env({"ARBITER_FORWARDED_ALLOW_IPS": "*"}).forwarded_allow_ips == "*"


def test_rejected_keys_are_not_counted_against_a_good_key() -> None:
    client = client_of(api_keys=(KEY_1,), rate_limit="3/minute")
    for _ in range(10):
        assert client.get("/v1/rulesets", headers={"X-API-Key": WRONG_KEY}).status_code == 401
    for _ in range(3):
        assert client.get("/v1/rulesets", headers={"X-API-Key": KEY_1}).status_code == 200


def test_successful_answers_carry_the_limit_headers() -> None:
    client = client_of(rate_limit="3/minute")
    remaining = []
    for _ in range(3):
        response = client.get("/v1/rulesets")
        assert response.headers["X-RateLimit-Limit"] == "3"
        remaining.append(int(response.headers["X-RateLimit-Remaining"]))
    assert remaining == [2, 1, 0]


def test_service_endpoints_are_not_limited() -> None:
    client = client_of(api_keys=(KEY_1,), rate_limit="3/minute")
    headers = {"X-API-Key": KEY_1}
    for _ in range(3):
        assert client.get("/v1/rulesets", headers=headers).status_code == 200
    assert client.get("/v1/rulesets", headers=headers).status_code == 429
    for _ in range(6):
        for path in ("/healthz", "/readyz", "/metrics", "/v1/openapi.yaml", "/docs/"):
            response = client.get(path, headers=headers)
            assert response.status_code == 200, path
            assert "Retry-After" not in response.headers, path


@pytest.mark.parametrize(
    ("rate", "amount"), [("3 per minute", "3"), ("3/minute;100/hour", "3"), ("10/second", "10")]
)
def test_rate_limit_forms(rate: str, amount: str) -> None:
    """Accepted, and in force: the answer names the limit with the least left."""
    assert client_of(rate_limit=rate).get("/v1/rulesets").headers["X-RateLimit-Limit"] == amount


@pytest.mark.parametrize("rate", ["lots", "3/fortnight", "/minute", "three per minute"])
def test_a_bad_rate_limit_is_refused(rate: str) -> None:
    with pytest.raises(SettingsError, match="ARBITER_RATE_LIMIT"):
        create_app(Settings(rate_limit=rate))


def redis_settings(url: str, **changes: Any) -> Settings:
    return Settings(
        cache="redis",
        redis_url=url,
        state_key="test-operations-state-key-0123456789",
        rate_limit="3/minute",
        **changes,
    )


def test_counters_live_in_redis_and_are_shared(redis_db: RedisDatabase) -> None:
    """Two apps (two workers, or two replicas) with the same Redis share one bucket."""
    first = create_app(redis_settings(redis_db.url, api_keys=(KEY_1, KEY_2))).test_client()
    second = create_app(redis_settings(redis_db.url, api_keys=(KEY_1, KEY_2))).test_client()
    headers = {"X-API-Key": KEY_1}
    assert first.get("/v1/rulesets", headers=headers).status_code == 200
    assert second.get("/v1/rulesets", headers=headers).status_code == 200
    assert first.get("/v1/rulesets", headers=headers).status_code == 200
    assert_limited(second.get("/v1/rulesets", headers=headers))
    assert_limited(first.get("/v1/rulesets", headers=headers))
    assert second.get("/v1/rulesets", headers={"X-API-Key": KEY_2}).status_code == 200
    keys = [k.decode() for k in redis_db.own_keys()]
    assert any("LIMIT" in k.upper() for k in keys), keys
    # the buckets are named by a digest of the key, never by the key itself
    assert not any(KEY_1 in k or KEY_2 in k for k in keys), keys


def test_a_fresh_app_sees_the_counts_of_redis(redis_db: RedisDatabase) -> None:
    """A restarted worker does not reset a client's bucket (a client of a key drawn for this
    test, so that its bucket is new whatever the Redis already holds)."""
    key = f"key-{random.randbytes(8).hex()}"
    for _ in range(3):
        client = create_app(redis_settings(redis_db.url, api_keys=(key,))).test_client()
        assert client.get("/v1/rulesets", headers={"X-API-Key": key}).status_code == 200
    fresh = create_app(redis_settings(redis_db.url, api_keys=(key,))).test_client()
    assert_limited(fresh.get("/v1/rulesets", headers={"X-API-Key": key}))


def test_an_unreachable_limiter_store_lets_requests_through() -> None:
    """A failing Redis must not fail the requests (the limiter swallows its errors)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = Settings(
        cache="redis",
        redis_url=f"redis://127.0.0.1:{port}/0",
        state_key="k" * 32,
        rate_limit="3/minute",
        cache_timeout=0.05,
    )
    client = create_app(settings).test_client()
    for method, path, body in V1_CALLS * 2:
        assert call(client, method, path, body).status_code == 200, path


# --- security headers and request ids ---------------------------------------------------------


def assert_api_headers(response: TestResponse) -> None:
    for name, value in API_HEADERS.items():
        assert response.headers.get(name) == value, (name, response.status_code)
    assert "Server" not in response.headers
    assert "X-Powered-By" not in response.headers


@pytest.mark.parametrize(
    ("settings", "method", "path", "kwargs", "status"),
    [
        ({}, "GET", "/healthz", {}, 200),
        ({}, "GET", "/readyz", {}, 200),
        ({}, "GET", "/metrics", {}, 200),
        ({}, "GET", "/v1/openapi.yaml", {}, 200),
        ({}, "GET", "/v1/rulesets", {}, 200),
        ({}, "POST", "/v1/replays", {"json": COMPLETE_LOG}, 200),
        ({}, "POST", "/v1/replays", {"data": b"{", "content_type": JSON}, 400),
        ({"api_keys": (KEY_1,)}, "GET", "/v1/rulesets", {}, 401),
        ({}, "GET", "/v1/rulesets/nope", {}, 404),
        ({}, "GET", "/nope", {}, 404),
        ({}, "GET", "/v1/replays", {}, 405),
        ({}, "POST", "/v1/replays", {"data": b"{}", "content_type": "text/plain"}, 415),
        ({}, "POST", "/v1/replays", {"json": {"ruleset": "tute-2p"}}, 422),
        ({"max_body_bytes": 100}, "POST", "/v1/replays", {"json": COMPLETE_LOG}, 413),
        ({"metrics": "off"}, "GET", "/metrics", {}, 404),
    ],
)
def test_security_headers_on_every_answer(
    settings: dict[str, Any], method: str, path: str, kwargs: dict[str, Any], status: int
) -> None:
    response = client_of(**settings).open(path, method=method, **kwargs)
    assert response.status_code == status
    assert_api_headers(response)
    if response.mimetype == PROBLEM_JSON:
        assert response.get_json()["request_id"] == response.headers["X-Request-ID"]


def test_security_headers_on_a_rate_limited_answer() -> None:
    client = client_of(rate_limit="3/minute")
    for _ in range(3):
        client.get("/v1/rulesets")
    response = client.get("/v1/rulesets")
    assert response.status_code == 429
    assert_api_headers(response)


def test_docs_have_their_own_policy() -> None:
    client = client_of()
    page = client.get("/docs/")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    csp = page.headers["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in csp.split("; ")}
    assert directives["default-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert "https:" not in csp
    assert "*" not in csp
    assert "'unsafe-eval'" not in csp
    assert directives["script-src"] == ["'self'"]  # no inline script runs (issue 22, item 3)
    assert "<script>" not in page.get_data(as_text=True)
    assert page.headers["Cache-Control"] == "no-store"
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert "Server" not in page.headers
    asset = re.search(r'src="([^"?/][^"?]*\.js)"', page.get_data(as_text=True))
    assert asset is not None
    script = client.get("/docs/" + asset.group(1))
    assert script.status_code == 200
    assert script.headers["Content-Security-Policy"] == csp
    # the page's own scripts and styles come from this origin: nothing for a CDN
    assert "//" not in "".join(re.findall(r'(?:src|href)="([^"]*)"', page.get_data(as_text=True)))


#: Answers of every kind: the API's (by Flask, and by the hot path of the frame), the page's,
#: its static files and the Swagger UI's assets, which set their own Cache-Control.
EVERY_KIND = [
    ("GET", "/", {}),
    ("GET", "/enter", {}),
    ("GET", "/static/referee.js", {}),
    ("GET", "/static/favicon.svg", {}),
    ("GET", "/docs/", {}),
    ("GET", "/docs/swagger-ui-bundle.js", {}),
    ("GET", "/docs/swagger-initializer.js", {}),
    ("GET", "/docs", {}),
    ("GET", "/v1/openapi.yaml", {}),
    ("GET", "/v1/rulesets", {}),
    ("GET", "/healthz", {}),
    ("GET", "/metrics", {}),
    ("GET", "/nope", {}),
    ("POST", "/v1/replays", {"json": COMPLETE_LOG}),
    ("POST", "/v1/moves/validate", {"json": {**MID_LOG, "move": NEXT_MOVE}}),
    ("POST", "/v1/replays", {"data": b"{", "content_type": JSON}),
]


@pytest.mark.parametrize(("method", "path", "kwargs"), EVERY_KIND)
def test_no_answer_has_a_header_twice(method: str, path: str, kwargs: dict[str, Any]) -> None:
    """The policy's headers are added only where the answer has none of its own (a static
    file's Cache-Control is not followed by the API's ``no-store``)."""
    response = client_of().open(path, method=method, **kwargs)
    assert response.status_code < 500
    names = [name.lower() for name, _ in response.headers]
    assert sorted(names) == sorted(set(names)), response.headers


@pytest.mark.parametrize("path", ["/static/referee.js", "/docs/swagger-ui-bundle.js"])
def test_an_answers_own_cache_control_is_kept(path: str) -> None:
    response = client_of().get(path)
    assert response.status_code == 200
    (own,) = response.headers.getlist("Cache-Control")
    assert own != API_HEADERS["Cache-Control"]


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/healthz", {}),
        ("POST", "/v1/replays", {"json": COMPLETE_LOG}),
        ("GET", "/v1/rulesets/nope", {}),
        ("POST", "/v1/replays", {"json": {"ruleset": "tute-2p"}}),
    ],
)
def test_request_ids(method: str, path: str, kwargs: dict[str, Any]) -> None:
    client = client_of()

    def ask(request_id: str | None) -> TestResponse:
        headers = {} if request_id is None else {"X-Request-ID": request_id}
        response = client.open(path, method=method, headers=headers, **kwargs)
        if response.mimetype == PROBLEM_JSON:  # problems carry the same id
            assert response.get_json()["request_id"] == response.headers["X-Request-ID"]
        return response

    for echoed in ("r", "client-7:trace=ab/cd", "x" * 128, "with space", 'q"uo{te}'):
        assert ask(echoed).headers["X-Request-ID"] == echoed
    made = set()
    for replaced in (None, "", "x" * 129, "a\tb", "bell\x07", "del\x7f"):
        request_id = ask(replaced).headers["X-Request-ID"]
        assert HEX32.fullmatch(request_id), (replaced, request_id)
        made.add(request_id)
    assert len(made) == 6  # a new id every time


def test_problem_request_id_for_auth_and_limit() -> None:
    client = client_of(api_keys=(KEY_1,), rate_limit="3/minute")
    response = client.get("/v1/rulesets", headers={"X-Request-ID": "op-401"})
    assert assert_problem(response, 401, "unauthorized")["request_id"] == "op-401"
    for _ in range(3):
        client.get("/v1/rulesets", headers={"X-API-Key": KEY_1})
    response = client.get("/v1/rulesets", headers={"X-API-Key": KEY_1, "X-Request-ID": "op-429"})
    assert assert_problem(response, 429, "too-many-requests")["request_id"] == "op-429"


# --- JSON access logs ---------------------------------------------------------------------------


class Capture(logging.Handler):
    """Every record of the ``arbiter`` loggers as :class:`JsonFormatter` writes it, and the
    access lines, which an app made in process writes itself to ``sys.stderr`` (read through
    pytest's ``capsys``: arbiter.api.logs builds no record for them)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.stream = io.StringIO()
        self.setFormatter(JsonFormatter())
        self._capsys = capsys
        self._stderr: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        self.stream.write(self.format(record) + "\n")

    def text(self) -> str:
        """Everything written so far: the records' lines, then standard error's."""
        self._stderr.append(self._capsys.readouterr().err)
        return self.stream.getvalue() + "".join(self._stderr)

    def lines(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.text().splitlines() if line.startswith("{")]

    def access_lines(self) -> list[dict[str, Any]]:
        return [line for line in self.lines() if line["logger"] == "arbiter.access"]


@pytest.fixture
def capture(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> Iterator[tuple[Capture, pytest.LogCaptureFixture]]:
    """A handler on the ``arbiter`` loggers (which do not propagate to the root) with the
    access lines of standard error, and pytest's capture of everything else (Flask, Werkzeug,
    limits...) at INFO."""
    caplog.set_level(logging.INFO)
    handler = Capture(capsys)
    logger = logging.getLogger("arbiter")
    logger.addHandler(handler)
    try:
        yield handler, caplog
    finally:
        logger.removeHandler(handler)


ACCESS_FIELDS = {"request_id", "method", "path", "status", "duration_ms", "ruleset"}


def test_one_access_line_per_request(capture: tuple[Capture, Any]) -> None:
    handler, _ = capture
    client = client_of(api_keys=(KEY_1,), rate_limit="5/minute")  # one bucket for all of /v1/
    good = {"X-API-Key": KEY_1}
    sent = [
        ("GET", "/healthz", {}, 200, None),
        ("POST", "/v1/replays", {"json": COMPLETE_LOG, "headers": good}, 200, "tute-2p"),
        ("POST", "/v1/scores", {"json": COMPLETE_LOG}, 401, None),
        ("POST", "/v1/replays", {"json": {**COMPLETE_LOG, "deals": 1}, "headers": good}, 422,
         "tute-2p"),
        ("POST", "/v1/moves/validate", {"json": {**MID_LOG, "move": NEXT_MOVE},
                                        "headers": good}, 200, "tute-2p"),
        ("GET", "/v1/rulesets/tute-3p", {"headers": good}, 200, None),
        ("GET", "/v1/rulesets/tute-3p", {"headers": good}, 200, None),
        ("GET", "/v1/rulesets/tute-3p", {"headers": good}, 429, None),
        ("GET", "/nope", {}, 404, None),
        ("GET", "/metrics", {}, 200, None),
    ]  # fmt: skip
    ids = []
    for i, (method, path, kwargs, status, _ruleset) in enumerate(sent):
        headers = {**kwargs.pop("headers", {}), "X-Request-ID": f"log-{i}"}
        response = client.open(path, method=method, headers=headers, **kwargs)
        assert response.status_code == status, (path, response.get_data(as_text=True)[:200])
        ids.append(f"log-{i}")
    lines = handler.access_lines()
    assert [line["request_id"] for line in lines] == ids  # one line each, in order
    for line, (method, path, _kwargs, status, ruleset) in zip(lines, sent, strict=True):
        assert line.keys() >= ACCESS_FIELDS
        assert line["level"] == "info"
        assert line["method"] == method
        assert line["path"] == path
        assert line["status"] == status
        assert line["ruleset"] == ruleset
        assert isinstance(line["duration_ms"], float | int)
        assert 0 <= line["duration_ms"] < 10_000
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"])


def test_access_line_has_the_generated_request_id(capture: tuple[Capture, Any]) -> None:
    handler, _ = capture
    response = client_of().get("/v1/rulesets/nope")
    (line,) = handler.access_lines()
    assert line["request_id"] == response.headers["X-Request-ID"]
    assert line["request_id"] == response.get_json()["request_id"]
    assert HEX32.fullmatch(line["request_id"])


CARD = re.compile(r"(?<![0-9A-Za-z])(?:[1-7]|1[0-2])[OCEB](?![0-9A-Za-z])")
PRIVATE_NAMES = ["Wenceslao Quintanilla", "Eulalia Barrenechea"]


def _private(log: dict[str, Any]) -> dict[str, Any]:
    return {**log, "players": list(PRIVATE_NAMES)}


def test_logs_never_hold_names_cards_or_keys(capture: tuple[Capture, Any]) -> None:
    handler, caplog = capture
    client = client_of(api_keys=(KEY_1,), rate_limit="50/minute")
    good = {"Authorization": f"Bearer {KEY_1}"}
    log = _private(random_log("tute-2p", random.Random(3), renuncio_rate=0.3))
    mid = _private(MID_LOG)
    bad_card = _private(COMPLETE_LOG)
    bad_card["deals"] = [dict(bad_card["deals"][0])]
    bad_card["deals"][0]["hands"] = [list(h) for h in bad_card["deals"][0]["hands"]]
    bad_card["deals"][0]["hands"][0][0] = bad_card["deals"][0]["hands"][1][0]  # dealt twice
    long_name = {**log, "players": ["Wenceslao Quintanilla" * 4, PRIVATE_NAMES[1]]}
    wrong_move = {**mid, "move": {"type": "play", "seat": NEXT_MOVE["seat"], "card": "12O"}}
    assert client.post("/v1/replays", json=log, headers=good).status_code == 200
    assert client.post("/v1/scores", json=log, headers=good).status_code == 200
    answer = client.post("/v1/moves/validate", json={**mid, "move": NEXT_MOVE}, headers=good)
    assert answer.status_code == 200
    state_move = {"state_id": answer.get_json()["state_id"], "move": wrong_move["move"]}
    assert client.post("/v1/moves/validate", json=state_move, headers=good).status_code == 200
    assert client.post("/v1/moves/validate", json=wrong_move, headers=good).status_code == 200
    assert client.post("/v1/replays", json=bad_card, headers=good).status_code == 422
    assert client.post("/v1/replays", json=long_name, headers=good).status_code == 422
    assert client.post("/v1/replays", json=log, headers={"X-API-Key": "x"}).status_code == 401
    assert client.post("/v1/replays", json=log).status_code == 401

    ours = handler.text()
    assert len(handler.access_lines()) == 9
    assert logging.getLogger("arbiter").propagate is False, "arbiter logs would go twice"
    everything = ours + "\n".join(
        JsonFormatter().format(r) for r in caplog.records if r.levelno >= logging.INFO
    )
    for name in PRIVATE_NAMES:
        assert name not in everything
        for part in name.split():
            assert part not in everything
    assert not CARD.findall(everything), CARD.findall(everything)
    assert '"deals"' not in everything
    assert '"hands"' not in everything
    assert KEY_1 not in everything


def test_log_json_setting_is_read() -> None:
    """ARBITER_LOG_JSON (the stderr handler is configured once per process, with the first
    app's setting: the formatter itself is checked on gunicorn's stderr in
    tests/test_operations_live.py)."""
    assert Settings.from_env({"ARBITER_LOG_JSON": "false"}).log_json is False
    assert Settings.from_env({"ARBITER_LOG_JSON": "0"}).log_json is False
    assert Settings.from_env({}).log_json is True


def test_access_lines_follow_the_log_level(capture: tuple[Capture, Any]) -> None:
    handler, _ = capture
    try:
        client = client_of(log_level="WARNING")
        client.get("/healthz")
        assert handler.access_lines() == []
    finally:
        logging.getLogger("arbiter").setLevel(logging.INFO)
    client_of().get("/healthz")
    assert len(handler.access_lines()) == 1


def _record(message_args: tuple[Any, ...], **extra: Any) -> logging.LogRecord:
    record = logging.LogRecord("arbiter.access", logging.INFO, __file__, 0, "%s %s %s",
                               message_args, None)  # fmt: skip
    record.__dict__.update(extra)
    return record


@pytest.mark.parametrize("as_json", [True, False])
def test_an_access_line_is_the_line_logging_would_write(as_json: bool) -> None:
    """The access line is made without a LogRecord (arbiter.api.logs): the same line the
    service's formatter writes for the record it replaced, but for the clock's reading (plain
    text: the message and the fields it does not say)."""
    lines: list[bytes] = []

    class Lines:
        def put(self, line: bytes) -> None:
            lines.append(line)

    logs.configure("INFO", as_json)  # what create_app does: access lines at INFO
    access = logs.AccessLog(as_json, Lines())
    access.write("r-1", "POST", "/v1/replays", 422, 0.0012344, "tute-2p")
    fields = {"request_id": "r-1", "method": "POST", "path": "/v1/replays", "status": 422,
              "duration_ms": 1.234, "ruleset": "tute-2p"}  # fmt: skip
    record = _record(("POST", "/v1/replays", 422), **fields)
    (line,) = lines
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    if as_json:
        ours, theirs = orjson.loads(line), orjson.loads(JsonFormatter().format(record))
        assert abs(_when(ours["time"]) - _when(theirs["time"])) < 5
        assert {**ours, "time": ""} == {**theirs, "time": ""}
        assert list(ours) == list(theirs)
    else:
        ours_text = line.decode().rstrip("\n")
        plain = {k: fields[k] for k in ("request_id", "duration_ms", "ruleset")}
        theirs_text = formatter(False).format(_record(("POST", "/v1/replays", 422), **plain))
        assert ours_text.split(" ", 2)[2] == theirs_text.split(" ", 2)[2]
        assert ours_text.endswith(" request_id=r-1 duration_ms=1.234 ruleset=tute-2p")
        stamp = " ".join(ours_text.split()[:2])
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", stamp)


#: A path that, written raw in a plain-text log, starts a forged ERROR line and clears the
#: terminal of whoever reads it (issue 30, item 6).
FORGING_PATH = "/x%0A2026-01-01 00:00:00,000 [1] [ERROR] arbiter: forged%1B[2J%0D%E2%80%A8"
PLAIN_STAMP = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[\d+\] \[[A-Z]+\] ")


def assert_one_plain_line(text: str) -> str:
    """``text`` (what was written) is one plain-text line, with nothing a terminal obeys."""
    assert text.endswith("\n") and text.count("\n") == 1, text
    assert PLAIN_STAMP.match(text), text
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text), text
    return text.rstrip("\n")


def test_a_plain_access_line_escapes_what_the_client_sent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = client_of(log_json=False)
    capsys.readouterr()
    response = client.get(FORGING_PATH, headers={"X-Request-ID": 'a b"c'})
    assert response.status_code == 404
    line = assert_one_plain_line(capsys.readouterr().err)
    path = "/x\\n2026-01-01 00:00:00,000 [1] [ERROR] arbiter: forged\\x1b[2J\\r\\u2028"
    assert f"arbiter.access: GET {path} 404 request_id=" in line
    # the fields the docs promise (request id, duration, ruleset), a quoted value quoted
    assert line.endswith(" ruleset=-")
    assert ' request_id="a b\\"c" duration_ms=' in line


def test_a_plain_line_escapes_every_part_and_indents_a_traceback() -> None:
    plain = formatter(False)
    try:
        raise ValueError("bad\n2026-01-01 00:00:00,000 [1] [ERROR] forged")
    except ValueError as err:
        exc_info = (type(err), err, err.__traceback__)
    record = logging.LogRecord("gunicorn.error", logging.WARNING, __file__, 0,
                               "refused a request from %s: %s", ("1.2.3.4", "X\x1b[2J\r\n"),
                               exc_info)  # fmt: skip
    record.__dict__["key\n"] = "v\x07 w"
    lines = plain.format(record).split("\n")
    first = assert_one_plain_line(lines[0] + "\n")
    assert first.endswith(
        "[WARNING] gunicorn.error: refused a request from 1.2.3.4: X\\x1b[2J\\r\\n"
        ' key\\n="v\\x07 w"'
    )
    assert lines[1] == "    Traceback (most recent call last):"
    assert all(line.startswith("    ") for line in lines[1:])  # none starts like a record
    assert lines[-2:] == ["    ValueError: bad", "    2026-01-01 00:00:00,000 [1] [ERROR] forged"]


def _when(stamp: str) -> float:
    import calendar
    import time

    whole, _, millis = stamp.rstrip("Z").partition(".")
    return calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + int(millis) / 1000


# --- metrics ------------------------------------------------------------------------------------


def scrape(client: FlaskClient, **headers: str) -> str:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200
    text: str = response.get_data(as_text=True)
    return text


def requests_total(text: str, method: str, endpoint: str, status: int) -> float:
    return metric_value(
        text, "arbiter_requests_total", method=method, endpoint=endpoint, status=str(status)
    )


def test_request_counter_and_latency_per_endpoint_and_status() -> None:
    client = client_of(api_keys=(KEY_1,), rate_limit="6/minute")  # one bucket for all of /v1/
    good = {"X-API-Key": KEY_1}
    client.get("/v1/rulesets/tute-2p", headers=good)
    client.get("/v1/rulesets/nope", headers=good)
    for _ in range(2):
        client.post("/v1/replays", json=COMPLETE_LOG, headers=good)
    client.post("/v1/replays", json={"ruleset": "tute-2p"}, headers=good)  # 422
    client.post("/v1/replays", json=COMPLETE_LOG)  # 401
    client.post("/v1/replays", json=COMPLETE_LOG, headers=good)  # 200, the 6th counted
    client.post("/v1/replays", json=COMPLETE_LOG, headers=good)  # 429
    for path in ("/nope-1", "/nope-2", "/v1/nope-3"):
        client.get(path, headers=good)
    text = scrape(client, **good)

    assert requests_total(text, "POST", "/v1/replays", 200) == 3
    assert requests_total(text, "POST", "/v1/replays", 422) == 1
    assert requests_total(text, "POST", "/v1/replays", 401) == 1
    assert requests_total(text, "POST", "/v1/replays", 429) == 1
    assert requests_total(text, "GET", "/v1/rulesets/<string:name>", 200) == 1
    assert requests_total(text, "GET", "/v1/rulesets/<string:name>", 404) == 1
    assert requests_total(text, "GET", "unmatched", 404) == 3
    for path in ("/nope-1", "/nope-2", "/v1/nope-3", "tute-2p"):  # no series per raw path
        assert path not in text

    def latency(suffix: str, **labels: str) -> float:
        return metric_value(text, f"arbiter_request_duration_seconds_{suffix}", **labels)

    replays = {"method": "POST", "endpoint": "/v1/replays"}
    assert latency("count", **replays) == 6  # every status
    assert latency("sum", **replays) > 0
    buckets = [
        (float(le), latency("bucket", **replays, le=le))
        for le in re.findall(
            r'arbiter_request_duration_seconds_bucket\{endpoint="/v1/replays",le="([^"]+)"', text
        )
    ]
    counts = [count for _, count in sorted(buckets)]
    assert counts == sorted(counts)  # cumulative
    assert counts[-1] == 6  # +Inf
    ruleset = {"method": "GET", "endpoint": "/v1/rulesets/<string:name>"}
    assert latency("count", **ruleset) == 2


def test_metric_labels_come_from_closed_sets() -> None:
    """Methods no route answers are ``other``, paths no route matches ``unmatched``: a client
    cannot add label sets (issue 22, finding 4)."""
    client = client_of()
    rng = random.Random(4)
    for _ in range(200):
        method = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(12))
        path = "/" + "".join(rng.choice("abcdefgh/") for _ in range(rng.randint(1, 20)))
        client.open(path, method=method)
        client.open("/v1/replays", method=method)
    client.open("/healthz", method="DELETE")
    text = scrape(client)
    methods = set(re.findall(r'arbiter_requests_total\{[^}]*method="([^"]*)"', text))
    endpoints = set(re.findall(r'arbiter_requests_total\{endpoint="([^"]*)"', text))
    assert methods == {"other"}  # DELETE too: no route answers it
    assert endpoints == {"unmatched"}  # a 405 matched no rule either
    assert requests_total(text, "other", "unmatched", 405) == 201
    assert requests_total(text, "other", "unmatched", 404) == 200


def test_verdict_counters() -> None:
    client = client_of()
    montar = four_player_log(play(0, "4O"), play(1, "2O"))  # bea could montar with 1O
    asistir = four_player_log(play(0, "4O"), play(1, "12C"))  # bea had oros
    illegal = four_player_log(play(0, "4O"), play(2, "3O"))  # carlos out of turn
    client.post("/v1/replays", json=montar)
    client.post("/v1/scores", json=montar)
    client.post("/v1/scores", json=asistir)
    client.post("/v1/replays", json=illegal)
    opened = client.post(
        "/v1/moves/validate", json={**four_player_log(), "move": play(0, "4O")}
    ).get_json()
    assert opened["verdict"] == "ok"
    state_id = opened["state_id"]
    for move in (play(1, "12C"), play(1, "3O"), play(2, "3O"), play(1, "1O")):
        answer = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        assert answer.status_code == 200
    text = scrape(client)
    assert metric_value(text, "arbiter_renuncios_total", obligation="montar") == 2
    assert metric_value(text, "arbiter_renuncios_total", obligation="asistir") == 2
    assert metric_value(text, "arbiter_illegal_events_total", code="out_of_turn") == 2
    assert metric_value(text, "arbiter_illegal_events_total", code="card_not_in_hand") == 1


@pytest.mark.parametrize("cache", ["memory", "off"])
def test_verdict_counts_do_not_depend_on_the_cache(cache: str) -> None:
    """A replay resumed from a cached prefix counts the renuncios of the whole log, as a full
    replay does: growing logs of the same games, sent in order."""
    client = client_of(cache=cache)
    library: dict[str, int] = {}
    for seed in range(4):
        whole = random_log("tute-2p", random.Random(100 + seed), deals=3, renuncio_rate=0.25)
        events = [len(d["events"]) for d in whole["deals"]]
        for n_deals in range(1, len(whole["deals"]) + 1):
            for cut in (events[n_deals - 1] // 2, events[n_deals - 1]):
                deals = [dict(d) for d in whole["deals"][:n_deals]]
                deals[-1]["events"] = deals[-1]["events"][:cut]
                log = {**whole, "deals": deals}
                assert client.post("/v1/replays", json=log).status_code == 200
                for deal in arbiter.replay(log).to_dict()["deals"]:
                    for v in deal["violations"]:
                        library[v["obligation"]] = library.get(v["obligation"], 0) + 1
    assert sum(library.values()) > 0
    text = scrape(client)
    for obligation, count in library.items():
        assert metric_value(text, "arbiter_renuncios_total", obligation=obligation) == count
