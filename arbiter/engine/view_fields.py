"""The position view's fields, declared once: name, type, JSON codec and docs line.

:class:`~arbiter.engine.position.PositionView` (its slots, constructor and comparison), the part
of its JSON that is one field to one key (:func:`arbiter.report.view_dict`) and the matching
fields of its marshmallow schema (``StepSchema``, so the OpenAPI document) all come from
:data:`VIEW_FIELDS`. The class and the JSON writer are written out as source by
``python -m devtools.records`` (mypyc compiles static source: tests/test_position_value.py checks
that what is written is what the table makes); the schema reads the table when it is imported.
Adding a field is a line here, its value in :meth:`Position.view`, and its words in docs/api.md
(and a ``default`` when :meth:`Position.from_view` does not read it, so that the view a given
position makes, :mod:`arbiter.engine.given`, need not name it).

A field's ``json`` is its key in the JSON, or None when the JSON writes it as part of something
else (the trick on the table, the moves, the history...) or not at all. Its ``codec`` says how
a value becomes JSON (:data:`CODECS`).
"""

from __future__ import annotations

from typing import Final, NamedTuple


class ViewField(NamedTuple):
    """One field of a record: of the position view, or of a record of :data:`RECORDS`."""

    name: str
    type: str
    json: str | None
    codec: str
    doc: str
    #: how the view compares it, when not by its value
    compared: str | None = None
    #: whether the JSON may hold null where the record has no value (the trick on the table's
    #: winner and points, in the deal's list of tricks)
    nullable: bool = False
    #: where a JSON-only record (a score line) takes the value from; ``r.<name>`` otherwise
    source: str | None = None
    #: a fact a position given as JSON states (read by :mod:`arbiter.engine.given`), rather
    #: than one that follows from the others and is checked against them
    fact: bool = False
    #: the view's value when none is given: for the fields that
    #: :meth:`~arbiter.engine.position.Position.from_view` does not read (worked out again by
    #: its own view), so that the view a given position makes need not name them
    default: str | None = None


#: A field of any record (the position view's are :class:`ViewField`\ s too).
Field = ViewField


class RecordTable(NamedTuple):
    """One answer record: its class (none for a record made only as JSON), its fields in the
    class's order, its JSON writer in arbiter/report.py and its schema in arbiter/api/schemas.py.
    ``json_order`` names the fields in the order the JSON writes them, when it is not the
    class's; ``params`` are the writer's parameters after the record (for a JSON-only record,
    all of them)."""

    cls: str
    doc: str
    fields: tuple[ViewField, ...]
    writer: str
    schema: str
    json_order: tuple[str, ...] = ()
    params: tuple[str, ...] = (
        "codes: tuple[str, ...]", "suits: tuple[str, ...]", "table: tuple[dict[str, Any], ...]",
    )  # fmt: skip


#: How a codec writes a value (``{v}``, the field's value) as JSON, with ``codes`` and
#: ``suits`` the notation's card and suit codes.
CODECS: Final[dict[str, str]] = {
    "value": "{v}",
    "seat?": "None if {v} < 0 else {v}",
    "suit?": "None if {v} < 0 else suits[{v}]",
    "card?": "None if {v} < 0 else codes[{v}]",
    "ints": "list({v})",
    "suits": "[suits[s] for s in range(4) if {v} >> s & 1]",
    "card": "codes[{v}]",
    "suit": "suits[{v}]",
    "cards": "[codes[c] for c in display_order({v})]",
    "plays": "_seat_cards({v}, table) if {v} else []",
    "enum": "_text({v})",
    "nested": "{v}",
    "nested-list": "{v}",
    "-": "",
}

