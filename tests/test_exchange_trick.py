"""The exchange of the seven of trumps records the trick it followed (issue 27, item 6).

- In a replay, an exchange made after trick k (on the lead of trick k+1) says ``"trick": k``,
  -1 before the first trick, worked out here from the log's events alone; the step after it
  shows it as following the last trick (``trick.number - 1``), as a cante sung then is.
- A position given from outside has its exchange's trick read and checked: in range, a lead of
  the seat that exchanged, while the stock lasted, after a trick won when the option asks for
  it; each fault named by its pointer. A duplicate card's message names the first place by the
  same full pointer (``/position/...``) as the fault's own.
- Snapshots (the cache's) carry the trick, under a new version: one of the version before is
  refused, so the cache misses it. Position tokens carry no history, the exchanges included:
  their bytes do not depend on an exchange's record, so their version stands.
"""

from __future__ import annotations

import json
import random
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import snapshot
from arbiter.engine.errors import ArbiterError, ArbiterErrors
from arbiter.engine.match import replay
from arbiter.engine.position import Position
from arbiter.report import position_dict, read_position_json
from arbiter.service import LIBRARY
from arbiter.simulate import random_log
from tests.api_support import assert_problem, make_client


def _exchange_logs(count: int, seed: int, **options: Any) -> list[dict[str, Any]]:
    """``count`` tute-2p logs whose deals hold an exchange (declarations as often as they come)."""
    rng = random.Random(seed)
    found: list[dict[str, Any]] = []
    while len(found) < count:
        log = random_log("tute-2p", rng, declare_rate=1.0, options=options or None)
        if any(e["type"] == "exchange" for d in log["deals"] for e in d["events"]):
            found.append(log)
    return found


