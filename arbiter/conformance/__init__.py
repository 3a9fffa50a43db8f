"""A conformance kit for Tute engines: published vectors and a checker (docs/conformance.md).

Other engines — online tables, bots — check that they agree with the referee without calling
it. Two halves:

* :mod:`arbiter.conformance.kit` — what a user of ``arbiter conformance check`` runs: the
  vectors' format and the protocol, the engine under test (a command speaking JSON lines, or an
  HTTP service of docs/api.md), the grading of its answers and the report, which explains each
  failure in the referee's words;
* :mod:`arbiter.conformance.vectors` — the search behind ``arbiter conformance export``, which
  finds the published set (game logs and what the referee answers about them: the legal moves,
  a verdict on a move, the replay, or a refusal) in random and hand-built games.

Both read the game through the engine's one model (its position view, its cards, its rulesets'
data); none of the rules is written down again here. The published set is in ``conformance/``
(:data:`~arbiter.conformance.kit.vector_files.PUBLISHED`).
"""

from arbiter.conformance.kit.positions import Judge, position_of_log
from arbiter.conformance.kit.protocol import KIT_VERSION, PROTOCOL_VERSION, Ask, Vector
from arbiter.conformance.kit.referee_answers import refusal, replay_fields, verdict_fields
from arbiter.conformance.kit.vector_files import load

__all__ = [
    "KIT_VERSION",
    "PROTOCOL_VERSION",
    "Ask",
    "Judge",
    "Vector",
    "load",
    "position_of_log",
    "refusal",
    "replay_fields",
    "verdict_fields",
]
