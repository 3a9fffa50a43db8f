"""Sealed state tokens: the ``state_id`` of docs/api.md, a position the client carries for us.

A token is the engine's position bytes (:func:`arbiter.engine.snapshot.encode_position`) sealed
with AES-256-GCM-SIV, from the well-kept ``cryptography`` package: its holder can neither decrypt
it nor alter it, and any worker of any replica opens it with the same key — no shared store,
Redis up or down.

A token is a capability, not a secret kept from its holder: the answers to a move validated on
it list the legal moves (the hand of the seat to act), judge any card proposed (held or not),
and every ``ok`` hands out the next token, so a holder who walks them learns every hand and the
stock. It belongs to the table's server, which knows every hand; never to a player. Nothing is
kept here: an older token stays valid (a server that wants no undo keeps the last one itself).

Layout (before base64url, unpadded and canonical: a text with unused bits set is refused, so a
token has one spelling): one version byte, a 4-byte key id, a 12-byte random nonce, then the
ciphertext with its 16-byte tag; the version and key id are authenticated too. The
AEAD keys are derived with HKDF-SHA256 from the configured secrets (each at least
:data:`MIN_SECRET_BYTES` bytes of UTF-8). The first secret seals; every secret opens, so keys
rotate by putting the new one first and dropping the old one once its tokens no longer matter.

GCM-SIV keeps its guarantees if a random nonce ever repeats (it then reveals only that two
tokens hold the same position). A token's length tells nothing of the cards: the position bytes
have one length per table (the header, ruleset and players; see ``encode_position``), and they
are not compressed (a client chooses the player names, and compressed lengths would tell it
something about the hands).
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Sequence
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from arbiter.contract import MAX_TOKEN_LENGTH
from arbiter.engine.position import Position
from arbiter.engine.snapshot import SnapshotError, decode_position, encode_position

TOKEN_VERSION: Final = 1
MIN_SECRET_BYTES: Final = 32

_KEY_ID_BYTES: Final = 4
_NONCE_BYTES: Final = 12
_HEAD: Final = 1 + _KEY_ID_BYTES
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]+")


class TokenError(ValueError):
    """A token that does not open: garbage, altered, too long, or sealed with another key."""


def derive(secret: str, purpose: bytes, length: int = 32) -> bytes:
    """A key for ``purpose`` derived from a configured secret (HKDF-SHA256)."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose)
    return hkdf.derive(secret.encode("utf-8"))


class _Key:
    __slots__ = ("aead", "key_id")

    def __init__(self, secret: str) -> None:
        self.aead = AESGCMSIV(derive(secret, b"tute-arbiter/state-token/v1/aead"))
        self.key_id = derive(secret, b"tute-arbiter/state-token/v1/key-id", _KEY_ID_BYTES)


class Sealer:
    """Seals positions into tokens and opens them, with one or more secrets (the first seals)."""

    def __init__(self, secrets: Sequence[str]) -> None:
        if not secrets:
            raise ValueError("a sealer needs at least one secret")
        keys = [_Key(s) for s in secrets]
        self._sealing = keys[0]
        self._opening = {k.key_id: k for k in reversed(keys)}  # the first wins a clash

    def seal(self, position: Position) -> str:
        key = self._sealing
        head = bytes([TOKEN_VERSION]) + key.key_id
        nonce = os.urandom(_NONCE_BYTES)
        sealed = key.aead.encrypt(nonce, encode_position(position), head)
        return _text(head + nonce + sealed)

    def open(self, token: str) -> Position:
        """The position in ``token``; :class:`TokenError` for anything else."""
        if (
            not isinstance(token, str)
            or len(token) > MAX_TOKEN_LENGTH
            or _BASE64URL.fullmatch(token) is None
        ):
            raise TokenError("not a state token")
        raw = _canonical_bytes(token)
        if len(raw) <= _HEAD + _NONCE_BYTES or raw[0] != TOKEN_VERSION:
            raise TokenError("not a state token of this version")
        key = self._opening.get(raw[1:_HEAD])
        if key is None:
            raise TokenError("sealed with a key this server does not hold")
        try:
            data = key.aead.decrypt(raw[_HEAD : _HEAD + _NONCE_BYTES], raw[_HEAD + _NONCE_BYTES :],
                                    raw[:_HEAD])  # fmt: skip
        except InvalidTag:
            raise TokenError("altered or not sealed by this service") from None
        try:
            return decode_position(data)
        except SnapshotError as err:  # sealed by us, so only another engine version gets here
            raise TokenError(str(err)) from None


def _text(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _canonical_bytes(token: str) -> bytes:
    """The bytes of unpadded base64url text, which must be the one text of those bytes: the
    last character of a text of 4n+2 or 4n+3 characters has 4 or 2 bits that no byte uses, and
    with any of them set the text is another spelling of the same token (a store of spent or
    revoked tokens keyed on the text would miss it)."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except ValueError:  # binascii.Error: a length no base64 text has
        raise TokenError("not a state token") from None
    if _text(raw) != token:
        raise TokenError("not a state token (not in canonical base64url)")
    return raw
