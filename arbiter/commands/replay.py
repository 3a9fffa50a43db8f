"""``arbiter replay LOG``: adjudicate a game log — a trick-by-trick table of every deal, or the
API's JSON body (``--json``).

Exit status: 0 for a clean log, 1 when it holds a renuncio or an illegal event, 2 for bad
input. Every word of the table follows ``--lang``; its numbers count from 1 (deal 2, trick 8,
event 31), where the JSON body counts from 0.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

import arbiter
from arbiter.commands.console import (
    ExitStatus,
    add_log_arguments,
    move_text,
    output,
    print_json,
    read_log,
    refusals,
    words,
)
from arbiter.engine.rulesets import MATCH_COUNTERS, RULESETS
from arbiter.i18n import Lang, text


def register(commands: Any) -> None:
    """Add ``replay`` to the subcommands of ``arbiter``."""
    parser = commands.add_parser("replay", help="adjudicate a game log")
    add_log_arguments(parser, "the table and the messages")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> ExitStatus:
    log = read_log(args.file, args.lang)
    with refusals(args.lang):
        body = arbiter.replay(log).to_dict(args.lang)
    with output():
        if args.json:
            print_json(body)
        else:
            print_replay(body, counter_of(log["ruleset"]), sys.stdout, args.lang)
    breach = body["illegal"] is not None or any(d["violations"] for d in body["deals"])
    return ExitStatus.BREACH if breach else ExitStatus.OK


def counter_of(ruleset: str) -> str:
    """The field of ``match.standings`` that the ruleset's match is played on."""
    return MATCH_COUNTERS[RULESETS[ruleset].match][0]


def print_replay(body: dict[str, Any], counter: str, out: TextIO, lang: Lang) -> None:
    """A trick-by-trick table of every deal, its renuncios, scores, outcome, and the match
    (``counter``: the standing's field the match is played on)."""
    names = [s["player"] for s in body["match"]["standings"]]
    for index, deal in enumerate(body["deals"]):
        _deal(deal, index + 1, names, out, lang)
    ill = body["illegal"]
    if ill is not None:
        where = {"deal": ill["deal"] + 1, "message": ill["message"], "code": ill["code"]}
        if ill["event"] is None:
            out.write(words(lang, "replay.illegal_deal", **where) + "\n")
        else:
            out.write(words(lang, "replay.illegal", event=ill["event"] + 1, **where) + "\n")
    match = body["match"]
    standings = ", ".join(f"{s['player']} {s[counter]}" for s in match["standings"])
    label = words(lang, f"counter.{counter}")
    out.write(words(lang, "replay.match", counter=label, standings=standings) + "\n")
    if match["over"]:
        won = ", ".join(names[s] for s in match["winners"]) or text(lang, "nobody")
        out.write(words(lang, "replay.match_over", winners=won) + "\n")
    status = words(lang, f"status.{body['status']}")
    out.write(words(lang, "replay.status", status=status) + "\n")
    if body["next"] is not None:
        nxt = body["next"]
        moves = ", ".join(move_text(m, lang) for m in nxt["legal_moves"])
        out.write(words(lang, "replay.next", player=nxt["player"], moves=moves) + "\n")


#: The columns of a deal's table, after the trick's number.
_COLUMNS = ("leader", "plays", "winner", "points", "draws")


def _trick_row(number: int, trick: dict[str, Any], names: list[str]) -> list[str]:
    plays = ", ".join(f"{names[p['seat']]} {p['card']}" for p in trick["plays"])
    draws = ", ".join(f"{names[d['seat']]} {d['card']}" for d in trick["draws"])
    winner = "-" if trick["winner"] is None else names[trick["winner"]]
    points = "" if trick["points"] is None else str(trick["points"])
    return [str(number), names[trick["leader"]], plays, winner, points, draws]


def _deal(deal: dict[str, Any], number: int, names: list[str], out: TextIO, lang: Lang) -> None:
    trump = deal["trump"] or words(lang, "replay.no_trump")
    dealer = names[deal["dealer"]]
    out.write(words(lang, "replay.deal", number=number, dealer=dealer, trump=trump) + "\n")
    head = ["#"] + [words(lang, f"replay.{c}") for c in _COLUMNS]
    rows = [head] + [_trick_row(n, trick, names) for n, trick in enumerate(deal["tricks"], 1)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    # columns at least as wide as names of ten letters need: tables of short names line up
    w = [max(w, m) for w, m in zip(widths, (2, 10, 40, 10, 3), strict=False)]
    for n, leader, plays, winner, points, draws in rows:
        line = f"{n:>{w[0]}}  {leader:<{w[1]}} {plays:<{w[2]}} {winner:<{w[3]}} {points:>{w[4]}}"
        out.write(f"  {line}  {draws}\n")
    for cante in deal["cantes"]:
        line = words(
            lang,
            "replay.cante",
            name=names[cante["seat"]],
            points=cante["points"],
            suit=cante["suit"],
            trick=cante["trick"] + 1,
        )
        out.write(f"  {line}\n")
    for ex in deal["exchanges"]:
        line = words(
            lang, "replay.exchange", name=names[ex["seat"]], gave=ex["gave"], took=ex["took"]
        )
        out.write(f"  {line}\n")
    for v in deal["violations"]:
        correct = ", ".join(v["correct"])
        line = words(
            lang, "replay.renuncio", event=v["event"] + 1, message=v["message"], correct=correct
        )
        out.write(f"  {line}\n")
    scores = "; ".join(
        words(
            lang,
            "replay.score",
            name=names[s["seat"]],
            total=s["total"],
            cards=s["card_points"],
            cantes=s["cantes"],
            last=s["last_trick"],
            tricks=s["tricks"],
        )
        for s in deal["scores"]
    )
    out.write("  " + words(lang, "replay.scores", scores=scores) + "\n")
    if deal.get("sides"):
        sides = "; ".join(
            "+".join(names[seat] for seat in side["seats"]) + f" {side['total']}"
            for side in deal["sides"]
        )
        out.write("  " + words(lang, "replay.sides", sides=sides) + "\n")
    outcome = deal["outcome"]
    if outcome is not None:
        line = words(lang, "replay.outcome", message=outcome["message"], reason=outcome["reason"])
        out.write(f"  {line}\n")
    out.write("\n")
