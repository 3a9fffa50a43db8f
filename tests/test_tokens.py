"""Sealed state tokens (arbiter/tokens.py) and the secrets that seal them (arbiter/settings.py).

- A token opens to the position it sealed, on any sealer holding the secret; never with another
  secret; after rotation (``ARBITER_STATE_KEYS=new,old``) old tokens still open and new ones are
  sealed with the new secret.
- Any change to a token — every byte flipped, cut, lengthened, re-encoded with other base64
  characters — and any garbage is refused with :class:`TokenError`, and over HTTP with a 409
  problem counted in ``arbiter_state_tokens_rejected_total`` (never a 500).
- A token does not show the hands or the names it carries, and two seals of one position differ.
- The committed tokens of every position version (tests/tokens/, each made by that version's
  tree) still open, and every move on them is judged as it was then, and as on the log now;
  v3-exchanged.json holds tokens sealed after an exchange of the seven before an exchange
  recorded its trick (a token carries no history, so its version stands).
- The largest tokens (five players, names at the length limit, four-byte characters) fit under
  :data:`MAX_TOKEN_LENGTH`.
- Secrets shorter than 32 bytes, or both ``ARBITER_STATE_KEY`` and ``ARBITER_STATE_KEYS``, refuse
  to start; with no secret, the gunicorn master's ``ARBITER_SERVER_STATE_KEY`` is used.
"""

from __future__ import annotations

import base64
import random
from pathlib import Path
from typing import Any

import msgpack
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import arbiter
from arbiter.api import create_app
from arbiter.contract import MAX_NAME_LENGTH_LIMIT, MAX_TOKEN_LENGTH
from arbiter.engine.match import replay as engine_replay
from arbiter.engine.position import Position
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.snapshot import _POSITION_VERSIONS, POSITION_VERSION
from arbiter.service import Referee
from arbiter.settings import SERVER_STATE_KEY_VAR, Settings, SettingsError
from arbiter.simulate import random_log
from arbiter.tokens import Sealer, TokenError, _Key
from tests.api_support import PROBLEM_JSON, metric_value

SECRET = "tokens-tests-secret-0123456789abcdef"
OLD = "the-old-secret-of-this-deployment-0000"
OTHER = "another-deployment-secret-abcdefghijk"


def position_of(log: dict[str, Any]) -> Position:
    return engine_replay(log).position()


LOG = random_log("tute-4p", random.Random(3), deals=1, finish_last=False, stop_after=13)
POSITION = position_of(LOG)


def raw(token: str) -> bytes:
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))


