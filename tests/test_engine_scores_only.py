"""What the replay for scores only (``Referee.score``, the archives' path) must keep: the same
scores body as a full replay, every ruleset and player count, with renuncios, tutes and logs
that stop early; no trick records and no full body; and the shortcuts its reading took for speed
(a deal's events read from any mapping)."""

from __future__ import annotations

import random
from types import MappingProxyType

import pytest

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
