"""A conformance kit for Tute engines: published vectors and a checker (docs/conformance.md).

Other engines — online tables, bots — check that they agree with the referee without calling
it: ``arbiter conformance export`` writes vectors (a game log and what the referee answers about
it: the legal moves, a verdict on a move, the replay, or a refusal), found by searching random
and hand-built games; ``arbiter conformance check`` puts them to an engine run as a command
speaking JSON lines, or to an HTTP service of docs/api.md, and explains each failure in the
referee's words. The published set is in ``conformance/`` (:data:`vectors.PUBLISHED`).

The kit uses the referee's public API only: ``arbiter.replay``, ``arbiter.validate``, their
answers' ``to_dict()``, the rulesets' data and the engine's enums.
"""

from arbiter.conformance.answers import refusal, replay_fields, verdict_fields
from arbiter.conformance.vectors import KIT_VERSION, Ask, Vector, load

__all__ = ["KIT_VERSION", "Ask", "Vector", "load", "refusal", "replay_fields", "verdict_fields"]
