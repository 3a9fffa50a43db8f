"""The attacks of issue 30 for the soak (soak.py) and for the before/after figures
(hardening_figures.py): answers nobody reads, batches trickled by a greedy client while an
honest one batches, gzip bombs of ``{}`` lines, forwarded clients behind a trusted proxy
against a rate limit, control characters in paths for plain-text logs, a forged Host.

Each ``*_main`` runs in a process of its own (forked by ``loadtest.Clients``) until ``end_at``
and puts ``{"kind": "bad", "got": {attack: {label: count}}}`` on ``results``; a label starting
with ``UNEXPECTED`` is an error of the soak (an honest request answered wrongly or not at
all, or a hostile one that held what it must not).
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import random
import re
import select
import socket
import threading
import time
from collections import Counter
from typing import Any

import orjson

from arbiter.simulate import random_log
from devtools.gunicorn_support import HOST, dechunked

BUNDLE = "/docs/swagger-ui-bundle.js"
BATCH = "/v1/scores/batch"
NDJSON = "application/x-ndjson"
#: Keys of the two batch clients of :func:`greedy_main` and :func:`honest_batches_main`.
GREEDY_KEY, HONEST_KEY = "soak-greedy-batch-key-0001", "soak-honest-batch-key-0002"
#: A path that, written raw into a plain-text log, forges an [ERROR] line and clears a terminal.
FORGING_PATH = "/x%0A2026-01-01%2000:00:00,000%20[1]%20[ERROR]%20arbiter:%20forged%1B[2J"
#: What starts every plain-text log line (deploy/gunicorn.conf.py's format).
PLAIN_STAMP = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[\d+\] \[[A-Z]+\] [\w.]+: ")
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
#: The trickle of issue 30, finding 3: a 700-byte piece of a line every 0.9 s.
PAUSE, PIECE, TRICKLERS = 0.9, 700, 10


def head(line: str, *fields: str, host: str = HOST) -> bytes:
    return ("\r\n".join([line, f"Host: {host}", *fields]) + "\r\n\r\n").encode("latin-1")


def parse_status(data: bytes) -> tuple[int | None, str]:
    """The status and the head (as text) of an answer's bytes."""
    text = data.partition(b"\r\n\r\n")[0].decode("latin-1")
    fields = text.split(maxsplit=2)
    status = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None
    return status, text


def until_closed(sock: socket.socket) -> tuple[bytes, bool]:
    """What the server sends until it closes; whether it reset the connection."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        return data, True
    return data, False


def _report(results: Any, got: dict[str, Counter[str]]) -> None:
    results.put({"kind": "bad", "got": {name: dict(c) for name, c in got.items()}})


# --- answers nobody reads (finding 1) ----------------------------------------------------------


def big_replay(api_key: str) -> bytes:
    """``POST /v1/replays`` of a 13-deal tute-2p match with ``steps: true`` (a 362 KB answer
    for 24 KB sent)."""
    options = {"match_target": 7, "tie_break": "none"}
    log = random_log("tute-2p", random.Random(1), deals=200, options=options)
    body = orjson.dumps({**log, "steps": True})
    return (
        head("POST /v1/replays HTTP/1.1", "Content-Type: application/json",
             f"Content-Length: {len(body)}", f"X-API-Key: {api_key}")
        + body
    )


def unread_requests(api_key: str) -> dict[str, bytes]:
    return {
        "unread Swagger bundle": head(f"GET {BUNDLE} HTTP/1.1"),
        "unread steps replay": big_replay(api_key),
    }


def open_unread(port: int, request: bytes, count: int) -> list[socket.socket]:
    """``count`` connections that each send ``request`` and read nothing (4 KB receive buffer)."""
    socks = []
    for _ in range(count):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(10)
        sock.connect((HOST, port))
        sock.sendall(request)
        socks.append(sock)
    return socks


def _ended(sock: socket.socket) -> str | None:
    """Whether the server reset an unread answer's connection (seen without reading)."""
    if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
        return "reset"
    return None


