"""The service layer (arbiter/service.py): one request path for HTTP, the CLI and the library.

- ``validate_request`` tells a full log from a token (a full log wins), and names the field of
  every malformed envelope: ``/move``, ``/state_id``, ``/deal``, ``/ruleset``.
- ``deal`` begins the next deal from a token whose deal has ended: the default dealer rotates,
  the setup is checked as in a log (errors under ``/deal``), events are refused, an unfinished
  deal is refused, a decided match answers ``match_over``, the deals limit holds.
- Every input is read once: no marshmallow on the request path, the move parsed once, a cached
  prefix not parsed again; one round trip to look a log up and at most one to keep a state;
  below the policy's ``min_events`` the cache is not touched at all; tokens never touch it.
- The library and the command line use a referee without tokens or cache.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import marshmallow
import pytest

import arbiter
from arbiter import service as service_module
from arbiter.api import create_app
from arbiter.cache import StateCache
from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.stores import MemoryStore
from arbiter.contract import MAX_TOKEN_LENGTH
from arbiter.engine.errors import ArbiterError
from arbiter.engine.log import Limits
from arbiter.engine.moves import Move
from arbiter.service import LIBRARY, Referee, UnknownState
from arbiter.settings import Settings
from arbiter.simulate import random_log
from arbiter.tokens import Sealer

SECRET = "service-tests-secret-0123456789abcdef"
MATCH = random_log("tute-2p", random.Random(4), deals=3, options={"match_target": 5})


def referee(cache: StateCache | None = None, **limits: int) -> Referee:
    return Referee(Limits(**limits), Sealer([SECRET]), cache)


def cut(log: Mapping[str, Any], deal: int, events: int) -> dict[str, Any]:
    """``log`` up to event ``events`` of deal ``deal`` (0-based)."""
    deals = [dict(d) for d in log["deals"][: deal + 1]]
    deals[-1]["events"] = list(deals[-1]["events"][:events])
    return {**log, "deals": deals}


def setup_of(deal: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in deal.items() if k != "events"}


def first_move(deal: Mapping[str, Any]) -> dict[str, Any]:
    move: dict[str, Any] = deal["events"][0]
    return move


def token_at_end_of_deal(ref: Referee, deal: int) -> str:
    token = ref.replay(cut(MATCH, deal, len(MATCH["deals"][deal]["events"]))).state_id
    assert token is not None
    return token


def pointer_of(call: Any) -> str:
    with pytest.raises(ArbiterError) as info:
        call()
    return info.value.pointer


# --- the envelope of POST /v1/moves/validate ---------------------------------------------------


def test_a_full_log_or_a_token_each_reach_the_same_verdict() -> None:
    ref = referee()
    log = cut(MATCH, 0, 6)
    move = MATCH["deals"][0]["events"][6]
    by_log = ref.validate_request({**log, "move": move}).to_dict()
    token = ref.replay(log).state_id
    by_token = ref.validate_request({"state_id": token, "move": move}).to_dict()
    assert by_log["verdict"] == by_token["verdict"] == "ok"
    assert {**by_log, "state_id": None} == {**by_token, "state_id": None}
    # a full log wins over a token that comes along, even a foreign one
    foreign = Sealer(["x" * 40]).seal(ref.open(token))
    assert ref.validate_request({**log, "state_id": foreign, "move": move}).legal


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"ruleset": "tute-2p"}, "/move"),
        ({"state_id": "x"}, "/move"),
        ({"move": {}}, "/ruleset"),
        ({"state_id": 5, "move": {}}, "/state_id"),
        ({"state_id": "", "move": {}}, "/state_id"),
        ({"state_id": "A" * (MAX_TOKEN_LENGTH + 1), "move": {}}, "/state_id"),
        ({**MATCH, "deal": setup_of(MATCH["deals"][1]), "move": {}}, "/deal"),
    ],
)
def test_a_malformed_envelope_names_its_field(body: dict[str, Any], pointer: str) -> None:
    assert pointer_of(lambda: referee().validate_request(body)) == pointer


def test_a_bad_move_is_located_under_move() -> None:
    ref = referee()
    token = ref.replay(cut(MATCH, 0, 3)).state_id
    bad = {"type": "play", "seat": 1, "card": "99Z"}
    assert pointer_of(lambda: ref.validate_token(token, bad)) == "/move/card"
    assert pointer_of(lambda: ref.validate(cut(MATCH, 0, 3), bad)) == "/move/card"


# --- beginning the next deal from a token ------------------------------------------------------


def test_deal_begins_the_next_deal_with_the_dealer_rotating() -> None:
    ref = referee()
    token = token_at_end_of_deal(ref, 0)
    nxt = MATCH["deals"][1]
    setup = setup_of(nxt)
    setup.pop("dealer")  # left out: the seat after the last dealer
    verdict = ref.validate_token(token, first_move(nxt), setup)
    expected = arbiter.validate(cut(MATCH, 1, 0), first_move(nxt)).to_dict()
    assert {**verdict.to_dict(), "state_id": None} == expected
    assert verdict.legal
    assert verdict.position.deal.dealer == (MATCH["deals"][0]["dealer"] + 1) % 2
    assert verdict.position.deals == 2
    # the token after the first move is a position of the second deal
    assert verdict.state_id is not None
    after = ref.open(verdict.state_id)
    assert (after.deals, after.deal.events_applied) == (2, 1)


def test_a_deal_from_a_token_is_checked_as_in_a_log() -> None:
    ref = referee()
    token = token_at_end_of_deal(ref, 0)
    nxt = setup_of(MATCH["deals"][1])
    hands = [list(h) for h in nxt["hands"]]
    hands[1][2] = hands[0][0]
    duplicated = {**nxt, "hands": hands}
    move = first_move(MATCH["deals"][1])
    assert pointer_of(lambda: ref.validate_token(token, move, duplicated)) == "/deal/hands/1/2"
    with_events = {**nxt, "events": [move]}
    assert pointer_of(lambda: ref.validate_token(token, move, with_events)) == "/deal/events"
    assert pointer_of(lambda: ref.validate_token(token, move, {**nxt, "dealer": 9})) == (
        "/deal/dealer"
    )
    assert pointer_of(lambda: ref.validate_token(token, move, "a deal")) == "/deal"


def test_a_deal_for_an_unfinished_deal_is_refused() -> None:
    ref = referee()
    token = ref.replay(cut(MATCH, 0, 5)).state_id
    nxt = setup_of(MATCH["deals"][1])
    assert pointer_of(lambda: ref.validate_token(token, first_move(MATCH["deals"][1]), nxt)) == (
        "/deal"
    )


def test_a_move_between_deals_without_a_deal_is_deal_over() -> None:
    ref = referee()
    verdict = ref.validate_token(token_at_end_of_deal(ref, 0), first_move(MATCH["deals"][1]))
    assert (verdict.judgement.verdict.value, verdict.to_dict()["code"]) == ("illegal", "deal_over")
    assert verdict.state_id is None


def test_the_deals_limit_holds_for_deals_begun_from_tokens() -> None:
    ref = referee(max_deals=1)
    token = token_at_end_of_deal(ref, 0)
    nxt = MATCH["deals"][1]
    assert pointer_of(lambda: ref.validate_token(token, first_move(nxt), setup_of(nxt))) == "/deal"


def test_the_library_referee_has_no_tokens() -> None:
    assert arbiter.replay(MATCH).state_id is None
    assert arbiter.replay(MATCH).to_dict()["state_id"] is None
    token = referee().replay(MATCH).state_id
    with pytest.raises(UnknownState):
        LIBRARY.validate_token(token, {"type": "play", "seat": 0, "card": "1O"})


# --- every input read once ------------------------------------------------------------------------


def test_no_marshmallow_pass_on_the_request_path(monkeypatch: pytest.MonkeyPatch) -> None:
    client = create_app(Settings(state_key=SECRET)).test_client()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a request was checked by marshmallow as well as by the engine")

    for name in ("validate", "load", "loads"):
        monkeypatch.setattr(marshmallow.Schema, name, refuse)
    log = cut(MATCH, 0, 8)
    move = MATCH["deals"][0]["events"][8]
    assert client.post("/v1/replays", json=log).status_code == 200
    assert client.post("/v1/scores", json=log).status_code == 200
    answer = client.post("/v1/moves/validate", json={**log, "move": move})
    assert answer.status_code == 200
    token = answer.get_json()["state_id"]
    nxt = {"state_id": token, "move": MATCH["deals"][0]["events"][9]}
    assert client.post("/v1/moves/validate", json=nxt).status_code == 200


def test_the_move_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    original = Move.from_json

    def counting(raw: object, players: int, notation: Any) -> Any:
        calls.append(raw)
        return original(raw, players, notation)

    monkeypatch.setattr(Move, "from_json", counting)
    ref = referee()
    move = {"type": "play", "seat": 0, "card": "1O", "note": "a field the referee ignores"}
    log = cut(MATCH, 0, 0)
    ref.validate(log, move)
    assert calls == [move]
    ref.validate_token(ref.replay(log).state_id, move)
    assert calls == [move, move]


class CountingStore:
    """A memory store that counts round trips."""

    name = "memory"

    def __init__(self) -> None:
        self.inner = MemoryStore(1000)
        self.gets = 0
        self.puts: list[list[str]] = []

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.gets += 1
        return self.inner.get_many(keys)

    def put_many(self, items: Mapping[str, bytes], ttl: int) -> None:
        self.puts.append(list(items))
        self.inner.put_many(items, ttl)

    def ping(self) -> bool:
        return True


def counting_referee(min_events: int = 0) -> tuple[Referee, CountingStore]:
    store = CountingStore()
    cache = StateCache(store, b"k" * 32, 60, CircuitBreaker(3, 5.0), min_events)
    return referee(cache), store


def test_one_lookup_and_at_most_one_store_per_request() -> None:
    ref, store = counting_referee()
    log = cut(MATCH, 1, 10)
    ref.replay(log)  # cold: one lookup (a miss), the final state kept
    assert (store.gets, len(store.puts)) == (1, 1)
    ref.replay(log)  # a hit on the whole log: nothing new to keep
    assert (store.gets, len(store.puts)) == (2, 1)
    move = MATCH["deals"][1]["events"][10]
    assert ref.validate(log, move).legal  # the state after the move is kept
    assert (store.gets, len(store.puts)) == (3, 2)
    assert [len(keys) for keys in store.puts] == [1, 1]
    fresh = cut(MATCH, 1, 9)  # a log never seen: it and the state after the move, in one trip
    assert ref.validate(fresh, MATCH["deals"][1]["events"][9]).legal
    assert (store.gets, len(store.puts)) == (4, 3)
    assert len(store.puts[-1]) == 2
    assert ref.validate(fresh, MATCH["deals"][1]["events"][9]).legal  # asked again: found
    assert (store.gets, len(store.puts)) == (5, 4)
    assert len(store.puts[-1]) == 1
    ref.replay(cut(MATCH, 1, 11))  # found: it was kept under the longer log
    assert (store.gets, len(store.puts)) == (6, 4)
    log = cut(MATCH, 1, 11)
    longer = log
    wrong = {"type": "play", "seat": 0, "card": "99Z"}
    with pytest.raises(ArbiterError):
        ref.validate(longer, wrong)
    token = ref.replay(longer).state_id
    gets, puts = store.gets, len(store.puts)
    ref.validate_token(token, MATCH["deals"][1]["events"][11])
    assert (store.gets, len(store.puts)) == (gets, puts)  # tokens never touch the cache


def test_below_the_policy_the_cache_is_not_touched(monkeypatch: pytest.MonkeyPatch) -> None:
    ref, store = counting_referee(min_events=1000)

    def no_keys(*args: Any) -> Any:
        raise AssertionError("keys computed for a log the policy skips")

    monkeypatch.setattr("arbiter.cache.states.prefix_keys", no_keys)
    ref.replay(MATCH)
    ref.validate(cut(MATCH, 0, 4), MATCH["deals"][0]["events"][4])
    assert (store.gets, store.puts) == (0, [])


def test_a_cached_prefix_is_not_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service reads a whole log (the engine's one-pass ``replay``) only on a miss; on a hit,
    only what follows the cached prefix (``advance``, from that deal and event). Spied at the
    service, which stays Python in both builds."""
    ref, _ = counting_referee()
    reads: list[tuple[Any, ...]] = []
    whole, rest = service_module.replay, service_module.advance

    def whole_read(log: Any, limits: Any) -> Any:
        reads.append(("log", len(log["deals"])))
        return whole(log, limits)

    def rest_read(match: Any, deals: Any, deal: int, event: int, dealer: int) -> Any:
        reads.append(("rest", deal, event))
        return rest(match, deals, deal, event, dealer)

    monkeypatch.setattr(service_module, "replay", whole_read)
    monkeypatch.setattr(service_module, "advance", rest_read)
    ref.replay(cut(MATCH, 2, 19))  # a miss: the whole log read, its state kept
    assert reads == [("log", 3)]
    log = cut(MATCH, 2, 20)
    resumed = ref.replay(log)  # resumed inside the last deal: only its 20th event read
    assert reads[1:] == [("rest", 2, 19)]
    first_deal = cut(MATCH, 0, len(MATCH["deals"][0]["events"]))
    ref.replay(first_deal)  # a miss: read, replayed and kept
    ref.replay(cut(MATCH, 2, 3))  # resumed at the end of the first deal
    assert reads[2:] == [("log", 1), ("rest", 0, len(MATCH["deals"][0]["events"]))]
    monkeypatch.undo()
    assert resumed.to_dict()["deals"] == arbiter.replay(log).to_dict()["deals"]
