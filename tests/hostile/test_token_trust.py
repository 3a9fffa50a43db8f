"""Issue 22, finding 5: a ``state_id`` reveals every hidden hand over a few calls.

That is how the API works, not a flaw to hide: the answers on a token list the seat to act's
legal moves and hand out the next token. What was wrong is that docs/api.md and tokens.py said
a client "cannot read" the position. Now the walk is shown here, against the app, and the
documents say who may hold a token (the table's server, never a player) and that an old token
stays valid.
"""

from __future__ import annotations

import random
from typing import Any

from flask.testing import FlaskClient

from arbiter.api import create_app
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.api_support import ROOT

SECRET = "hostile-token-trust-secret-0123456789abc"
#: Any move: whatever the verdict, the answer lists the legal moves of the seat to act.
PROBE = {"type": "play", "seat": 0, "card": "1O"}


def _validate(client: FlaskClient, token: str, move: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/v1/moves/validate", json={"state_id": token, "move": move})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    body: dict[str, Any] = answer.get_json()
    return body


def test_walking_a_token_recovers_every_hand() -> None:
    log = random_log("tute-4p", random.Random(22), finish_last=False, stop_after=0)
    dealt = [set(hand) for hand in log["deals"][0]["hands"]]
    client = create_app(Settings(state_key=SECRET)).test_client()
    token = client.post("/v1/replays", json=log).get_json()["state_id"]
    known: list[set[str]] = [set() for _ in dealt]
    calls = 0
    while any(len(seen) < len(hand) for seen, hand in zip(known, dealt, strict=True)):
        assert calls < 100, "the walk should take a few dozen calls"
        options = _validate(client, token, PROBE)["legal_moves"]  # the seat to act's moves
        plays = [m for m in options if m["type"] == "play"]
        known[plays[0]["seat"]].update(m["card"] for m in plays)
        answer = _validate(client, token, plays[0])
        calls += 2
        assert answer["verdict"] == "ok"
        token = answer["state_id"]
    assert known == dealt  # the holder of the first token now knows all four hands


def test_the_documents_say_who_may_hold_a_token() -> None:
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert "#### Who may hold a `state_id`" in api
    assert "Never give one to a player" in api
    assert "an older token stays valid" in api
    deploy = (ROOT / "deploy" / "README.md").read_text(encoding="utf-8")
    assert "### Who holds a state token" in deploy
    tokens = (ROOT / "arbiter" / "tokens.py").read_text(encoding="utf-8")
    assert "capability" in tokens
    for text in (api, deploy, tokens):
        assert "cannot read" not in text