def unread_main(port: int, api_key: str, count: int, wait: float, end_at: float,
                results: Any) -> None:  # fmt: skip
    """Rounds of ``count`` unread bundle GETs and ``count`` unread steps replays: each
    connection must be ended by the server within ``wait`` seconds (ARBITER_SEND_TIMEOUT and
    a margin), else it is an error; then they are closed and the next round opens."""
    requests = unread_requests(api_key)
    got: dict[str, Counter[str]] = {name: Counter() for name in requests}
    while time.time() + wait < end_at:
        opened = {}
        try:
            for name, request in requests.items():
                opened[name] = open_unread(port, request, count)
            deadline = time.time() + wait
            left = {(n, i) for n, socks in opened.items() for i in range(len(socks))}
            while left and time.time() < deadline:
                for n, i in list(left):
                    ended = _ended(opened[n][i])
                    if ended:
                        got[n][f"ok {ended}"] += 1
                        left.discard((n, i))
                time.sleep(0.2)
            for n, i in left:  # an answer that fitted the buffers was sent whole and closed
                sock = opened[n][i]
                sock.settimeout(5)
                try:
                    data, reset = until_closed(sock)
                    label = "ok reset" if reset else f"ok sent whole ({len(data)} B)"
                except TimeoutError:
                    label = f"UNEXPECTED held past {wait:g} s"
                got[n][label] += 1
        except OSError as err:
            got["unread Swagger bundle"][f"UNEXPECTED {type(err).__name__}"] += 1
        finally:
            for socks in opened.values():
                for sock in socks:
                    sock.close()
    _report(results, got)


# --- batches: a greedy trickling client, an honest one (finding 3) ---------------------------


def game_line(seed: int) -> bytes:
    return orjson.dumps(random_log("tute-2p", random.Random(seed)))


def _pieces(line: bytes) -> list[bytes]:
    data = line + b"\n"
    return [b"%x\r\n%s\r\n" % (len(data[i : i + PIECE]), data[i : i + PIECE])
            for i in range(0, len(data), PIECE)]  # fmt: skip


def _trickle_one(port: int, pieces: list[bytes], stop: threading.Event) -> bytes:
    """One trickled batch: its pieces, one every PAUSE s, until the server answers and ends."""
    with socket.create_connection((HOST, port), timeout=30) as sock:
        sock.sendall(head(f"POST {BATCH} HTTP/1.1", f"Content-Type: {NDJSON}",
                          "Transfer-Encoding: chunked", f"X-API-Key: {GREEDY_KEY}"))  # fmt: skip
        data = b""
        for piece in itertools.cycle(pieces):
            if stop.is_set():
                return b""
            with contextlib.suppress(OSError):
                sock.sendall(piece)
            deadline = time.monotonic() + PAUSE
            while (left := deadline - time.monotonic()) > 0:
                if not select.select([sock], [], [], left)[0]:
                    break
                try:
                    chunk = sock.recv(65536)
                except OSError:
                    return data
                if not chunk:
                    return data
                data += chunk
    return data


def greedy_main(port: int, end_at: float, results: Any) -> None:
    """Ten connections of one client (its key) trickling game lines, each starting again as
    soon as it is answered. Whatever they get is theirs (200 ending with a 408 line, 429)."""
    pieces = _pieces(game_line(301))
    stop = threading.Event()
    got: Counter[str] = Counter()

    def run() -> None:
        while time.time() < end_at - 1:
            try:
                status, _ = parse_status(_trickle_one(port, pieces, stop))
                got[f"ok {status}"] += 1
            except OSError as err:
                got[f"ok {type(err).__name__}"] += 1
            time.sleep(0.2)

    threads = [threading.Thread(target=run, daemon=True) for _ in range(TRICKLERS)]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, end_at - time.time()))
    stop.set()
    for thread in threads:
        thread.join(30)
    _report(results, {"greedy trickled batches": got})


def honest_batch(port: int, body: bytes) -> tuple[int | None, bytes]:
    request = (
        head(f"POST {BATCH} HTTP/1.1", f"Content-Type: {NDJSON}", f"Content-Length: {len(body)}",
             f"X-API-Key: {HONEST_KEY}", "Connection: close")
        + body
    )
    with socket.create_connection((HOST, port), timeout=30) as sock:
        sock.sendall(request)
        data, _ = until_closed(sock)
    status, _ = parse_status(data)
    return status, dechunked(data.partition(b"\r\n\r\n")[2])[0]


