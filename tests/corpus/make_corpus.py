"""Writes tests/corpus/frozen.jsonl.gz: 3,000 random logs and digests of the referee's answers.

Run once, on the commit named in the corpus's first line, so that later changes to the engine
can be held to the answers of that commit (tests/test_frozen_corpus.py). It is kept to show how
the corpus was made; running it again on a later commit makes a new baseline, which is only
right when an answer is meant to change (say so in the commit).

Each line holds a log and, for each language, the SHA-256 of the JSON (as the API writes it,
keys in their order) of
``POST /v1/replays`` (without ``state_id``) and of ``POST /v1/scores``, and for logs whose last
deal is unfinished the digests of ``POST /v1/moves/validate`` on a few moves: every legal move's
first, a card of the hand that may be a renuncio, a card not held, a move out of turn, and each
declaration. One line in 100 keeps the whole answers too, to read when a digest differs.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

import arbiter
from arbiter.engine.cards import format_card
from arbiter.engine.errors import ArbiterError
from arbiter.engine.rulesets import RULESETS
from arbiter.simulate import random_log

OUT = Path(__file__).with_name("frozen.jsonl.gz")
COUNT = 3000
SEED = 20261201


def digest(body: Any) -> str:
    """The SHA-256 of the body's bytes as the HTTP API writes them (orjson: keys in order)."""
    return hashlib.sha256(orjson.dumps(body)).hexdigest()


def without_state_id(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "state_id"}


def random_options(name: str, rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec in RULESETS[name].option_specs:
        if rng.random() < 0.5:
            continue
        if spec.type == "boolean":
            out[spec.name] = rng.random() < 0.5
        elif spec.allowed is not None:
            out[spec.name] = rng.choice(spec.allowed)
        elif spec.type == "ranks":
            out[spec.name] = (
                rng.sample([1, 2, 3, 4, 5, 6, 7, 10, 11, 12], 2) if rng.random() < 0.2 else [11, 12]
            )
        else:
            hi = min(spec.maximum or 4, 4)
            out[spec.name] = rng.randint(spec.minimum or 1, hi)
    return out


FRENCH = {"O": "D", "C": "H", "E": "S", "B": "C"}
FRENCH_RANK = {"1": "A", "10": "J", "11": "Q", "12": "K"}


def to_french(code: str) -> str:
    rank, suit = code[:-1], code[-1]
    return FRENCH_RANK.get(rank, rank) + FRENCH[suit]


def frenchify(log: dict[str, Any]) -> None:
    log["notation"] = "french"
    for deal in log["deals"]:
        for key in ("deck", "stock"):
            if key in deal:
                deal[key] = [to_french(c) for c in deal[key]]
        if "hands" in deal:
            deal["hands"] = [[to_french(c) for c in h] for h in deal["hands"]]
        if "trump_card" in deal:
            deal["trump_card"] = to_french(deal["trump_card"])
        for event in deal["events"]:
            if "card" in event:
                event["card"] = to_french(event["card"])
            if "suit" in event:
                event["suit"] = FRENCH[event["suit"]]


def corrupt(log: dict[str, Any], rng: random.Random) -> None:
    """One illegal event somewhere in the last deal (or after it)."""
    deal = log["deals"][-1]
    events = deal["events"]
    n = len(log["players"])
    at = rng.randrange(0, len(events) + 1)
    kind = rng.choice(["seat", "card", "sing", "tute", "exchange"])
    if kind == "seat" and events:
        e = dict(events[min(at, len(events) - 1)])
        e["seat"] = (e["seat"] + 1) % n
        event = e
    elif kind == "card":
        event = {"type": "play", "seat": rng.randrange(n), "card": format_card(rng.randrange(40))}
    elif kind == "sing":
        event = {"type": "sing", "seat": rng.randrange(n), "suit": rng.choice("OCEB")}
    elif kind == "tute":
        event = {"type": "tute", "seat": rng.randrange(n), "of": rng.choice(["kings", "horses"])}
    else:
        event = {"type": "exchange", "seat": rng.randrange(n)}
    deal["events"] = [*events[:at], event, *events[at:]]


def candidate_moves(
    log: dict[str, Any], body: dict[str, Any], rng: random.Random
) -> list[dict[str, Any]]:
    nxt = body.get("next")
    n = len(log["players"])
    if nxt is None:
        return [{"type": "play", "seat": 0, "card": "1O"}]
    seat = nxt["seat"]
    moves = [m for m in nxt["legal_moves"][:2]]
    moves.append({"type": "play", "seat": (seat + 1) % n, "card": "1O"})
    moves.append({"type": "play", "seat": seat, "card": format_card(rng.randrange(40))})
    moves.append({"type": "sing", "seat": seat, "suit": rng.choice("OCEB")})
    moves.append({"type": "tute", "seat": seat, "of": rng.choice(["kings", "horses"])})
    moves.append({"type": "exchange", "seat": seat})
    if log.get("notation") == "french":
        for m in moves:
            if "card" in m and m["card"][-1] in "OCEB":
                m["card"] = to_french(m["card"])
            if "suit" in m and m["suit"] in FRENCH:
                m["suit"] = FRENCH[m["suit"]]
    return moves


def make(index: int, rng: random.Random) -> dict[str, Any]:
    name = rng.choice(list(RULESETS))
    ruleset = RULESETS[name]
    players = rng.choice(ruleset.players)
    options = random_options(name, rng)
    deals = rng.choice([1, 1, 1, 2, 3, 6])
    log = random_log(
        name,
        rng,
        players=players,
        deals=deals,
        options=options or None,
        renuncio_rate=rng.choice([0.0, 0.0, 0.05, 0.3]),
        declare_rate=rng.choice([0.2, 0.6, 1.0]),
        as_deck=rng.random() < 0.3,
        finish_last=rng.random() < 0.5,
    )
    if rng.random() < 0.15:
        corrupt(log, rng)
    if rng.random() < 0.1:
        frenchify(log)
    if rng.random() < 0.1:
        log["players"] = [
            rng.choice(["ana", "bea", "carmen", "dani", "eva", "Ñoño", "josé"]) + str(i)
            for i in range(players)
        ]
    entry: dict[str, Any] = {"log": log}
    keep = index % 100 == 0
    for lang in ("en", "es"):
        result = arbiter.replay(log)
        body = without_state_id(result.to_dict(lang))
        scores = result.scores_dict(lang)
        entry[f"replay_{lang}"] = digest(body)
        entry[f"scores_{lang}"] = digest(scores)
        if keep:
            entry[f"replay_{lang}_body"] = body
    body = arbiter.replay(log).to_dict("en")
    if body["status"] != "invalid":
        verdicts = []
        for move in candidate_moves(log, body, rng):
            try:
                v = {
                    lang: digest(without_state_id(arbiter.validate(log, move).to_dict(lang)))
                    for lang in ("en", "es")
                }
            except ArbiterError as err:
                v = {"error": f"{err.pointer}: {err.message}"}
            verdicts.append({"move": move, **v})
        entry["validate"] = verdicts
    return entry


def main() -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    rng = random.Random(SEED)
    with gzip.open(OUT, "wt", encoding="utf-8", compresslevel=9) as out:
        out.write(json.dumps({"commit": commit, "build": arbiter.BUILD, "count": COUNT}) + "\n")
        for i in range(COUNT):
            out.write(json.dumps(make(i, rng), ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes) from {commit}", file=sys.stderr)


if __name__ == "__main__":
    main()
