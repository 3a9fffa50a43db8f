"""Request bodies (arbiter/api/bodies.py) and bounded problems, tested directly.

The bounded, streaming gzip decoding is the mechanism of the archive batch endpoint
(``POST /v1/scores/batch``, tested in tests/test_batch.py); it is tested here on its own and
through a Flask request. Also: reading with and without a Content-Length, the media
types and codings each policy takes, the bounded schema check against marshmallow's own, and
problem documents that stay small whatever they are given.
"""

from __future__ import annotations

import gzip
import io
import random
import zlib
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.api import bodies, create_app
from arbiter.contract import MAX_PROBLEM_BYTES, Problem, problem_document
from arbiter.engine.errors import MAX_COLLECTED, ArbiterErrors, OptionError
from arbiter.engine.rulesets import get_ruleset, resolve_options
from arbiter.settings import Settings, SettingsError
from arbiter.simulate import random_log

BATCH = bodies.Accepts(ndjson=True, gzip=True)


def _pieces(data: bytes, sizes: list[int]) -> Iterator[bytes]:
    """``data`` cut in pieces of the given sizes (cycled), as a network delivers it."""
    i, k = 0, 0
    while i < len(data):
        step = max(1, sizes[k % len(sizes)]) if sizes else len(data)
        yield data[i : i + step]
        i, k = i + step, k + 1


def _refused(status: int, chunks: Iterator[bytes]) -> tuple[Problem, int]:
    """The problem ``chunks`` ends in, and how many decoded bytes came out before it."""
    out = 0
    with pytest.raises(Problem) as caught:
        for chunk in chunks:
            out += len(chunk)
    assert caught.value.status == status, caught.value.detail
    return caught.value, out


# --- gzip --------------------------------------------------------------------------------------


@given(st.binary(max_size=5000), st.lists(st.integers(1, 300), max_size=5))
def test_gunzip_gives_back_the_data_whatever_the_pieces(data: bytes, sizes: list[int]) -> None:
    packed = gzip.compress(data)
    assert b"".join(bodies.gunzip(_pieces(packed, sizes), limit=5000)) == data


def test_gunzip_reads_every_member() -> None:
    packed = gzip.compress(b'{"a": 1}\n') + gzip.compress(b'{"b": 2}\n')
    assert b"".join(bodies.gunzip(_pieces(packed, [7]), 100)) == b'{"a": 1}\n{"b": 2}\n'


def test_gunzip_takes_exactly_the_limit() -> None:
    assert len(b"".join(bodies.gunzip([gzip.compress(b"x" * 1000)], 1000))) == 1000


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    """64 MiB of zeros in ~64 KB: refused once 1 MiB + 1 byte is decoded, no more."""
    packed = gzip.compress(bytes(64 * 1024 * 1024), compresslevel=9)
    assert len(packed) < 100_000
    problem, produced = _refused(413, bodies.gunzip(_pieces(packed, [4096]), 1024 * 1024))
    assert produced <= 1024 * 1024
    assert "decompressed" in problem.detail
    assert problem.headers["Connection"] == "close"


@pytest.mark.parametrize(
    "data",
    [b'{"ruleset": "tute-2p"}', b"\x1f\x8b\x08garbage", gzip.compress(b"{}") + b"trailing"],
    ids=["plain JSON", "a bad gzip header", "garbage after a member"],
)
def test_data_that_is_not_gzip_is_400(data: bytes) -> None:
    problem, _ = _refused(400, bodies.gunzip([data], 1000))
    assert "not gzip" in problem.detail


@pytest.mark.parametrize("cut", [0, 5, 20], ids=["empty", "in the header", "in the data"])
def test_cut_gzip_is_400(cut: int) -> None:
    packed = gzip.compress(b'{"ruleset": "tute-2p", "players": []}')
    problem, _ = _refused(400, bodies.gunzip([packed[:cut]] if cut else [], 1000))
    assert "cut short" in problem.detail


def test_a_raw_deflate_stream_is_not_gzip() -> None:
    _refused(400, bodies.gunzip([zlib.compress(b"{}")], 1000))


# --- reading the stream ------------------------------------------------------------------------