def honest_batches_main(port: int, end_at: float, results: Any) -> None:
    """An honest client's 3-line batches, one a second, while the greedy one trickles: each
    must be answered 200 with the same three lines."""
    body = b"".join(game_line(310 + i) + b"\n" for i in range(3))
    got: Counter[str] = Counter()
    expected: bytes | None = None
    while time.time() < end_at - 1:
        try:
            status, answer = honest_batch(port, body)
            expected = answer if expected is None and status == 200 else expected
            good = status == 200 and answer == expected and len(answer.splitlines()) == 3
            got["ok 200" if good else f"UNEXPECTED {status}"] += 1
        except OSError as err:
            got[f"UNEXPECTED {type(err).__name__}"] += 1
        time.sleep(1.0)
    _report(results, {"honest batches": got})


# --- gzip bombs of {} lines (finding 4) ---------------------------------------------------------


def empty_objects_bomb(api_key: str) -> bytes:
    """10,000 lines of ``{}`` in 68 bytes of gzip."""
    body = gzip.compress(b"{}\n" * 10_000, compresslevel=9)
    return (
        head(f"POST {BATCH} HTTP/1.1", f"Content-Type: {NDJSON}", "Content-Encoding: gzip",
             f"Content-Length: {len(body)}", f"X-API-Key: {api_key}")
        + body
    )


# --- forwarded clients against a rate limit (finding 5) ---------------------------------------


def forwarded_request(address: str, spoofed: str | None = None) -> bytes:
    """A small replay, as a proxy on 127.0.0.1 forwards it from ``address`` (the client may
    have written addresses of its own to the left: ``spoofed``)."""
    body = orjson.dumps(random_log("tute-2p", random.Random(5)))
    chain = f"{spoofed}, {address}" if spoofed else address
    return (
        head("POST /v1/replays HTTP/1.1", "Content-Type: application/json",
             f"Content-Length: {len(body)}", f"X-Forwarded-For: {chain}")
        + body
    )


def ask(port: int, request: bytes, timeout: float = 15) -> tuple[int | None, str]:
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return parse_status(data)


def forwarded_main(port: int, budget: int, end_at: float, results: Any) -> None:
    """Against a server limited to ``budget`` requests a minute per client behind a trusted
    proxy: every 2 s a new honest client (its own forwarded address) sends 3 requests, each
    must be a 200; every 10 s a new greedy client sends ``budget`` + 5, each with another
    spoofed address to the left of its own: exactly ``budget`` must be answered, the rest
    429 problems (one budget across the workers, whatever it writes itself)."""
    got: dict[str, Counter[str]] = {"forwarded honest": Counter(), "forwarded greedy": Counter()}
    for n in itertools.count():
        if time.time() + 2 > end_at:
            break
        try:
            for _ in range(3):
                status, _ = ask(port, forwarded_request(f"10.1.{n // 250}.{n % 250 + 1}"))
                got["forwarded honest"]["ok 200" if status == 200 else f"UNEXPECTED {status}"] += 1
            if n % 5 == 0:
                statuses = [
                    ask(port, forwarded_request(f"10.66.0.{n // 5 + 1}", f"192.0.2.{i + 1}"))
                    for i in range(budget + 5)
                ]
                ok = [s for s, _ in statuses].count(200) == budget and all(
                    s == 429 and "problem+json" in h for s, h in statuses if s != 200
                )
                got["forwarded greedy"]["ok" if ok else f"UNEXPECTED {statuses}"] += 1
        except OSError as err:
            got["forwarded honest"][f"UNEXPECTED {type(err).__name__}"] += 1
        time.sleep(2.0)
    _report(results, got)


# --- logs and redirects (findings 6 and 7) ----------------------------------------------------


def plain_log_faults(output: bytes) -> dict[str, int]:
    """Lines of a plain-text log that do not start with their stamp (forged, or a record cut
    in two), and lines holding a control character a terminal would obey."""
    lines = [line for line in output.split(b"\n") if line]
    return {
        "lines": len(lines),
        "not stamped": sum(1 for line in lines if not PLAIN_STAMP.match(line)),
        "control characters": sum(1 for line in lines if CONTROL.search(line)),
        "said dropped": sum(
            int(m.group(1)) for m in re.finditer(rb"(\d+) log lines dropped", output)
        ),
    }


def forged_host() -> bytes:
    return head("GET /docs HTTP/1.1", host="evil.example")
