"""The languages people read the referee in: Spanish (``es``) and English (``en``), declared once
for the catalogue and for everyone who looks words up (:mod:`arbiter.i18n` gives them on)."""

from __future__ import annotations

from typing import Final, Literal

Lang = Literal["en", "es"]
#: Every language, the default (English) first.
LANGS: Final[tuple[Lang, ...]] = ("en", "es")
