"""Findings 2 and 5 (bodies): limits on the bytes actually read, codings, media types, JSON.

Against the live server: the body limit (1 MiB by default) holds for chunked bodies as for
bodies with a Content-Length; no Content-Encoding is accepted on /v1/replays; only JSON media
types are; numbers too large for a 64-bit float and NaN/Infinity are named as such. Every
refusal is a bounded problem+json. (A body that does not arrive in time, 408: the slow-clients
test.)
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

from tests.api_support import assert_problem
from tests.gunicorn_support import Gunicorn, request
from tests.hostile.conftest import chunked, exchange, request_head

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow

LIMIT = 1024 * 1024


def _post_chunked(server: Gunicorn, body: bytes, **headers: str) -> Any:
    head = request_head(
        "POST", "/v1/replays", server.port,
        Content_Type="application/json", Transfer_Encoding="chunked", **headers,
    )  # fmt: skip
    return exchange(server.port, head + chunked(body), timeout=15)


def _post(server: Gunicorn, body: bytes, **headers: str) -> Any:
    return request(server.port, "POST", "/v1/replays", body, headers, timeout=15)


def test_a_chunked_body_over_the_limit_is_413(server: Gunicorn) -> None:
    body = b'{"pad": "' + b"x" * (3 * LIMIT) + b'"}'  # 3 MiB, no Content-Length
    problem = assert_problem(_post_chunked(server, body), 413)
    assert str(LIMIT) in problem["detail"]


def test_a_valid_log_padded_past_the_limit_is_413_chunked_or_not(
    server: Gunicorn, log: dict[str, Any]
) -> None:
    body = json.dumps(log).encode() + b" " * (2 * LIMIT)  # valid JSON, 2 MiB of spaces
    assert_problem(_post_chunked(server, body), 413)
    assert_problem(_post(server, body, **{"Content-Type": "application/json"}), 413)


def test_a_chunked_body_under_the_limit_is_read(server: Gunicorn, log: dict[str, Any]) -> None:
    body = json.dumps(log).encode() + b" " * (LIMIT // 2)
    answer = _post_chunked(server, body)
    assert answer.status == 200, answer.body[:300]
    assert answer.json()["status"] == "complete"


def test_a_malformed_chunked_body_is_400(server: Gunicorn) -> None:
    head = request_head(
        "POST", "/v1/replays", server.port,
        Content_Type="application/json", Transfer_Encoding="chunked",
    )  # fmt: skip
    assert_problem(exchange(server.port, head + b"zz\r\n{}\r\n0\r\n\r\n"), 400)


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "br", "deflate", "gzip, gzip", "zstd"])
def test_no_content_encoding_on_replays(server: Gunicorn, log: dict[str, Any], coding: str) -> None:
    """gzip is for the archive batch endpoint only; elsewhere, and any other coding: 415."""
    body = gzip.compress(json.dumps(log).encode())
    headers = {"Content-Type": "application/json", "Content-Encoding": coding}
    answer = _post(server, body, **headers)
    problem = assert_problem(answer, 415)
    assert "Content-Encoding" in problem["detail"]
    assert answer.headers["accept-encoding"] == "identity"


def test_a_body_labelled_gzip_that_is_not_is_refused(server: Gunicorn, log: dict[str, Any]) -> None:
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    assert_problem(_post(server, json.dumps(log).encode(), **headers), 415)


def test_identity_coding_is_no_coding(server: Gunicorn, log: dict[str, Any]) -> None:
    headers = {"Content-Type": "application/json", "Content-Encoding": "identity"}
    assert _post(server, json.dumps(log).encode(), **headers).status == 200


@pytest.mark.parametrize(
    "content_type",
    [
        "evil/x+json",
        "text/json",
        "application/x+jsonp",
        "application/+json",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin-1",
        "",
    ],
)
def test_only_json_media_types(server: Gunicorn, log: dict[str, Any], content_type: str) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    assert_problem(_post(server, json.dumps(log).encode(), **headers), 415)


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/JSON; charset=UTF-8", "application/vnd.tute.log+json"],
)
def test_json_media_types(server: Gunicorn, log: dict[str, Any], content_type: str) -> None:
    assert _post(server, json.dumps(log).encode(), **{"Content-Type": content_type}).status == 200


@pytest.mark.parametrize(
    ("number", "named"),
    [
        ("9" * 5000, "too large"),
        ("-" + "9" * 5000, "too large"),
        ("1e400", "too large"),
        ("NaN", "NaN and Infinity"),
        ("-Infinity", "NaN and Infinity"),
        ("Infinity", "NaN and Infinity"),
    ],
)
def test_numbers_json_cannot_hold(
    server: Gunicorn, log: dict[str, Any], number: str, named: str
) -> None:
    text = json.dumps(log).replace('"seat": 0', f'"seat": {number}', 1)
    assert number in text
    headers = {"Content-Type": "application/json"}
    problem = assert_problem(_post(server, text.encode(), **headers), 400)
    assert named in problem["detail"], problem["detail"]
    assert "line 1, column" in problem["detail"]
    assert len(problem["detail"]) < 300
