"""Issue 22, finding 9: a log past the limits is refused before any costly work.

A 1 MB log of 1,300 events and 340,000 ``{}`` deals took 1.1-1.5 s and a Redis MGET of ~340,000
keys (one per deal boundary) before its 422: the cache keys of a log were computed before the
deal limit was checked. The deal count and each deal's event count are now checked first: such
a log gets its 422 without a key computed or a lookup made. Checked with the in-process cache
(no lookup is timed) and with a real Redis (no MGET reaches it); a log within the limits still
gets its lookup, so the tests would see one.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbiter.engine.errors import LogError
from arbiter.engine.log import max_events_per_deal
from arbiter.engine.rulesets import RULESETS
from arbiter.service import Referee
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.redis_support import RedisDatabase

SECRET = "request-limits-tests-secret-0123456789"


class Lookups:
    """A cache observer that counts the lookups the cache made."""

    def __init__(self) -> None:
        self.lookups = 0
        self.events: list[str] = []

    def cache_event(self, kind: str) -> None:
        self.events.append(kind)

    def cache_lookup(self, seconds: float) -> None:
        self.lookups += 1


def _attack(deals: int) -> dict[str, Any]:
    """The finding's log: real deals with events enough for the cache to pay, then ``{}``s."""
    log = random_log("tute-2p", random.Random(31), deals=3)
    return {**log, "deals": log["deals"] + [{}] * deals}


def _referee(observer: Lookups, **settings: Any) -> Referee:
    return Referee.from_settings(
        Settings(state_key=SECRET, cache_min_events=1, **settings), observer
    )


def _refused(referee: Referee, log: dict[str, Any], path: tuple[str | int, ...]) -> None:
    with pytest.raises(LogError) as raised:
        referee.replay(log)
    assert raised.value.path == path, raised.value


def test_too_many_deals_are_refused_before_any_lookup() -> None:
    observer = Lookups()
    referee = _referee(observer, cache="memory")
    referee.replay(_attack(0))  # within the limits: looked up
    assert observer.lookups == 1
    _refused(referee, _attack(340_000), ("deals",))
    assert observer.lookups == 1


def test_a_deal_with_too_many_events_is_refused_before_any_lookup() -> None:
    most = max(max_events_per_deal(r, n) for r in RULESETS.values() for n in r.players)
    log = random_log("tute-2p", random.Random(32), deals=1)
    log["deals"][0]["events"] = log["deals"][0]["events"] * (3 * most)
    observer = Lookups()
    referee = _referee(observer, cache="memory")
    with pytest.raises(LogError):
        referee.replay(log)
    assert observer.lookups == 0


@pytest.mark.slow
def test_no_mget_of_a_refused_log_reaches_redis(redis_db: RedisDatabase) -> None:
    observer = Lookups()
    referee = _referee(observer, cache="redis", redis_url=redis_db.url)

    def mgets() -> int:
        stats = redis_db.info("commandstats")
        return int(stats.get("cmdstat_mget", {}).get("calls", 0))

    before = mgets()
    referee.replay(_attack(0))
    assert mgets() == before + 1  # a log within the limits is looked up, in one MGET
    _refused(referee, _attack(340_000), ("deals",))
    assert mgets() == before + 1
