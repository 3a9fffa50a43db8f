"""The rules engine: cards, rulesets, deal state, obligations, scoring. Pure: no I/O.

Data flows one way: a log (``log.parse_log``) → a :class:`~arbiter.engine.match.MatchState`
advanced event by event (``match.advance``) → deal states, renuncios, outcomes, standings.
"""