class Stream(io.BytesIO):
    """A request stream that counts what is read from it."""

    def __init__(self, data: bytes, fail: BaseException | None = None) -> None:
        super().__init__(data)
        self.taken = 0
        self.fail = fail

    def read(self, size: int | None = -1) -> bytes:
        if self.fail is not None:
            raise self.fail
        data = super().read(size)
        self.taken += len(data)
        return data

    def read1(self, size: int = -1) -> bytes:  # what bodies reads with: here, all there is
        return self.read(size)


def _environ(stream: Stream, length: int | None, terminated: bool = False) -> dict[str, Any]:
    environ: dict[str, Any] = {"wsgi.input": stream, "wsgi.input_terminated": terminated}
    if length is not None:
        environ["CONTENT_LENGTH"] = str(length)
    return environ


def test_a_content_length_over_the_limit_is_413_before_reading() -> None:
    stream = Stream(b"x" * 2000)
    _refused(413, bodies.raw_chunks(_environ(stream, 2000), 1000))
    assert stream.taken == 0


def test_a_chunked_body_over_the_limit_is_413_after_limit_plus_one() -> None:
    stream = Stream(b"x" * 500_000)
    _refused(413, bodies.raw_chunks(_environ(stream, None, terminated=True), 100_000))
    assert stream.taken == 100_001


def test_a_chunked_body_within_the_limit_is_read_whole() -> None:
    data = random.Random(1).randbytes(200_000)
    stream = Stream(data)
    assert b"".join(bodies.raw_chunks(_environ(stream, None, terminated=True), 200_000)) == data


def test_only_content_length_bytes_are_read() -> None:
    stream = Stream(b'{"a": 1}NEXT REQUEST')
    assert b"".join(bodies.raw_chunks(_environ(stream, 8), 1000)) == b'{"a": 1}'


def test_no_length_and_no_end_is_no_body() -> None:
    stream = Stream(b"whatever")
    assert list(bodies.raw_chunks(_environ(stream, None), 1000)) == []
    assert stream.taken == 0


def test_a_body_shorter_than_its_length_is_400() -> None:
    problem, _ = _refused(400, bodies.raw_chunks(_environ(Stream(b"{}"), 10), 1000))
    assert "Content-Length" in problem.detail


@pytest.mark.parametrize(
    ("error", "status"),
    [(TimeoutError("slow"), 408), (ValueError("Invalid chunk size"), 400), (OSError(), 400)],
)
def test_a_stream_that_fails_is_a_problem(error: Exception, status: int) -> None:
    problem, _ = _refused(status, bodies.raw_chunks(_environ(Stream(b"", error), 10), 1000))
    assert problem.headers["Connection"] == "close"


# --- media types and codings -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "accepts", "coding"),
    [
        (None, bodies.JSON_ONLY, "identity"),
        ("identity", bodies.JSON_ONLY, "identity"),
        ("gzip", BATCH, "gzip"),
        ("x-gzip", BATCH, "gzip"),
        (" GZIP ", BATCH, "gzip"),
        ("identity, gzip", BATCH, "gzip"),
    ],
)
def test_codings_taken(header: str | None, accepts: bodies.Accepts, coding: str) -> None:
    assert bodies.content_coding(header, accepts) == coding


@pytest.mark.parametrize(
    ("header", "accepts"),
    [
        ("gzip", bodies.JSON_ONLY),
        ("deflate", bodies.JSON_ONLY),
        ("br", BATCH),
        ("gzip, gzip", BATCH),
        ("compress", BATCH),
    ],
)
def test_codings_refused(header: str, accepts: bodies.Accepts) -> None:
    with pytest.raises(Problem) as caught:
        bodies.content_coding(header, accepts)
    assert caught.value.status == 415
    assert caught.value.headers["Accept-Encoding"] == accepts.encodings


def test_ndjson_only_where_taken() -> None:
    bodies.check_media_type("application/x-ndjson", BATCH)
    with pytest.raises(Problem) as caught:
        bodies.check_media_type("application/x-ndjson", bodies.JSON_ONLY)
    assert caught.value.status == 415


