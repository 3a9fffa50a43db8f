"""The ``arbiter`` command: adjudicate a log, judge a move, or serve the HTTP API.

Exit status: 0 when the log (or move) is clean, 1 when it holds a renuncio or an illegal event
(or the move is not allowed), 2 for bad input (unreadable file, malformed log), 130 when
interrupted (Ctrl-C). Logs and moves are read as the HTTP API reads them (:mod:`arbiter.jsontext`:
strict JSON, no NaN or Infinity, numbers within a 64-bit float). It never prints a traceback: a
reader that stops early (``arbiter replay log.json --json | head -5``) ends the output quietly,
with the exit status of the verdict.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from arbiter import BUILD, __version__, replay, validate
from arbiter.archive import options as archive_options
from arbiter.archive.options import LOCAL_CLUSTER, Format
from arbiter.engine.errors import ArbiterError
from arbiter.i18n import LANGS
from arbiter.jsontext import JsonTextError, loads

EXIT_OK, EXIT_BREACH, EXIT_BAD_INPUT = 0, 1, 2
#: 128 + SIGINT, as shells report a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except ArbiterError as err:
        print(f"arbiter: invalid input at {err.pointer or '/'}: {err.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except _InputError as err:
        print(f"arbiter: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("arbiter: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


@contextlib.contextmanager
def _output() -> Iterator[None]:
    """Standard output that its reader may close early: the rest is dropped, quietly (also at
    exit, when Python flushes what is left)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_stdout()