def text(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def opens_to_position(sealer: Sealer, token: str) -> bool:
    opened = sealer.open(token)
    return opened.deal.to_fields(history=False) == POSITION.deal.to_fields(history=False)


# --- sealing, opening, rotation ------------------------------------------------------------------


def test_a_token_opens_on_every_sealer_with_the_secret_and_on_no_other() -> None:
    token = Sealer([SECRET]).seal(POSITION)
    assert opens_to_position(Sealer([SECRET]), token)  # another process, the same secret
    with pytest.raises(TokenError, match="key"):
        Sealer([OTHER]).open(token)


def test_rotation_opens_old_tokens_and_seals_with_the_new_secret() -> None:
    old_token = Sealer([OLD]).seal(POSITION)
    rotated = Sealer([SECRET, OLD])
    assert opens_to_position(rotated, old_token)
    new_token = rotated.seal(POSITION)
    assert opens_to_position(Sealer([SECRET]), new_token)
    with pytest.raises(TokenError):
        Sealer([OLD]).open(new_token)
    with pytest.raises(TokenError):  # once the old secret is dropped, its tokens are gone
        Sealer([SECRET]).open(old_token)


def test_two_seals_of_one_position_differ_and_show_nothing() -> None:
    # names long enough that random ciphertext cannot hold one by chance (two-byte names such
    # as "p3" turn up in about one token in a hundred)
    log = {**LOG, "players": ["ana-de-la-mesa-uno", "bea-de-la-mesa-dos", "carmen-mesa-tres",
                              "dani-de-la-mesa-cuatro"]}  # fmt: skip
    position = position_of(log)
    sealer = Sealer([SECRET])
    one, two = sealer.seal(position), sealer.seal(position)
    assert one != two  # a fresh nonce each time
    for token in (one, two):
        data = raw(token)
        for name in log["players"]:
            assert name.encode() not in data
        assert b"tute-4p" not in data
        for hand in position.deal.hands:
            assert hand.to_bytes(5, "big") not in data and hand.to_bytes(5, "little") not in data


# --- tokens of earlier versions ----------------------------------------------------------------

#: Tokens as each version sealed them, with its judgement of moves on them
#: (devtools/token_fixtures.py, run by that version's tree; one file per position version).
TOKEN_FIXTURES = sorted((Path(__file__).parent / "tokens").glob("v*.json"))
#: What an answer says in words (the words may be mended; the judgement may not change).
PROSE = frozenset({"message"})


def sealed_position_version(secret: str, token: str) -> int:
    """The version of the position bytes inside ``token`` (decrypted here, as Sealer does)."""
    data = raw(token)
    key = _Key(secret)
    plain = key.aead.decrypt(data[5:17], data[17:], data[:5])
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(plain)
    version, *_ = next(unpacker)
    return int(version)


def test_there_is_a_fixture_of_the_version_sealed_now() -> None:
    made = {orjson.loads(path.read_bytes())["position_version"] for path in TOKEN_FIXTURES}
    assert POSITION_VERSION in made, "run devtools/token_fixtures.py for the new version"
    assert made <= _POSITION_VERSIONS  # every version a token was sealed in still opens


@pytest.mark.parametrize("path", TOKEN_FIXTURES, ids=[p.stem for p in TOKEN_FIXTURES])
def test_old_tokens_still_open_and_judge_as_when_they_were_made(path: Path) -> None:
    """docs/api.md: an older token stays valid. Each move on each committed token is judged
    as the version that sealed it judged it (its words aside), and as the log is today."""
    fixture = orjson.loads(path.read_bytes())
    client = create_app(Settings(state_key=fixture["secret"])).test_client()
    for position in fixture["positions"]:
        token = position["state_id"]
        assert sealed_position_version(fixture["secret"], token) == fixture["position_version"]
        for question in position["questions"]:
            move = question["move"]
            answer = client.post("/v1/moves/validate", json={"state_id": token, "move": move})
            assert answer.status_code == 200, (path.name, move, answer.get_json())
            body = answer.get_json()
            assert (body.pop("state_id", None) is not None) == question["next_state_id"]
            # a renuncio answers the position with the card played (test_renuncio_after.py)
            after = body.pop("after", None)
            assert (after is not None) is (body["verdict"] == "renuncio"), (path.name, move)
            then = question["answer"]
            assert {k: body.get(k) for k in then if k not in PROSE} == {
                k: v for k, v in then.items() if k not in PROSE
            }, (path.name, move)
            by_log = client.post("/v1/moves/validate", json={**position["log"], "move": move})
            by_log_body = by_log.get_json()
            by_log_body.pop("state_id", None)
            assert body == by_log_body, (path.name, move)


# --- tampering and garbage -----------------------------------------------------------------------


def test_every_flipped_byte_is_refused() -> None:
    sealer = Sealer([SECRET])
    data = raw(sealer.seal(POSITION))
    for i in range(len(data)):
        for bit in (0x01, 0x80):
            altered = bytearray(data)
            altered[i] ^= bit
            with pytest.raises(TokenError):
                sealer.open(text(bytes(altered)))


def test_every_cut_and_every_extension_is_refused() -> None:
    sealer = Sealer([SECRET])
    token = sealer.seal(POSITION)
    data = raw(token)
    for length in range(len(data)):
        with pytest.raises(TokenError):
            sealer.open(text(data[:length]))
    for extra in (b"\x00", b"x", data[:16]):
        with pytest.raises(TokenError):
            sealer.open(text(data + extra))
    for suffix in ("=", "==", " ", "\n", ".", "A"):
        with pytest.raises(TokenError):
            sealer.open(token + suffix)
    # standard base64 letters for the URL-safe ones name the same bytes, yet are not the token
    if "-" in token or "_" in token:
        with pytest.raises(TokenError):
            sealer.open(token.replace("-", "+").replace("_", "/"))


@given(st.one_of(st.text(max_size=300), st.binary(max_size=200).map(text)))
def test_garbage_is_refused_with_token_error_only(garbage: str) -> None:
    with pytest.raises(TokenError):
        Sealer([SECRET]).open(garbage)


@pytest.mark.parametrize("value", [None, 7, ["x"], {"a": 1}, "", "A" * (MAX_TOKEN_LENGTH + 1)])
def test_what_is_not_a_short_string_is_refused(value: Any) -> None:
    with pytest.raises(TokenError):
        Sealer([SECRET]).open(value)


def test_a_refused_token_is_a_409_problem_and_is_counted() -> None:
    client = create_app(Settings(state_key=SECRET)).test_client()
    token = Sealer([SECRET]).seal(POSITION)
    move = arbiter.replay(LOG).to_dict()["next"]["legal_moves"][0]
    assert (
        client.post("/v1/moves/validate", json={"state_id": token, "move": move}).status_code == 200
    )
    altered = token[:-2] + ("AA" if token[-2:] != "AA" else "BB")
    bodies = [
        {"state_id": altered, "move": move},
        {"state_id": Sealer([OTHER]).seal(POSITION), "move": move},
        {"state_id": "not a token", "move": move},
        {"state_id": "3f2a9c41d0.5b1e7d0c9a8f64e2b3c1d7a9e0f24c68", "move": move},  # an old id
    ]
    for body in bodies:
        response = client.post("/v1/moves/validate", json=body)
        assert response.status_code == 409, response.get_data(as_text=True)
        assert response.mimetype == PROBLEM_JSON
        problem = response.get_json()
        assert problem["type"].endswith("/unknown-state")
        assert "resend the full log" in problem["detail"]
    text_metrics = client.get("/metrics").get_data(as_text=True)
    assert metric_value(text_metrics, "arbiter_state_tokens_rejected_total") == len(bodies)


# --- sizes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4), ("tute-cabron", 3), ("tute-gana-pierde", 5)],
)
@pytest.mark.parametrize("name_length", [64, MAX_NAME_LENGTH_LIMIT])
def test_the_largest_tokens_fit_the_limit(ruleset: str, players: int, name_length: int) -> None:
    sealer = Sealer([SECRET])
    log = random_log(ruleset, random.Random(9), players=players, deals=2, finish_last=False,
                     stop_after=3)  # fmt: skip
    log["players"] = [chr(0x1F0A1 + i) * name_length for i in range(players)]  # 4 UTF-8 bytes
    assert all(len(name.encode()) == 4 * name_length for name in log["players"])
    match = engine_replay(log, Settings(max_name_length=MAX_NAME_LENGTH_LIMIT).limits)
    token = sealer.seal(match.position())
    assert len(token) <= MAX_TOKEN_LENGTH
    assert opens_to_position_of(sealer, token, match.header.players)