def test_a_gzip_ndjson_batch_through_a_request() -> None:
    """The batch endpoint's way in: a Flask request with Content-Encoding: gzip."""
    app = create_app(Settings(cache="off", max_body_bytes=10_000))
    lines = b"".join(orjson.dumps({"id": i}) + b"\n" for i in range(300))
    headers = {"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip"}
    packed = gzip.compress(lines)
    with app.test_request_context("/", method="POST", data=packed, headers=headers):
        assert b"".join(bodies.decoded_chunks(BATCH)) == lines
    too_many = lines * 4  # 12.8 KB decoded from about 2 KB sent: over the 10,000 bytes
    assert len(too_many) > 10_000 > len(gzip.compress(too_many))
    with app.test_request_context(
        "/", method="POST", data=gzip.compress(too_many), headers=headers
    ):
        _refused(413, bodies.decoded_chunks(BATCH))


def test_read_json_through_a_request() -> None:
    app = create_app(Settings(cache="off"))
    with app.test_request_context(
        "/", method="POST", data=b'{"a": [1, 2.5]}', content_type="application/json"
    ):
        assert bodies.read_json() == {"a": [1, 2.5]}
    with app.test_request_context(
        "/", method="POST", data=b'{"a": NaN}', content_type="application/json"
    ):
        with pytest.raises(Problem) as caught:
            bodies.read_json()
        assert caught.value.status == 400 and "NaN" in caught.value.detail


# --- bounded schema checks and problems ---------------------------------------------------------


def test_option_errors_are_collected_and_the_rest_counted() -> None:
    """The engine reports every bad option, naming the first MAX_COLLECTED; the answer lists
    ARBITER_MAX_ERRORS of them and counts the rest."""
    ruleset = get_ruleset("tute-2p")
    overrides: dict[str, object] = {f"k{i}": 1 for i in range(1000)}
    overrides["match_target"] = 4  # a known option with a bad value counts too
    with pytest.raises(ArbiterErrors) as caught:
        resolve_options(ruleset, overrides)
    found = caught.value
    assert len(found.errors) == MAX_COLLECTED and found.omitted == 1001 - MAX_COLLECTED
    assert [e.pointer for e in found.errors[:2]] == ["/options/k0", "/options/k1"]
    problem = Problem.from_arbiter_error(found)
    document = orjson.loads(problem_document(422, "Invalid log", problem.detail, None,
                                             problem.errors, problem.omitted, 7))  # fmt: skip
    assert len(document["errors"]) == 7 and document["errors_omitted"] == 994
    with pytest.raises(OptionError):  # one bad option: the one error itself
        resolve_options(ruleset, {"match_target": 4})


_texts = st.text(alphabet=st.characters(max_codepoint=0x40), min_size=0, max_size=2000)


@given(st.lists(st.tuples(_texts, _texts), max_size=150), _texts, st.integers(1, 100))
def test_problem_documents_stay_bounded(
    errors: list[tuple[str, str]], detail: str, max_errors: int
) -> None:
    listed = [{"pointer": p, "message": m} for p, m in errors]
    document = problem_document(422, "Invalid log", detail, "id", listed, 5, max_errors)
    assert len(document) <= MAX_PROBLEM_BYTES
    body = orjson.loads(document)
    assert len(body["errors"]) <= max_errors
    assert len(body["errors"]) + body.get("errors_omitted", 0) == len(errors) + 5
    assert len(body["detail"]) <= 300


@pytest.mark.parametrize("value", ["0", "101", "-3", "many"])
def test_max_errors_is_from_1_to_100(value: str) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"ARBITER_MAX_ERRORS": value})


def test_max_errors_setting_is_used() -> None:
    assert Settings.from_env({"ARBITER_MAX_ERRORS": "100"}).max_errors == 100
    app = create_app(Settings(cache="off", max_errors=3))
    log = random_log("tute-2p", random.Random(2))
    log["options"] = {f"k{i}": 1 for i in range(10)}
    answer = app.test_client().post("/v1/replays", json=log)
    assert answer.status_code == 422
    assert len(answer.json["errors"]) == 3 and answer.json["errors_omitted"] == 7


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_body_timeout_must_be_positive(value: str) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env({"ARBITER_BODY_TIMEOUT": value})
