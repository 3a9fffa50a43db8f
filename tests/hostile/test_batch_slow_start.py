"""Issue 30, the mutation check: two planted bugs of the batch's answer that every test let
through (found again on this tree: each survived tests/test_batch.py).

- **No send deadline once the body is read** (a write that cannot go out at once resets the
  connection): a client that sends its whole batch and only then reads, within
  ``ARBITER_SEND_TIMEOUT``, got a reset after a few lines instead of its answer.
- **The rest of a body past the line limit never read**: a client that sends everything before
  it reads (as ``http.client`` does) had 24 MB left to send that nobody read; both sides waited
  until the send deadline reset the connection, instead of the answer.

Against a live ``arbiter serve`` of one worker whose connections' send buffer is small
(``ARBITER_SEND_BUFFER_BYTES``), so that an answer does not fit in the sockets' buffers.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest

from devtools.gunicorn_support import dechunked
from tests.api_support import NDJSON
from tests.archive_support import game_lines, lines_of, ndjson
from tests.gunicorn_support import HOST, Gunicorn, parse_head, request
from tests.hostile.conftest import request_head, served

BATCH = "/v1/scores/batch"
SEND_TIMEOUT = 5.0
MAX_LINES = 1000


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with served(
        ARBITER_WORKERS="1",
        ARBITER_SEND_TIMEOUT=str(SEND_TIMEOUT),
        ARBITER_SEND_BUFFER_BYTES=str(64 * 1024),
        ARBITER_BATCH_MAX_LINES=str(MAX_LINES),
    ) as srv:
        yield srv


@pytest.mark.slow
def test_a_client_that_reads_late_within_the_deadline_gets_its_whole_answer(
    server: Gunicorn,
) -> None:
    lines = game_lines(50, seed=92) * (MAX_LINES // 50)  # about 1.2 MB of answer
    body = ndjson(lines)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # it takes little at a time
    sock.settimeout(60)
    sock.connect((HOST, server.port))
    with sock:
        sock.sendall(request_head("POST", BATCH, server.port, Content_Type=NDJSON,
                                  Content_Length=str(len(body))) + body)  # fmt: skip
        time.sleep(SEND_TIMEOUT / 2)  # then it reads, well within the send deadline
        data = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                data += chunk
    status, _, rest = parse_head(data)
    answer, complete = dechunked(rest)
    assert status == 200 and complete, f"{len(answer):,} bytes of answer, then cut"
    got = lines_of(answer)
    assert len(got) == len(lines) and all("error" not in line for line in got)


@pytest.mark.slow
def test_a_body_far_past_the_line_limit_is_read_and_the_answer_sent(server: Gunicorn) -> None:
    lines = game_lines(50, seed=93)
    body = ndjson(lines * (MAX_LINES // 50 + 140))  # the limit's lines, then about 24 MB more
    assert len(body) > 24_000_000
    answer = request(server.port, "POST", BATCH, body, {"Content-Type": NDJSON}, timeout=120)
    got = lines_of(answer.body)
    assert answer.status == 200 and len(got) == MAX_LINES + 1
    assert got[-1]["error"]["title"] == "Too many lines"
