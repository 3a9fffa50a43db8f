"""Issue 22, finding 3: script injection into ``/docs/`` (Swagger UI) through ``SCRIPT_NAME``.

gunicorn takes ``SCRIPT_NAME`` from a header of a peer it trusts (``forwarded_allow_ips``; its
own default is loopback, where any local client can send it). flask-swagger-ui wrote
``request.base_url`` into an inline script, ``</script>`` unescaped, under a CSP with
``'unsafe-inline'`` and ``Cache-Control: public``: the injected script ran. And a
``SCRIPT_NAME`` that is not a prefix of the path gave a 500 with a traceback in the log.

Now: the shipped configuration trusts no peer (``ARBITER_FORWARDED_ALLOW_IPS`` is empty), so
the header is dropped; and behind a trusted proxy the page is the same bytes whatever the
request says, with no inline script and a CSP that allows none; a ``SCRIPT_NAME`` that is not
a prefix is a 400 problem, logged as a WARNING without a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api_support import assert_problem
from tests.gunicorn_support import Gunicorn
from tests.hostile.conftest import Raw, exchange, served, wait_until

# Hostile clients against a live gunicorn: the quick loop leaves them out.
pytestmark = pytest.mark.slow

EVIL = "/x</script><script>alert(1)</script>"


def _get(port: int, path: str, script_name: str | None = None) -> Raw:
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
    if script_name is not None:
        head += f"SCRIPT_NAME: {script_name}\r\n"
    return exchange(port, (head + "\r\n").encode("latin-1"))


@pytest.fixture(scope="module")
def behind_a_proxy() -> Iterator[Gunicorn]:
    """The service configured to trust a proxy on loopback (as behind one on the same host)."""
    with served(ARBITER_FORWARDED_ALLOW_IPS="127.0.0.1") as server:
        yield server


def _no_inline_script(answer: Raw) -> None:
    page = answer.body.decode()
    assert "alert(1)" not in page
    assert "<script>" not in page  # every script is a file: <script src="...">
    csp = dict(
        (d.split()[0], d.split()[1:]) for d in answer.headers["content-security-policy"].split("; ")
    )
    assert csp["script-src"] == ["'self'"]
    assert "'unsafe-inline'" not in answer.headers["content-security-policy"]
    assert "public" not in answer.headers["cache-control"]


def test_by_default_no_peer_sets_script_name(server: Gunicorn) -> None:
    answer = _get(server.port, EVIL + "/docs/", EVIL)
    assert answer.status == 404  # the header was dropped: that path is no page
    assert b"alert(1)" not in answer.body
    plain = _get(server.port, "/docs/", "/x")
    assert plain.status == 200
    assert plain.body == _get(server.port, "/docs/").body
    _no_inline_script(plain)


def test_the_docs_page_reflects_nothing_behind_a_trusted_proxy(behind_a_proxy: Gunicorn) -> None:
    port = behind_a_proxy.port
    evil = _get(port, EVIL + "/docs/", EVIL)
    assert evil.status == 200
    _no_inline_script(evil)
    assert evil.body == _get(port, "/docs/").body == _get(port, "/x/docs/", "/x").body
    script = _get(port, EVIL + "/docs/swagger-initializer.js", EVIL)
    assert script.status == 200 and b"alert(1)" not in script.body
    assert script.body == _get(port, "/docs/swagger-initializer.js").body


def test_a_script_name_that_is_no_prefix_is_a_400(behind_a_proxy: Gunicorn) -> None:
    logged = len(behind_a_proxy.output())
    answer = _get(behind_a_proxy.port, "/y/docs/", "/x")
    problem = assert_problem(answer, 400)
    assert "SCRIPT_NAME" in problem["detail"]
    assert answer.closed
    assert _get(behind_a_proxy.port, "/healthz").status == 200
    # the worker's warning is queued (arbiter/logpipe.py): written within FLUSH_SECONDS
    assert wait_until(lambda: "refused a request" in behind_a_proxy.output()[logged:], 10)
    assert "Traceback" not in behind_a_proxy.output()[logged:]