def quiet_stdout() -> None:
    """Standard output's reader has gone (``arbiter ... | head``): what is left goes to the
    null device, so that Python's flush at exit raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class _InputError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arbiter", description="A referee for Tute.")
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} ({BUILD} engine)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("replay", help="adjudicate a game log")
    rep.add_argument("file", help="the log (JSON); - for standard input")
    rep.add_argument("--json", action="store_true", help="print the API's JSON body")
    rep.add_argument("--lang", choices=LANGS, default="en", help="language of the messages")
    rep.set_defaults(func=_replay)

    val = sub.add_parser("validate", help="judge one move at the end of a log")
    val.add_argument("file", help="the log (JSON); - for standard input")
    val.add_argument("--move", required=True, help='the move, e.g. \'{"type": "play", ...}\'')
    val.add_argument("--json", action="store_true", help="print the API's JSON body")
    val.add_argument("--lang", choices=LANGS, default="en", help="language of the messages")
    val.set_defaults(func=_validate)

    sco = sub.add_parser(
        "score",
        help="score an archive: one game per line, in input order",
        description=(
            "Score recorded games: NDJSON files (one log per line, .gz too), .json logs, "
            "folders of them, or - for standard input. One line out per game, in input order."
        ),
    )
    sco.add_argument("paths", nargs="+", metavar="PATH", help="a file, a folder, or -")
    sco.add_argument(
        "--out", metavar="FILE|DIR", help="a file, or a folder (one part per input file)"
    )
    sco.add_argument("--format", choices=[f.value for f in Format], default=Format.NDJSON.value)
    sco.add_argument(
        "--jobs", type=archive_options.jobs, metavar="N", help="processes (default: the CPUs)"
    )
    sco.add_argument(
        "--dask", metavar=f"ADDRESS|{LOCAL_CLUSTER}", help="a Dask scheduler, or a local cluster"
    )
    sco.add_argument("--lang", choices=LANGS, default="en", help="language of the messages")
    sco.add_argument("--summary", action="store_true", help="print the figures at the end")
    sco.add_argument("--summary-json", metavar="FILE", help="write the figures as JSON")
    sco.add_argument("--quiet", action="store_true", help="no progress bar")
    sco.set_defaults(func=_score)

    srv = sub.add_parser("serve", help="serve the HTTP API with gunicorn")
    srv.add_argument("--host", default="127.0.0.1")
    srv.add_argument("--port", type=int, default=8000)
    srv.add_argument("--workers", type=int, default=None)
    srv.set_defaults(func=_serve)

    from arbiter.conformance.cli import register

    register(sub)
    return parser


def _load_json(text: bytes | str, what: str) -> Any:
    try:
        return loads(text)
    except JsonTextError as err:
        raise _InputError(f"{what} is not JSON: {err}") from None


def _read_stdin() -> bytes | str:
    # bytes, so that the JSON reader checks the UTF-8 (a replaced stdin may be text only)
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read() if buffer is not None else sys.stdin.read()


def _read_log(path: str) -> Any:
    try:
        data = _read_stdin() if path == "-" else Path(path).read_bytes()
    except OSError as err:
        raise _InputError(f"cannot read {path}: {err.strerror}") from None
    return _load_json(data, "standard input" if path == "-" else path)


def _replay(args: argparse.Namespace) -> int:
    result = replay(_read_log(args.file))
    body = result.to_dict(args.lang)
    with _output():
        if args.json:
            print(json.dumps(body, ensure_ascii=False, indent=2))
        else:
            print_replay(body, sys.stdout)
    breach = body["illegal"] is not None or any(d["violations"] for d in body["deals"])
    return EXIT_BREACH if breach else EXIT_OK


def _validate(args: argparse.Namespace) -> int:
    move = _load_json(args.move, "--move")
    verdict = validate(_read_log(args.file), move).to_dict(args.lang)
    with _output():
        if args.json:
            print(json.dumps(verdict, ensure_ascii=False, indent=2))
        else:
            print(f"{verdict['verdict']}: {verdict['message']}")
            moves = ", ".join(_move_text(m) for m in verdict["legal_moves"])
            print(f"legal moves: {moves}")
    return EXIT_OK if verdict["legal"] else EXIT_BREACH


def _score(args: argparse.Namespace) -> int:
    from arbiter.archive.command import score

    return score(args)


def _serve(args: argparse.Namespace) -> int:
    from arbiter.server import serve

    serve(args.host, args.port, args.workers)


# --- the readable report -------------------------------------------------------------------


def _move_text(move: dict[str, Any]) -> str:
    detail = move.get("card") or move.get("suit") or move.get("of") or ""
    return f"{move['type']} {detail}".strip()


def print_replay(body: dict[str, Any], out: TextIO) -> None:
    """A trick-by-trick table of every deal, its renuncios, scores, outcome, and the match."""
    names = [s["player"] for s in body["match"]["standings"]]
    for index, deal in enumerate(body["deals"]):
        trump = deal["trump"] or "none yet"
        out.write(f"Deal {index + 1} — dealer {names[deal['dealer']]}, trump {trump}\n")
        out.write(f"  {'#':>2}  {'leader':<10} {'plays':<40} {'winner':<10} {'pts':>3}  draws\n")
        for number, trick in enumerate(deal["tricks"], start=1):
            plays = ", ".join(f"{names[p['seat']]} {p['card']}" for p in trick["plays"])
            draws = ", ".join(f"{names[d['seat']]} {d['card']}" for d in trick["draws"])
            winner = "-" if trick["winner"] is None else names[trick["winner"]]
            points = "" if trick["points"] is None else trick["points"]
            leader = names[trick["leader"]]
            out.write(
                f"  {number:>2}  {leader:<10} {plays:<40} {winner:<10} {points:>3}  {draws}\n"
            )
        for cante in deal["cantes"]:
            out.write(
                f"  cante: {names[cante['seat']]} {cante['points']} in {cante['suit']}"
                f" (trick {cante['trick'] + 1})\n"
            )
        for ex in deal["exchanges"]:
            out.write(f"  exchange: {names[ex['seat']]} gave {ex['gave']} for {ex['took']}\n")
        for v in deal["violations"]:
            correct = ", ".join(v["correct"])
            out.write(f"  RENUNCIO (event {v['event']}): {v['message']} [correct: {correct}]\n")
        scores = "; ".join(
            f"{names[s['seat']]} {s['total']} (cards {s['card_points']}, cantes {s['cantes']},"
            f" last {s['last_trick']}, tricks {s['tricks']})"
            for s in deal["scores"]
        )
        out.write(f"  scores: {scores}\n")
        if deal["outcome"] is not None:
            out.write(f"  outcome: {deal['outcome']['message']} ({deal['outcome']['reason']})\n")
        out.write("\n")
    if body["illegal"] is not None:
        ill = body["illegal"]
        out.write(
            f"ILLEGAL at deal {ill['deal'] + 1}, event {ill['event']}: {ill['message']}"
            f" ({ill['code']})\n"
        )
    match = body["match"]
    standing = ", ".join(
        f"{s['player']}: deals {s['deals_won']}, loser points {s['loser_points']},"
        f" tokens {s['tokens']}"
        for s in match["standings"]
    )
    out.write(f"Match: {standing}\n")
    if match["over"]:
        won = ", ".join(names[s] for s in match["winners"]) or "nobody"
        out.write(f"Match over — winners: {won}\n")
    out.write(f"Status: {body['status']}\n")
    if body["next"] is not None:
        nxt = body["next"]
        moves = ", ".join(_move_text(m) for m in nxt["legal_moves"])
        out.write(f"Next: {nxt['player']} — {moves}\n")


if __name__ == "__main__":
    sys.exit(main())
