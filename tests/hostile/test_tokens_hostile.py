"""Issue 22, findings 6 and 7: a token's length tells nothing of the cards, and one position
sealed once has exactly one spelling.

- **Length** (finding 6): tokens of one table (the same ruleset, players and options) have one
  length, whatever the hands, the stock, the point of the deal, the scores or the number of
  deals; msgpack's variable-width integers made it 218, 220 or 226 characters for answers
  otherwise byte-identical. Checked over random positions of every ruleset and table size
  (hypothesis), and over HTTP: the tokens of every answer while a match is validated move by
  move.
- **Malleability** (finding 7): base64url without padding leaves 2 or 4 bits of the last
  character unused; a token with any of them set is refused, so every other last character of
  a token is refused (15 of them were accepted for a 226-character token).
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import arbiter
from arbiter.api import create_app
from arbiter.engine.match import replay as engine_replay
from arbiter.settings import Settings
from arbiter.simulate import random_log
from arbiter.tokens import Sealer, TokenError

SECRET = "hostile-token-tests-secret-0123456789"
#: Every (ruleset, players) the service plays.
TABLES = [
    ("tute-2p", 2),
    ("tute-3p", 3),
    ("tute-4p", 4),
    ("tute-cabron", 3),
    ("tute-gana-pierde", 3),
    ("tute-gana-pierde", 4),
    ("tute-gana-pierde", 5),
]
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _token_of(log: dict[str, Any], sealer: Sealer) -> str:
    return sealer.seal(engine_replay(log).position())


def _random_position_log(table: tuple[str, int], seed: int, deals: int, events: int) -> Any:
    ruleset, players = table
    rng = random.Random(seed)
    return random_log(ruleset, rng, players=players, deals=deals, finish_last=events < 0,
                      stop_after=max(events, 0))  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    table=st.sampled_from(TABLES),
    seeds=st.lists(st.integers(0, 10**9), min_size=2, max_size=4),
    deals=st.integers(1, 4),
    events=st.integers(-1, 60),  # -1: the last deal played to its end
)
def test_tokens_of_one_table_have_one_length(
    table: tuple[str, int], seeds: list[int], deals: int, events: int
) -> None:
    sealer = Sealer([SECRET])
    lengths = set()
    for n, seed in enumerate(seeds):
        # other deals, other cards, another point of the deal for each seed
        log = _random_position_log(table, seed, 1 + (deals + n) % 4, (events + 7 * n) % 62 - 1)
        lengths.add(len(_token_of(log, sealer)))
    assert len(lengths) == 1, lengths


def test_the_tokens_of_a_match_validated_move_by_move_have_one_length() -> None:
    """Over HTTP, every ``state_id`` a client gets while it plays a deal to its end."""
    client = create_app(Settings(state_key=SECRET, cache="off")).test_client()
    log = random_log("tute-4p", random.Random(5), deals=1, finish_last=False, stop_after=0)
    answer = client.post("/v1/replays", json=log).get_json()
    state_id, lengths = answer["state_id"], {len(answer["state_id"])}
    full = random_log("tute-4p", random.Random(5), deals=1)
    for move in full["deals"][0]["events"]:
        verdict = client.post("/v1/moves/validate", json={"state_id": state_id, "move": move})
        body = verdict.get_json()
        assert body["verdict"] == "ok", body
        state_id = body["state_id"]
        lengths.add(len(state_id))
    assert len(lengths) == 1, lengths


def _tokens_of_every_residue(sealer: Sealer) -> dict[int, str]:
    """Tokens whose unpadded base64url length is 0, 2 and 3 modulo 4 (names of other lengths
    shift it)."""
    base = random_log("tute-2p", random.Random(8), deals=1, finish_last=False, stop_after=4)
    found: dict[int, str] = {}
    for extra in range(6):
        log = {**base, "players": ["ana" + "x" * extra, "bea"]}
        token = _token_of(log, sealer)
        found.setdefault(len(token) % 4, token)
    assert set(found) == {0, 2, 3}, found  # 1 is no base64 length
    return found


def test_every_other_last_character_is_refused() -> None:
    sealer = Sealer([SECRET])
    for residue, token in _tokens_of_every_residue(sealer).items():
        accepted = []
        for char in ALPHABET:
            if char == token[-1]:
                continue
            try:
                sealer.open(token[:-1] + char)
            except TokenError:
                continue
            accepted.append(char)
        assert not accepted, f"length {len(token)} (mod 4: {residue}): also opens with {accepted}"
        assert sealer.open(token).deals == 1


def test_a_token_with_unused_bits_set_is_a_409() -> None:
    client = create_app(Settings(state_key=SECRET, cache="off")).test_client()
    base = random_log("tute-2p", random.Random(8), deals=1, finish_last=False, stop_after=4)
    move = arbiter.replay(base).to_dict()["next"]["legal_moves"][0]
    for extra in range(4):  # a name of another length until the token has unused bits
        log = {**base, "players": ["ana" + "x" * extra, "bea"]}
        token = client.post("/v1/replays", json=log).get_json()["state_id"]
        if len(token) % 4:
            break
    twin = token[:-1] + ALPHABET[ALPHABET.index(token[-1]) ^ 1]  # the lowest bit: unused
    ok = client.post("/v1/moves/validate", json={"state_id": token, "move": move})
    assert ok.status_code == 200, ok.get_json()
    refused = client.post("/v1/moves/validate", json={"state_id": twin, "move": move})
    assert refused.status_code == 409
