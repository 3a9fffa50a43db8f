"""Shared helpers and fixtures for the HTTP tests (tests/test_api.py, tests/test_spec.py).

- :func:`make_client` builds an in-process Flask test client from ``create_app(Settings(...))``.
  Its client class checks *every* response against the committed contract
  (``api_spec/openapi.yaml``): a JSON body of a documented operation must match the schema of
  that operation and status, a status the operation does not document fails, and a
  problem+json answer of a path/method outside the contract (404 unknown path, 405) must match
  ``#/components/schemas/Problem``.
- :func:`assert_conforms` is the same check for one response, usable on its own.
- :func:`four_player_log` is a hand-made ``tute-4p`` deal whose correct plays are known by
  hand (see its docstring); :func:`random_game` wraps :func:`arbiter.simulate.random_log`.
- :func:`metric_value` reads one sample of the Prometheus text of ``GET /metrics``.
- :func:`assert_problem` checks a problem+json answer, from the test client or off a socket.

Import the fixtures into a test module with ``from tests.api_support import app, client``.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from prometheus_client.parser import text_string_to_metric_families
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from werkzeug.test import TestResponse

import arbiter
from arbiter.api import create_app
from arbiter.settings import Settings
from arbiter.simulate import random_log

ROOT = Path(__file__).resolve().parent.parent
SPEC_FILE = ROOT / "api_spec" / "openapi.yaml"
EXAMPLES_DIR = ROOT / "examples"
PROBLEM_JSON = "application/problem+json"
#: Every problem's ``type`` is this followed by its kind (docs/api.md).
PROBLEM_TYPE = "https://tute-arbiter.example/problems/"
#: The largest answer to any request, problem or not, that the tests accept (bytes).
ANSWER_LIMIT = 64 * 1024
JSON = "application/json"
NDJSON = "application/x-ndjson"
_SPEC_URI = "urn:tute-arbiter:openapi"
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


# --- the committed contract ---------------------------------------------------------------------


@cache
def committed_spec_text() -> str:
    return SPEC_FILE.read_text(encoding="utf-8")


@cache
def committed_spec() -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(committed_spec_text())
    return spec


@cache
def _registry() -> Registry:  # type: ignore[type-arg]
    """The whole document as one resource, so ``#/components/...`` refs resolve inside it."""
    resource = Resource.from_contents(committed_spec(), default_specification=DRAFT202012)
    return Registry().with_resource(_SPEC_URI, resource)


def escape(token: str) -> str:
    """One RFC 6901 reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (path, method, operation) of the committed document."""
    for path, item in committed_spec()["paths"].items():
        for method, operation in item.items():
            if method in _METHODS:
                yield path, method, operation


def schema_errors(instance: Any, pointer: str) -> list[str]:
    """Why ``instance`` does not match the schema at ``pointer`` of the committed document
    (JSON Schema 2020-12, as OpenAPI 3.1 says); empty when it matches."""
    validator = Draft202012Validator({"$ref": f"{_SPEC_URI}#{pointer}"}, registry=_registry())
    return [
        f"{'/' + '/'.join(str(p) for p in e.absolute_path)}: {e.message}"
        for e in sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    ]


def assert_matches_schema(instance: Any, pointer: str) -> None:
    errors = schema_errors(instance, pointer)
    assert not errors, f"does not match {pointer}:\n" + "\n".join(errors[:20])


@cache
def _templates() -> tuple[tuple[re.Pattern[str], str], ...]:
    out = []
    for path in committed_spec()["paths"]:
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path))
        out.append((re.compile(pattern), path))
    return tuple(out)


def template_of(path: str) -> str | None:
    """The path template of the contract that a concrete request path falls under."""
    for pattern, template in _templates():
        if pattern.fullmatch(path):
            return template
    return None


def assert_conforms(response: TestResponse, path: str | None, method: str) -> None:
    """``response`` is what the committed contract says ``method path`` answers.

    ``path`` is the template of the contract (``/v1/rulesets/{name}``), or None for a request
    path outside it.
    """
    method = method.lower()
    status = str(response.status_code)
    operation = None
    if path is not None:
        operation = committed_spec()["paths"].get(path, {}).get(method)
    if operation is None:
        # not an operation of the contract (unknown path, wrong method): only errors, as problems
        if response.mimetype == PROBLEM_JSON:
            assert response.status_code >= 400
            assert_matches_schema(response.get_json(), "/components/schemas/Problem")
        return
    responses = operation["responses"]
    assert status in responses, (
        f"{method.upper()} {path} answered {status}, which the contract does not document "
        f"(documented: {sorted(responses)}); body: {response.get_data(as_text=True)[:300]}"
    )
    content = responses[status].get("content", {})
    assert response.mimetype in content, (
        f"{method.upper()} {path} {status}: {response.mimetype} is not among {sorted(content)}"
    )
    if method == "head" or "schema" not in content[response.mimetype]:
        return
    pointer = "/".join(
        (
            "",
            "paths",
            escape(path),
            method,
            "responses",
            status,
            "content",
            escape(response.mimetype),
        )
    )
    if response.mimetype == NDJSON:  # every line is one instance of the schema
        for line in response.get_data().splitlines():
            assert_matches_schema(orjson.loads(line), pointer + "/schema")
        return
    assert_matches_schema(response.get_json(), pointer + "/schema")


