"""Read-only dicts that many answers share: the ``{"seat", "card"}`` of a trick's plays.

A replay's body names 40 or more (seat, card) pairs a deal; made per answer, each is a dict to
allocate and free again (copying a prebuilt one cost a tute-4p deal's ``to_dict`` about 20K of
its 95K instructions, compiled). :class:`FrozenDict` lets one dict per seat and card serve every
answer: JSON encoders (orjson, ``json``) and comparisons see a plain dict, and any attempt to
change one raises instead of changing every later answer. :func:`thawed` gives an answer whose
reader may edit it (a position, which clients change and send back) with plain dicts.

Not compiled by mypyc (which cannot subclass ``dict``): :mod:`arbiter.report` imports it.
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn


class FrozenDict(dict[str, Any]):
    """A dict that refuses every change; its copies (``dict(x)``, ``copy``, ``deepcopy``,
    pickle) are plain dicts."""

    __slots__ = ()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "this dict is shared by every answer of the referee: change a copy (dict(d))"
        )

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return (dict, (dict(self),))


def thawed(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (JSON-shaped: dicts, lists, scalars) with every dict and list in it a fresh,
    plain one: nothing of it shared with another answer."""
    return {key: _thawed(value) for key, value in body.items()}


def _thawed(value: Any) -> Any:
    if isinstance(value, dict):
        return thawed(value)
    if isinstance(value, list):
        return [_thawed(item) for item in value]
    return value