def _widest_options(ruleset: str) -> dict[str, Any]:
    """Every option of ``ruleset`` away from its default, at its longest."""
    chosen: dict[str, Any] = {}
    for name, spec in RULESETS[ruleset].to_dict()["options"].items():
        if spec["type"] == "boolean":
            chosen[name] = not spec["default"]
        elif spec["type"] == "array":  # call_ranks: two ranks, the longest spelled
            chosen[name] = [10, 12]
        elif "allowed" in spec:
            chosen[name] = max(spec["allowed"], key=lambda v: len(str(v)))
        else:
            chosen[name] = spec["maximum"]
    return chosen


@pytest.mark.parametrize(
    ("ruleset", "players"),
    [("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4), ("tute-cabron", 3), ("tute-gana-pierde", 5)],
)
def test_the_largest_tokens_fit_the_limit_with_every_option_set(ruleset: str, players: int) -> None:
    """Fixed-width positions are padded to the widest of their table: with names at the limit
    and every option overridden, the token still fits."""
    sealer = Sealer([SECRET])
    log = random_log(ruleset, random.Random(9), players=players, deals=1, finish_last=False,
                     stop_after=3)  # fmt: skip
    log["options"] = _widest_options(ruleset)
    log["players"] = [chr(0x1F0A1 + i) * MAX_NAME_LENGTH_LIMIT for i in range(players)]
    match = engine_replay(log, Settings(max_name_length=MAX_NAME_LENGTH_LIMIT).limits)
    assert match.illegal is None
    token = sealer.seal(match.position())
    assert len(token) <= MAX_TOKEN_LENGTH, len(token)
    assert sealer.open(token).header.options == match.header.options


def opens_to_position_of(sealer: Sealer, token: str, players: tuple[str, ...]) -> bool:
    return sealer.open(token).header.players == players


# --- secrets in the settings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARBITER_STATE_KEY": "short"}, "ARBITER_STATE_KEY must be at least 32 bytes"),
        ({"ARBITER_STATE_KEY": "x" * 31}, "at least 32 bytes long \\(it has 31\\)"),
        ({"ARBITER_STATE_KEYS": f"{SECRET},tiny"}, "ARBITER_STATE_KEYS\\[1\\] must be at least"),
        ({"ARBITER_STATE_KEY": SECRET, "ARBITER_STATE_KEYS": SECRET}, "not both"),
        ({SERVER_STATE_KEY_VAR: "y" * 8}, f"{SERVER_STATE_KEY_VAR} must be at least"),
    ],
)
def test_weak_or_ambiguous_secrets_refuse_to_start(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(env)


def test_a_secret_of_32_multibyte_characters_counts_its_bytes() -> None:
    assert Settings.from_env({"ARBITER_STATE_KEY": "ñ" * 16}).secrets == ("ñ" * 16,)  # 32 bytes
    with pytest.raises(SettingsError):
        Settings.from_env({"ARBITER_STATE_KEY": "ñ" * 15 + "x"})  # 31 bytes


def test_which_secrets_are_in_force() -> None:
    assert Settings.from_env({}).secrets == ()  # drawn per process
    assert Settings.from_env({SERVER_STATE_KEY_VAR: SECRET}).secrets == (SECRET,)
    both = {SERVER_STATE_KEY_VAR: OTHER, "ARBITER_STATE_KEY": SECRET}
    assert Settings.from_env(both).secrets == (SECRET,)  # a configured key wins
    rotated = Settings.from_env({"ARBITER_STATE_KEYS": f" {SECRET} , {OLD} "})
    assert rotated.secrets == (SECRET, OLD)


def test_the_server_key_is_not_enough_for_a_shared_cache() -> None:
    env = {SERVER_STATE_KEY_VAR: SECRET, "REDIS_URL": "redis://redis.test:6380/0"}  # refused unread
    with pytest.raises(SettingsError, match="needs ARBITER_STATE_KEY"):
        Settings.from_env(env)


def test_apps_with_one_secret_open_each_others_tokens() -> None:
    one = Referee.from_settings(Settings(cache="off", state_key=SECRET))
    two = Referee.from_settings(Settings(cache="off", server_state_key=SECRET))
    token = one.replay(LOG).state_id
    assert token is not None
    assert two.open(token).deal.to_fields(history=False) == POSITION.deal.to_fields(history=False)


def test_without_a_secret_each_process_draws_its_own() -> None:
    one = Referee.from_settings(Settings(cache="off"))
    two = Referee.from_settings(Settings(cache="off"))
    token = one.replay(LOG).state_id
    assert token is not None and one.open(token).deals == 1
    with pytest.raises(arbiter.UnknownState):
        two.open(token)
