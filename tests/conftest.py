"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# The Redis fixtures, for every module: one throwaway redis-server per session (never a Redis
# the suite did not start, unless ARBITER_TEST_REDIS_URL names one).
from tests.redis_support import private_redis, redis_db, session_redis

__all__ = ["private_redis", "redis_db", "session_redis"]

# CI runs more examples than a developer's quick loop; both are deterministic per profile.
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
