"""A conformance kit for Tute engines: published vectors and a checker (docs/conformance.md).

Other engines — online tables, bots — check that they agree with the referee without calling
it. :mod:`arbiter.conformance.kit` is what a user of ``arbiter conformance check`` and ``play``
runs: the vectors' format and the protocol, the engine under test (a command speaking JSON
lines, or an HTTP service of docs/api.md), the grading of its answers and the report, which
explains each failure in the referee's words. It reads the game through the engine's one model
(its position view, its cards, its rulesets' data); none of the rules is written down again
here.

The published set is in ``conformance/`` of the repository, installed with the package
(:data:`~arbiter.conformance.kit.vector_files.PUBLISHED`): game logs and what the referee
answers about them (the legal moves, a verdict on a move, the replay, or a refusal). The search
that finds them is the project's tool, not the package's: ``devtools/vectors``.
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