class ConformingClient(FlaskClient):
    """A test client that checks every response against the committed contract."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        request = response.request
        assert_conforms(response, template_of(request.path), request.method)
        return response


# --- apps and clients ---------------------------------------------------------------------------


def make_app(**settings: Any) -> Flask:
    app = create_app(Settings(**settings))
    app.test_client_class = ConformingClient
    return app


def make_client(**settings: Any) -> ConformingClient:
    client: ConformingClient = make_app(**settings).test_client()
    return client


@pytest.fixture
def app() -> Flask:
    """A fresh app with the default settings (its own metrics registry)."""
    return make_app()


@pytest.fixture
def client(app: Flask) -> ConformingClient:
    test_client: ConformingClient = app.test_client()
    return test_client


# --- logs ---------------------------------------------------------------------------------------

PLAYERS_4 = ["ana", "bea", "carlos", "dani"]
#: A tute-4p deal dealt by seat 3 (so ana, seat 0, is mano), trump bastos (the 1B shown).
#: ana leads 4O; bea (seat 1) holds 1O and 2O and 12C: her only correct play is 1O (montar),
#: 2O is a montar renuncio, 12C an asistir renuncio, 3O is not in her hand (carlos holds it).
HANDS_4 = [
    ["4O", "1C", "2C", "3C", "4C", "5C", "6C", "7C", "10C", "11C"],
    ["1O", "2O", "12C", "1E", "2E", "3E", "4E", "5E", "6E", "7E"],
    ["3O", "5O", "6O", "7O", "10O", "11O", "12O", "10E", "11E", "12E"],
    ["1B", "2B", "3B", "4B", "5B", "6B", "7B", "10B", "11B", "12B"],
]
CARLOS_OROS = ["3O", "5O", "6O", "7O", "10O", "11O", "12O"]


def four_player_log(*events: dict[str, Any]) -> dict[str, Any]:
    """The hand-made tute-4p deal of :data:`HANDS_4` with ``events``."""
    deal = {"dealer": 3, "hands": copy.deepcopy(HANDS_4), "trump_card": "1B", "events": []}
    deal["events"] = [dict(e) for e in events]
    return {"ruleset": "tute-4p", "players": list(PLAYERS_4), "deals": [deal]}


def random_game(ruleset: str, seed: int, **kwargs: Any) -> dict[str, Any]:
    """A random log of :mod:`arbiter.simulate`, deterministic for ``seed``."""
    return random_log(ruleset, random.Random(seed), **kwargs)


def padded_body(log: dict[str, Any], size: int) -> bytes:
    """``log`` as JSON, padded with trailing whitespace to exactly ``size`` bytes."""
    raw = orjson.dumps(log)
    assert len(raw) <= size, f"the log alone is {len(raw)} bytes"
    return raw + b" " * (size - len(raw))


# --- problems ----------------------------------------------------------------------------------


class SocketAnswer(Protocol):
    """An answer read off a socket from a live server: headers by lower-case name."""

    @property
    def status(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def body(self) -> bytes: ...


def assert_problem(
    answer: TestResponse | SocketAnswer, status: int, kind: str | None = None
) -> dict[str, Any]:
    """An RFC 9457 problem as docs/api.md describes it: the status, the problem+json media type,
    a bounded body, the members (non-empty ``title`` and ``detail``; ``type`` of ``kind`` when
    given), the API's headers, no traceback, and the ``X-Request-ID`` header echoed as
    ``request_id`` — the id the request carried, or one made up (32 hex digits); an answer off
    a socket does not say what its request carried."""
    if isinstance(answer, TestResponse):
        code, body = answer.status_code, answer.get_data()
        headers: Mapping[str, str] = {k.lower(): v for k, v in answer.headers.items()}
        sent: str | None = answer.request.headers.get("X-Request-ID")
        known = True
    else:
        code, headers, body = answer.status, answer.headers, answer.body
        sent, known = None, False
    text = body.decode("utf-8", "replace")
    assert code == status, text[:300]
    assert headers["content-type"].split(";")[0].strip() == PROBLEM_JSON, headers
    assert len(body) <= ANSWER_LIMIT, len(body)
    problem: dict[str, Any] = json.loads(body)
    assert problem["status"] == status
    assert problem["type"].startswith(PROBLEM_TYPE), problem["type"]
    if kind is not None:
        assert problem["type"] == PROBLEM_TYPE + kind
    for member in ("title", "detail"):
        assert isinstance(problem[member], str) and problem[member], problem
    assert headers["x-content-type-options"] == "nosniff"
    assert "Traceback" not in text
    request_id = headers["x-request-id"]
    assert problem["request_id"] == request_id
    if known:
        assert request_id == sent or re.fullmatch(r"[0-9a-f]{32}", request_id), request_id
    return problem


# --- metrics ------------------------------------------------------------------------------------


def metric_value(text: str, name: str, **labels: str) -> float:
    """The value of the sample ``name{labels}`` in Prometheus text (0.0 when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return 0.0


class _AnyStateId:
    """Equal to any state id (a sealed token, base64url): tokens depend on the server's key and
    on a random nonce."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.fullmatch(r"[A-Za-z0-9_-]{40,4096}", other) is not None

    def __repr__(self) -> str:
        return "<any state id>"

    __hash__ = None  # type: ignore[assignment]  # equal to many values: not hashable


ANY_STATE_ID = _AnyStateId()


def expected_replay(log: dict[str, Any]) -> dict[str, Any]:
    """The library's answer, with the state id the service adds for a valid log."""
    body = arbiter.replay(log).to_dict()
    if body["status"] != "invalid":
        body["state_id"] = ANY_STATE_ID
    return body