VIEW_FIELDS: Final[tuple[ViewField, ...]] = (
    ViewField("header", "Header", None, "-", "The match's header: ruleset, options, players.",
              "self.header"),
    ViewField("standing", "MatchStanding", None, "-",
              "The match standing (a copy: the view does not change with the match).",
              "self.standing.to_fields()"),
    ViewField("deal", "int", None, "-", "The deal's index in the match."),
    ViewField("dealer", "int", None, "-", "The dealer's seat."),
    ViewField("mano", "int", None, "-", "The seat that led the deal's first trick."),
    ViewField("trump", "int", "trump", "suit?", "The trump suit; null while there is none.",
              fact=True),
    ViewField("turned", "Card", "turned", "card?", "The card that shows trump, if any.",
              fact=True),
    ViewField("hands", "tuple[Mask, ...]", None, "-", "Each seat's hand."),
    ViewField("stock_left", "int", None, "-", "Cards left in the stock."),
    ViewField("stock_known", "tuple[Card, ...]", None, "-",
              "The stock cards whose place everyone knows (the turned card, drawn last)."),
    ViewField("leader", "int", None, "-", "Who led the trick on the table."),
    ViewField("trick", "tuple[tuple[int, Card], ...]", None, "-",
              "The trick on the table: (seat, card) in order."),
    ViewField("trick_no", "int", None, "-", "Tricks completed so far."),
    ViewField("tricks_won", "tuple[int, ...]", "tricks_won", "ints", "Tricks won by each seat."),
    ViewField("card_points", "tuple[int, ...]", "card_points", "ints",
              "Card points of each seat's tricks."),
    ViewField("cante_points", "tuple[int, ...]", "cante_points", "ints",
              "Points of each seat's cantes or calls."),
    ViewField("totals", "tuple[int, ...]", "totals", "ints",
              "Each seat's deal total so far (with the last trick's ten once it is won).",
              default="()"),
    ViewField("cantes", "tuple[Cante, ...]", None, "-", "The cantes or calls made."),
    ViewField("open_cantes", "tuple[tuple[int, int], ...]", None, "-",
              "(seat, suit) of the cantes held and not sung (declared-cante rulesets).",
              default="()"),
    ViewField("sung", "int", "sung", "suits", "The suits sung so far."),
    ViewField("strict", "bool", "strict", "value",
              "Whether the obligations apply (false while a stock lasts)."),
    ViewField("turn", "int | None", "turn", "value", "The seat to act; null once over."),
    ViewField("correct", "Mask", None, "-", "The plays of the seat to act that are no renuncio.",
              default="0"),
    ViewField("declarations", "tuple[Move, ...]", None, "-",
              "The declarations open to the seat to act.", default="()"),
    ViewField("events", "int", "event", "value", "Events applied so far."),
    ViewField("over", "bool", "over", "value", "Whether the deal is over."),
    ViewField("outcome", "Outcome | None", None, "-", "The deal's outcome once it is over.",
              default="None"),
    ViewField("match_over", "bool", "match_over", "value", "Whether the match is over."),
    ViewField("led_suit", "int", None, "-", "The suit led to the trick on the table (-1: none)."),
    ViewField("win_seat", "int", None, "-", "The seat winning the trick on the table (-1: none)."),
    ViewField("win_card", "Card", None, "-", "The card winning the trick on the table (-1: none)."),
    ViewField("last_winner", "int", "last_winner", "seat?",
              "The last completed trick's winner, who leads; null before the first."),
    ViewField("cantes_this_lead", "int", "cantes_this_lead", "value",
              "Cantes declared on this lead."),
    ViewField("calls", "int", "calls", "value", "Calls made so far (calls only)."),
    ViewField("decisive", "Decisive | None", None, "-",
              "The event that decided the deal before its end (its first renuncio or tute)."),
    ViewField("tricks", "tuple[Trick, ...] | None", None, "-",
              "The tricks completed, with the cards drawn after each (None: not known)."),
    ViewField("captured", "tuple[Mask, ...] | None", None, "-",
              "The cards of each seat's tricks (None: not known)."),
    ViewField("exchanges", "tuple[Exchange, ...]", None, "-", "The exchanges made."),
    ViewField("renuncios", "tuple[Renuncio, ...]", None, "-", "The renuncios made."),
)  # fmt: skip

TRICK = RecordTable(
    "Trick",
    "A completed baza: who led, the plays in order, who won, its card points, the draws.",
    (
        Field("leader", "int", "leader", "value", "The seat that led it."),
        Field("plays", "Plays", "plays", "plays", "(seat, card) in the order they were played."),
        Field("winner", "int", "winner", "value", "The seat that won it; null while in play.",
              nullable=True),
        Field("points", "int", "points", "value", "Its card points; null while in play.",
              nullable=True),
        Field("draws", "Plays", "draws", "plays",
              "(seat, card) drawn from the stock after it, in order."),
    ),
    "_trick",
    "TrickSchema",
)  # fmt: skip

CANTE = RecordTable(
    "Cante",
    "A cante declared after trick ``trick``, or a call that fell in trick ``trick``.",
    (
        Field("seat", "int", "seat", "value", "The seat that sang or called."),
        Field("suit", "int", "suit", "suit", "The suit of its king and horse."),
        Field("points", "int", "points", "value", "Its points (20, or 40 in trumps)."),
        Field("trick", "int", "trick", "value",
              "The trick (from 0) it was declared after, or (a call) made in."),
    ),
    "_cante",
    "CanteSchema",
)  # fmt: skip