def _expected_tricks(events: list[dict[str, Any]], players: int) -> list[int]:
    """From the log alone: each exchange follows the trick completed by the plays before it."""
    expected = []
    plays = 0
    for event in events:
        if event["type"] == "play":
            plays += 1
        elif event["type"] == "exchange":
            assert plays % players == 0  # on a lead: between tricks
            expected.append(plays // players - 1)
    return expected


def _check_replay(log: dict[str, Any]) -> list[int]:
    """The replay's exchanges and steps against :func:`_expected_tricks`; the tricks seen."""
    n = len(log["players"])
    body = LIBRARY.replay(log, steps=True).to_dict()
    seen = []
    for raw, deal in zip(log["deals"], body["deals"], strict=True):
        expected = _expected_tricks(raw["events"], n)
        assert [x["trick"] for x in deal["exchanges"]] == expected
        steps = deal["steps"]
        for i, event in enumerate(raw["events"]):
            if event["type"] == "exchange":
                after = steps[i + 1]  # the step after the event
                assert after["exchanges"][-1]["trick"] == after["trick"]["number"] - 1
                assert after["trick"]["plays"] == []
        seen += expected
    return seen


def test_an_exchange_made_after_trick_k_records_trick_k() -> None:
    seen = []
    for log in _exchange_logs(40, 27):
        seen += _check_replay(log)
    # both an exchange on the first lead and later ones are among them
    assert -1 in seen and max(seen) >= 1, seen


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_every_exchange_records_the_trick_it_followed(seed: int, won: bool) -> None:
    for log in _exchange_logs(1, seed, exchange_requires_trick_won=won):
        seen = _check_replay(log)
        assert not won or min(seen) >= 0


# --- a position given from outside ----------------------------------------------------------------


def _positions(log: dict[str, Any]) -> list[Position]:
    seen: list[Position] = []
    replay(log, observer=lambda m: seen.append(m.position().copy()))
    return seen


def _with_exchange(least: int, most: int = 99, stock_gone: bool = False) -> dict[str, Any]:
    """The JSON of a tute-2p position whose exchange followed a trick from ``least`` to
    ``most`` (and, with ``stock_gone``, once the stock is exhausted)."""
    for log in _exchange_logs(200, 5):
        for position in _positions(log):
            deal = position.deal
            if not deal.exchanges or deal.over or not least <= deal.exchanges[0].trick <= most:
                continue
            if stock_gone and deal.stock_left:
                continue
            return dict(json.loads(json.dumps(position_dict(position))))
    raise AssertionError("no such position")


def _faults(body: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ArbiterError) as caught:
        read_position_json(body)
    err = caught.value
    return {e.pointer: e.message for e in (err.errors if isinstance(err, ArbiterErrors) else [err])}


def test_a_given_position_carries_its_exchanges_trick_back() -> None:
    body = _with_exchange(1)
    again = read_position_json(body)
    assert again.deal.exchanges[0].trick == body["exchanges"][0]["trick"] >= 1
    assert position_dict(again) == body


def test_an_exchange_trick_out_of_range_or_missing_is_refused() -> None:
    body = _with_exchange(0)
    played = body["trick"]["number"]
    for bad in (played, -2, "3", None):
        body["exchanges"][0]["trick"] = bad
        assert set(_faults(body)) == {"/exchanges/0/trick"}, bad
    del body["exchanges"][0]["trick"]
    assert _faults(body) == {"/exchanges/0/trick": "missing"}


def test_an_exchange_off_the_seats_lead_is_refused() -> None:
    body = _with_exchange(0)
    exchange = body["exchanges"][0]
    others = [i for i, t in enumerate(body["tricks"]) if t["winner"] != exchange["seat"]]
    if body["mano"] != exchange["seat"]:
        others.append(-1)
    assert others
    for trick in others:
        exchange["trick"] = trick
        faults = _faults(body)
        assert set(faults) == {"/exchanges/0/trick"}
        assert f"not seat {exchange['seat']}" in faults["/exchanges/0/trick"]


def test_an_exchange_before_any_trick_is_refused_when_a_trick_won_is_required() -> None:
    body = _with_exchange(-1, -1)
    assert read_position_json(body).deal.exchanges[0].trick == -1
    body["options"]["exchange_requires_trick_won"] = True
    assert _faults(body) == {
        "/exchanges/0/trick": "exchange_requires_trick_won: not before the first trick"
    }


def test_an_exchange_after_the_stock_is_exhausted_is_refused() -> None:
    body = _with_exchange(0, stock_gone=True)
    exchange = body["exchanges"][0]
    drawn, late = 0, None
    for i, t in enumerate(body["tricks"]):
        drawn += len(t["draws"])
        if drawn >= 24 and t["winner"] == exchange["seat"]:  # tute-2p: 40 - 2 x 8 dealt
            late = i
            break
    assert late is not None
    exchange["trick"] = late
    assert _faults(body) == {"/exchanges/0/trick": "no stock was left after that trick"}


def test_a_card_twice_names_its_first_place_by_the_faults_own_pointer() -> None:
    body = _with_exchange(0)
    body["hands"][1][0] = body["hands"][0][0]
    assert _faults(body)["/hands/1/0"] == "this card is already at /hands/0/0"
    client = make_client()
    move = {"type": "play", "seat": body["turn"], "card": body["hands"][body["turn"]][-1]}
    problem = assert_problem(
        client.post("/v1/moves/validate", json={"position": body, "move": move}), 422
    )
    messages = {e["pointer"]: e["message"] for e in problem["errors"]}
    assert messages["/position/hands/1/0"] == "this card is already at /position/hands/0/0"


# --- snapshots and tokens -------------------------------------------------------------------------


def _match_with_exchange() -> Any:
    return replay(_exchange_logs(1, 11)[0])


def test_a_snapshot_keeps_the_exchanges_trick() -> None:
    match = _match_with_exchange()
    decoded = snapshot.decode(snapshot.encode(match))
    before = [x for r in match.deals for x in r.state.exchanges]
    after = [x for r in decoded.deals for x in r.state.exchanges]
    assert before and after == before


def test_a_snapshot_of_the_version_before_is_refused() -> None:
    """A snapshot as version 4 wrote it (exchanges of three fields) is no snapshot of this
    engine: the cache misses it and replays the log (its key names the version too)."""
    blob = snapshot.encode(_match_with_exchange())
    body = msgpack.unpackb(blob[len(snapshot.MAGIC) + 1 :], raw=False)
    *header, standing, deals = body
    old_deals = []
    for packed, outcome, dealer in deals:
        fields = msgpack.unpackb(packed, raw=False)
        at = len(fields) - 2  # the exchanges, before the renuncios (state.FIELDS)
        fields[at] = [e[:3] for e in fields[at]]
        old_deals.append([msgpack.packb(fields, use_bin_type=True), outcome, dealer])
    old = snapshot.MAGIC + bytes([4]) + msgpack.packb([*header, standing, old_deals])
    assert snapshot.SNAPSHOT_VERSION > 4
    with pytest.raises(snapshot.SnapshotError):
        snapshot.decode(old)


def test_a_token_does_not_carry_the_exchanges() -> None:
    position = _match_with_exchange().position()
    assert position.deal.exchanges
    bare = position.copy()
    bare.deal.exchanges = []
    assert snapshot.encode_position(bare) == snapshot.encode_position(position)
    opened = snapshot.decode_position(snapshot.encode_position(position))
    assert opened.deal.exchanges == []  # docs/api.md: a position from a state_id has no history
