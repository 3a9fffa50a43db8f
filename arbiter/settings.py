"""Service configuration: one frozen object read from the environment (``ARBITER_*``).

Nothing else in the package reads the environment, so tests build a :class:`Settings` with the
values they need and pass it to :func:`arbiter.api.create_app`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, not {raw!r}") from None


@dataclass(frozen=True, slots=True)
class Settings:
    """Limits and service options; every field has an ``ARBITER_<NAME>`` variable."""

    #: largest request body accepted (413 beyond)
    max_body_bytes: int = 1024 * 1024
    #: most deals in one log (422 beyond)
    max_deals: int = 100
    #: longest player name (422 beyond)
    max_name_length: int = 64
    #: log level of the service's own logger
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        default = cls()
        return cls(
            max_body_bytes=_int(env, "ARBITER_MAX_BODY_BYTES", default.max_body_bytes),
            max_deals=_int(env, "ARBITER_MAX_DEALS", default.max_deals),
            max_name_length=_int(env, "ARBITER_MAX_NAME_LENGTH", default.max_name_length),
            log_level=env.get("ARBITER_LOG_LEVEL", default.log_level).upper(),
        )

    def with_(self, **changes: Any) -> Settings:
        return replace(self, **changes)