EXCHANGE = RecordTable(
    "Exchange",
    "The seven of trumps given for the turned card after trick ``trick`` (-1: before any).",
    (
        Field("seat", "int", "seat", "value", "The seat that exchanged."),
        Field("gave", "Card", "gave", "card", "The card it gave (the seven of trumps)."),
        Field("took", "Card", "took", "card", "The card it took (the turned card)."),
        Field("trick", "int", "trick", "value",
              "The trick (from 0) it was made after, as a cante's; -1 before the first."),
    ),
    "_exchange",
    "ExchangeSchema",
)  # fmt: skip

RENUNCIO = RecordTable(
    "Renuncio",
    "A play that broke ``obligation``; ``correct`` is the mask of the plays that were due;\n"
    "    ``led_suit`` and ``winning`` are the suit led and the card winning when it was played;\n"
    "    ``event`` and ``trick`` count from 0.",
    (
        Field("event", "int", "event", "value", "The event (from 0) of the play."),
        Field("seat", "int", "seat", "value", "The seat that played."),
        Field("card", "Card", "card", "card", "The card it played."),
        Field("obligation", "Obligation", "obligation", "enum", "The obligation it broke."),
        Field("correct", "Mask", "correct", "cards", "The plays that were due."),
        Field("trick", "int", "trick", "value", "The trick (from 0) it was played in."),
        Field("led_suit", "int", "led", "suit?", "The suit led when it was played."),
        Field("winning", "Card", "winning", "card?",
              "The card winning the trick when it was played."),
    ),
    "_position_renuncio",
    "PositionRenuncioSchema",
    json_order=("event", "seat", "card", "obligation", "trick", "correct", "led_suit", "winning"),
)  # fmt: skip

DECISIVE = RecordTable(
    "Decisive",
    "The first renuncio or tute of a deal, which decides it (docs/rules.md §7).",
    (
        Field("kind", "DecisiveKind", "kind", "enum", "What decided the deal."),
        Field("seat", "int", "seat", "value", "The seat that made it."),
        Field("event", "int", "event", "value", "The event (from 0) that made it."),
    ),
    "_decisive",
    "DecidedSchema",
)  # fmt: skip

SCORE_LINE = RecordTable(
    "",
    "A seat's line of a deal's scores.",
    (
        Field("seat", "int", "seat", "value", "The seat.", source="s"),
        Field("tricks", "int", "tricks", "value", "Tricks it won.", source="state.tricks_won[s]"),
        Field("card_points", "int", "card_points", "value", "Card points of its tricks.",
              source="state.card_points[s]"),
        Field("cantes", "int", "cantes", "value", "Points of its cantes or calls.",
              source="state.cante_points[s]"),
        Field("last_trick", "int", "last_trick", "value", "The last trick's ten, if it won it.",
              source="LAST_TRICK_BONUS if s == last else 0"),
        Field("total", "int", "total", "value", "Its total.", source="totals[s]"),
    ),
    "_score_line",
    "ScoreSchema",
    params=("state: DealState", "s: int", "last: int | None", "totals: list[int]"),
)  # fmt: skip

#: The body of ``POST /v1/replays``: a nested part's ``type`` is its schema (its writer is
#: :mod:`arbiter.report`'s, named by ``source``).
REPLAY_BODY = RecordTable(
    "",
    "The body of ``POST /v1/replays``.",
    (
        Field("state_id", "str | None", "state_id", "value",
              "The token of the position the log ends in (null without a sealer or when the "
              "log is invalid).", source="replay.state_id"),
        Field("status", "Status", "status", "enum", "Whether the log is complete, in progress or "
              "invalid.", source="replay.status"),
        Field("illegal", "IllegalSchema", "illegal", "nested",
              "The event that made the log invalid; null when none did.", nullable=True,
              source="_illegal(replay.match, words)"),
        Field("deals", "DealResultSchema", "deals", "nested-list", "Each deal of the log.",
              source="deals"),
        Field("match", "MatchSchema", "match", "nested", "The match standing.",
              source="match_dict(replay.match.header, replay.match.standing)"),
        Field("next", "NextSchema", "next", "nested",
              "Who acts next and their legal moves; null unless the log is in progress.",
              nullable=True, source="_next(replay.match, words)"),
    ),
    "_replay_body",
    "ReplaySchema",
    params=("replay: Replay", "words: Phrases", "deals: list[dict[str, Any]]"),
)  # fmt: skip

#: The answer records declared here, besides the position view.
RECORDS: Final[tuple[RecordTable, ...]] = (
    TRICK, CANTE, EXCHANGE, RENUNCIO, DECISIVE, SCORE_LINE, REPLAY_BODY,
)  # fmt: skip
