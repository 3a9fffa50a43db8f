"""What the replay for scores only (``Referee.score``, the archives' path) must keep: the same
scores body as a full replay, every ruleset and player count, with renuncios, tutes and logs
that stop early; no trick records and no full body; and the shortcuts its reading took for speed
(the players' names found fit before, a deal's events read from any mapping)."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any

import pytest

from arbiter.engine.errors import LogError
from arbiter.engine.log import _FIT_NAMES, Limits, parse_header
from arbiter.engine.match import replay
from arbiter.engine.rulesets import RULESETS
from arbiter.service import Referee
from arbiter.simulate import random_log

TABLES = [(name, n) for name, r in RULESETS.items() for n in r.players]


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_scores_body_is_the_full_replays(ruleset: str, players: int, lang: str) -> None:
    rng = random.Random(f"scores-only/{ruleset}/{players}/{lang}")
    referee = Referee()
    for k in range(25):
        log = random_log(
            ruleset,
            rng,
            players=players,
            deals=1 + k % 3,
            renuncio_rate=0.03 * (k % 4),
            declare_rate=0.5,
            finish_last=k % 5 != 0,
        )
        full = referee.replay(log).scores_dict(lang)  # type: ignore[arg-type]
        assert referee.score(log).scores_dict(lang) == full  # type: ignore[arg-type]


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
def test_a_replay_for_scores_keeps_no_tricks_but_every_count(ruleset: str, players: int) -> None:
    rng = random.Random(f"no-tricks/{ruleset}")
    for _ in range(10):
        log = random_log(ruleset, rng, players=players, renuncio_rate=0.02)
        full, bare = replay(log), replay(log, tricks=False)
        for whole, kept in zip(full.deals, bare.deals, strict=True):
            assert not kept.state.keeps_tricks and kept.state.tricks == []
            assert whole.state.keeps_tricks and len(whole.state.tricks) == whole.state.trick_no
            assert kept.state.copy().keeps_tricks is False
            for name in ("hands", "trick_no", "tricks_won", "card_points", "cante_points",
                         "violations", "cantes", "exchanges", "stock_pos"):  # fmt: skip
                assert getattr(kept.state, name) == getattr(whole.state, name), name
            assert kept.outcome == whole.outcome
        assert bare.standing.to_fields() == full.standing.to_fields()


def test_a_replay_for_scores_has_no_full_body() -> None:
    log = random_log("tute-4p", random.Random(3))
    with pytest.raises(ValueError, match="no full body"):
        Referee().score(log).to_dict()


def header(names: list[Any], max_length: int = 64) -> None:
    parse_header({"ruleset": "tute-4p", "players": names}, Limits(max_name_length=max_length))


def test_a_name_found_fit_before_is_still_held_to_the_length_and_once() -> None:
    names = ["ana-fit", "bea-fit", "carla-fit", "dora-fit"]
    header(names)
    assert set(names) <= _FIT_NAMES
    with pytest.raises(LogError, match="longer than 8") as caught:
        header(names, max_length=8)
    assert caught.value.path == ("players", 2)
    with pytest.raises(LogError, match="named twice") as caught:
        header(["ana-fit", "bea-fit", "ana-fit", "dora-fit"])
    assert caught.value.path == ("players", 2)


@pytest.mark.parametrize(
    ("name", "message"),
    [(" ", "non-empty"), ("e\u0301", "normal form NFC"), ("a\u200bb", "printable"), (3, "name")],
)
def test_an_unfit_name_is_never_taken_for_a_fit_one(name: Any, message: str) -> None:
    for _ in range(2):  # the second time as the first
        with pytest.raises(LogError, match=message) as caught:
            header(["ana", name, "carla", "dora"])
        assert caught.value.path == ("players", 1)
    assert name not in _FIT_NAMES


def test_deals_and_events_read_from_any_mapping() -> None:
    log = random_log("tute-2p", random.Random(5), deals=2)
    proxied = dict(log, deals=[MappingProxyType(d) for d in log["deals"]])
    assert replay(MappingProxyType(proxied)).standing.to_fields() == (
        replay(log).standing.to_fields()
    )
    no_events = dict(log, deals=[MappingProxyType({k: v for k, v in log["deals"][0].items()
                                                   if k != "events"})])  # fmt: skip
    match = replay(no_events)
    assert match.deals[0].state.events_applied == 0 and match.deals[0].outcome is None
