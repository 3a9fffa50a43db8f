"""Marshmallow schemas of the HTTP contract (docs/api.md), from which the OpenAPI document is made.

Request schemas are the contract's documentation; requests are checked once, by the engine's log
reader (:mod:`arbiter.engine.log`, through :mod:`arbiter.service`), which must read every field
anyway and reports each error by JSON pointer (``/deals/0/events/7/card``). Checking the log
twice would cost more than the replay itself; ``tests/test_schemathesis.py`` holds the reader to
these schemas. The closed sets (reasons, codes, obligations...) are the engine's enums.
"""

from __future__ import annotations

import ast
from enum import StrEnum
from typing import Any

from marshmallow import EXCLUDE, RAISE, Schema, fields, validate

from arbiter.contract import DEFAULT_LIMITS, MAX_DEALS, MAX_ID_LENGTH, MAX_TOKEN_LENGTH
from arbiter.engine.cards import NOTATIONS, RANKS
from arbiter.engine.errors import FaultCode
from arbiter.engine.match import Status
from arbiter.engine.moves import EVENT_TYPES, TUTE_OF
from arbiter.engine.obligations import Obligation
from arbiter.engine.position import Ruling
from arbiter.engine.records import DecisiveKind
from arbiter.engine.rulesets import (
    MATCH_COUNTERS,
    OPTION_SPECS,
    RULESETS,
    CanteStyle,
    OptionSpec,
    TrumpSource,
)
from arbiter.engine.scoring import Reason
from arbiter.engine.state import IllegalCode
from arbiter.engine.view_fields import (
    CANTE,
    DEAL_RESULT,
    DEAL_SCORES,
    DECISIVE,
    DECLARATION,
    EXCHANGE,
    MOVE,
    OPEN_CANTE,
    OUTCOME,
    OUTCOME_FACTS,
    RENUNCIO,
    REPLAY_BODY,
    SCORE_LINE,
    SCORES_BODY,
    SIDE,
    STEP,
    STEP_CANTE,
    STEP_SIDE,
    STEP_TRICK,
    TRICK,
    VIOLATION,
    RecordTable,
    ViewField,
)

# The contract's closed sets are the engine's enums, never restated.
REASONS = tuple(r.value for r in Reason)
ILLEGAL_CODES = tuple(c.value for c in IllegalCode)
FAULT_CODES = tuple(c.value for c in FaultCode)
OBLIGATIONS = tuple(o.value for o in Obligation)
STATUSES = tuple(s.value for s in Status)
RULINGS = tuple(r.value for r in Ruling)


def _doc(text: str, **extra: Any) -> dict[str, Any]:
    return {"description": text, **extra}


class ShallowList(fields.List):  # type: ignore[type-arg]
    """A list whose items are documented but checked later by the engine (see module doc)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        return value


CardCode = fields.String(
    metadata=_doc("A card code: rank then suit, e.g. 1O, 12C (docs/rules.md §1).")
)


# --- requests --------------------------------------------------------------------------------


class EventSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    type = fields.String(required=True, validate=validate.OneOf(EVENT_TYPES))
    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=4))
    card = fields.String(metadata=_doc("For play: the card played."))
    suit = fields.String(metadata=_doc("For sing: the suit of the cante (O, C, E, B)."))
    of = fields.String(validate=validate.OneOf(TUTE_OF), metadata=_doc("For tute."))


def _option_field(spec: OptionSpec) -> fields.Field:  # type: ignore[type-arg]
    """The marshmallow field of one option, from the engine's :class:`OptionSpec`."""
    if spec.type == "boolean":
        return fields.Boolean(truthy={True}, falsy={False})
    if spec.type == "ranks":
        return fields.List(
            fields.Integer(validate=validate.OneOf(RANKS)), validate=validate.Length(equal=2)
        )
    kind = fields.Integer if spec.type == "integer" else fields.String
    if spec.allowed is not None:
        return kind(validate=validate.OneOf(spec.allowed))
    return kind(validate=validate.Range(min=spec.minimum, max=spec.maximum))


class _StrictSchema(Schema):
    class Meta:
        unknown = RAISE


#: Overrides of the ruleset's options; which apply depends on the ruleset. Made from the
#: engine's option specs, never restated.
OptionsSchema = _StrictSchema.from_dict(
    {name: _option_field(spec) for name, spec in OPTION_SPECS.items()}, name="OptionsSchema"
)


class DealSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    dealer = fields.Integer(
        validate=validate.Range(min=0, max=4),
        metadata=_doc("Seat of the dealer; default: the seat after the previous deal's dealer."),
    )
    hands = ShallowList(
        fields.List(CardCode), metadata=_doc("One list of cards per seat, in seat order.")
    )
    stock = ShallowList(CardCode, metadata=_doc("tute-2p: draw order; last = turned card."))
    trump_card = fields.String(metadata=_doc("tute-3p/4p: the dealer's shown card."))
    deck = ShallowList(CardCode, metadata=_doc("The whole pack in dealing order (docs/api.md)."))
    events = ShallowList(fields.Nested(EventSchema), metadata=_doc("In the order they happened."))


def _ruleset_field(required: bool) -> fields.String:
    return fields.String(required=required, validate=validate.OneOf(tuple(RULESETS)))


def _players_field(required: bool) -> fields.List:  # type: ignore[type-arg]
    return fields.List(
        fields.String(validate=validate.Length(min=1)),
        required=required,
        metadata=_doc(
            "Distinct names in seat order (at most "
            f"{DEFAULT_LIMITS.max_name_length} characters by default)."
        ),
        validate=validate.Length(min=2, max=5),
    )


def _deals_field(required: bool) -> fields.List:  # type: ignore[type-arg]
    return fields.List(
        fields.Nested(DealSchema), required=required, validate=validate.Length(min=1, max=MAX_DEALS)
    )


class GameLogSchema(Schema):
    class Meta:
        unknown = EXCLUDE

    ruleset = _ruleset_field(required=True)
    options = fields.Nested(OptionsSchema)
    notation = fields.String(validate=validate.OneOf(("spanish", "french")))
    players = _players_field(required=True)
    deals = _deals_field(required=True)


class ReplayRequestSchema(GameLogSchema):
    """The body of ``POST /v1/replays``: a game log, and whether to show every step."""

    steps = fields.Boolean(
        truthy={True},
        falsy={False},
        metadata=_doc(
            "true: each deal of the answer also lists its positions, as dealt and after each "
            "event (docs/api.md, Steps). Default false."
        ),
    )


class BatchLogSchema(GameLogSchema):
    """One line of a batch (NDJSON): a game log, with an optional id."""

    id = fields.String(
        validate=validate.Length(min=1, max=MAX_ID_LENGTH),
        metadata=_doc("Echoed as the id of its answer line (default: the line number)."),
    )


class NewDealSchema(DealSchema):
    """The setup of the next deal, begun from a ``state_id`` whose deal has ended."""

    events = ShallowList(
        fields.Nested(EventSchema),
        validate=validate.Length(max=0),
        metadata=_doc("None: send the deal's moves one by one."),
    )


class ValidateRequestSchema(GameLogSchema):
    """A game log plus a move, or a ``state_id`` plus a move (and, to begin the next deal, its
    setup as ``deal``)."""

    state_id = fields.String(
        validate=validate.Length(min=1, max=MAX_TOKEN_LENGTH),
        metadata=_doc("A sealed position from an earlier answer (opaque, self-contained)."),
    )
    deal = fields.Nested(
        NewDealSchema, metadata=_doc("With state_id only: the next deal's setup, no events.")
    )
    ruleset = _ruleset_field(required=False)
    players = _players_field(required=False)
    deals = _deals_field(required=False)
    position = fields.Dict(
        metadata=_doc(
            "A whole position (docs/api.md, The position; the answer of /v1/positions), "
            "instead of a log or a state_id."
        )
    )
    move = fields.Nested(EventSchema, required=True)


class PositionRequestSchema(GameLogSchema):
    """A game log (and optionally the point of it: a deal and an event count), or a
    ``state_id``."""

    state_id = fields.String(
        validate=validate.Length(min=1, max=MAX_TOKEN_LENGTH),
        metadata=_doc("A sealed position from an earlier answer, instead of a log."),
    )
    ruleset = _ruleset_field(required=False)
    players = _players_field(required=False)
    deals = _deals_field(required=False)
    deal = fields.Integer(
        validate=validate.Range(min=0), metadata=_doc("The deal of the point (default: the last).")
    )
    event = fields.Integer(
        validate=validate.Range(min=0),
        metadata=_doc("Events of that deal applied at the point (default: all)."),
    )


# --- responses -------------------------------------------------------------------------------


class SeatCardSchema(Schema):
    seat = fields.Integer(required=True)
    card = fields.String(required=True)


#: The enums a record's field may hold, by the name its table gives their type.
_ENUMS: dict[str, type[StrEnum]] = {
    "Obligation": Obligation, "DecisiveKind": DecisiveKind, "Status": Status, "Reason": Reason,
}  # fmt: skip
#: The closed sets of the codecs that write a name from a tuple of names.
_NAMES: dict[str, tuple[str, ...]] = {"kind": EVENT_TYPES, "tute-of": TUTE_OF}


def _record_field(field: ViewField) -> fields.Field[Any]:
    """The schema of a field written one to one, by its codec (a record's or the view's)."""
    doc = _doc(field.doc)
    codec = field.codec
    # a key written only under a condition (``when``) may be absent
    required = field.when is None
    if codec == "ints":
        return fields.List(fields.Integer(), required=required, metadata=doc)
    if codec in ("suits", "cards", "card-list"):
        return fields.List(fields.String(), required=required, metadata=doc)
    if codec == "strs":
        return fields.List(
            fields.String(), required=required, allow_none=field.nullable, metadata=doc
        )
    if codec in ("masks", "masks?"):
        return fields.List(
            fields.List(fields.String()),
            required=required,
            allow_none=codec.endswith("?"),
            metadata=doc,
        )
    if codec == "plays":
        return fields.List(fields.Nested(SeatCardSchema), required=required, metadata=doc)
    if codec == "enum":
        values = tuple(m.value for m in _ENUMS[field.type])
        return fields.String(required=required, validate=validate.OneOf(values), metadata=doc)
    if codec in _NAMES:
        return fields.String(
            required=required, validate=validate.OneOf(_NAMES[codec]), metadata=doc
        )
    if codec == "const":  # the source is the one value, a string
        value = ast.literal_eval(field.source or "")
        return fields.String(required=required, validate=validate.OneOf((value,)), metadata=doc)
    if codec == "nested":  # the type is the part's schema
        return fields.Nested(field.type, required=required, allow_none=field.nullable, metadata=doc)
    if codec == "nested-list":
        return fields.List(
            fields.Nested(field.type), required=required, allow_none=field.nullable, metadata=doc
        )
    if field.type.startswith("str"):
        nullable = field.type.endswith("| None")
        return fields.String(required=required, allow_none=nullable, metadata=doc)
    if codec in ("suit?", "card?", "suit", "card"):
        nullable = codec.endswith("?")
        return fields.String(required=required, allow_none=nullable, metadata=doc)
    nullable = codec in ("seat?", "int?") or field.nullable or field.type.endswith("| None")
    kind = fields.Boolean if field.type == "bool" else fields.Integer
    return kind(required=required, allow_none=nullable, metadata=doc)


def _record_fields(record: RecordTable) -> dict[str, fields.Field[Any]]:
    """The schema fields of a record of arbiter/engine/view_fields.py, in the JSON's order."""
    by_name = {f.name: f for f in record.fields}
    written = (by_name[n] for n in record.json_order or tuple(by_name))
    return {f.json: _record_field(f) for f in written if f.json is not None}


def _record_schema(record: RecordTable) -> type[Schema]:
    """The schema of a record of arbiter/engine/view_fields.py, registered under its name (the
    tables name the schemas of nested parts)."""
    return type(record.schema, (Schema,), dict(_record_fields(record)))


TrickSchema = _record_schema(TRICK)
CanteSchema = _record_schema(CANTE)
ExchangeSchema = _record_schema(EXCHANGE)
PositionRenuncioSchema = _record_schema(RENUNCIO)
DecidedSchema = _record_schema(DECISIVE)
ScoreSchema = _record_schema(SCORE_LINE)
ViolationSchema = _record_schema(VIOLATION)
SideSchema = _record_schema(SIDE)
OutcomeSchema = _record_schema(OUTCOME)
OutcomeFactsSchema = _record_schema(OUTCOME_FACTS)
MoveSchema = _record_schema(MOVE)
DeclarationSchema = _record_schema(DECLARATION)
StepTrickSchema = _record_schema(STEP_TRICK)
StepCanteSchema = _record_schema(STEP_CANTE)
OpenCanteSchema = _record_schema(OPEN_CANTE)
StepSideSchema = _record_schema(STEP_SIDE)
DealScoresSchema = _record_schema(DEAL_SCORES)
DealResultSchema = _record_schema(DEAL_RESULT)


class StandingSchema(Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    deals_won = fields.Integer(required=True)
    loser_points = fields.Integer(required=True)
    tokens = fields.Integer(required=True)


class MatchSchema(Schema):
    standings = fields.List(fields.Nested(StandingSchema), required=True)
    over = fields.Boolean(required=True)
    winners = fields.List(fields.Integer(), required=True)
    losers = fields.List(fields.Integer(), required=True)


class NextSchema(Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    legal_moves = fields.List(fields.Nested(MoveSchema), required=True)


#: The fields of a step, from its field table (the view's written one to one, then its parts).
_StepFields = Schema.from_dict(_record_fields(STEP), name="StepFields")


class StepSchema(_StepFields):  # type: ignore[misc,valid-type]
    """A point of a deal as the table sees it: before the first event, or after one."""

    class Meta:
        register = True  # Schema.from_dict's classes are not: nested schemas name this one


class PositionSchema(StepSchema):
    """A whole position (docs/api.md, "The position"): a step with the header, the deal's place
    in the match, the renuncios made and the standing. ``POST /v1/positions`` answers one and
    ``POST /v1/moves/validate`` takes one."""

    ruleset = fields.String(required=True, validate=validate.OneOf(tuple(RULESETS)))
    options = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata=_doc("Every option of the ruleset, with the value in force."),
    )
    players = fields.List(fields.String(), required=True)
    notation = fields.String(required=True, validate=validate.OneOf(NOTATIONS))
    deal = fields.Integer(required=True, metadata=_doc("The deal's index in the log."))
    dealer = fields.Integer(required=True)
    mano = fields.Integer(required=True)
    renuncios = fields.List(
        fields.Nested(PositionRenuncioSchema),
        required=True,
        metadata=_doc("The deal's renuncios so far: the first decides it."),
    )
    match = fields.Nested(MatchSchema, required=True)


class ConformancePositionSchema(PositionSchema):
    """The ``position`` of a conformance question (protocol 2, docs/conformance.md): the position
    the question's log reaches, without its legal moves (what an engine is asked)."""

    class Meta:
        exclude = ("legal_moves",)


class PositionAnswerSchema(Schema):
    position = fields.Nested(PositionSchema, required=True)


class IllegalSchema(Schema):
    deal = fields.Integer(required=True)
    event = fields.Integer(required=True, allow_none=True)
    code = fields.String(required=True, validate=validate.OneOf(ILLEGAL_CODES))
    message = fields.String(required=True)


STATUS = validate.OneOf(STATUSES)


ReplaySchema = _record_schema(REPLAY_BODY)
ScoresSchema = _record_schema(SCORES_BODY)


class VerdictSchema(Schema):
    legal = fields.Boolean(required=True)
    verdict = fields.String(required=True, validate=validate.OneOf(RULINGS))
    obligation = fields.String(required=True, allow_none=True, validate=validate.OneOf(OBLIGATIONS))
    code = fields.String(required=True, allow_none=True, validate=validate.OneOf(ILLEGAL_CODES))
    message = fields.String(required=True)
    correct = fields.List(fields.String(), allow_none=True, metadata=_doc("renuncio only"))
    legal_moves = fields.List(fields.Nested(MoveSchema), required=True)
    state_id = fields.String(required=True, allow_none=True)
    position = fields.Nested(
        "PositionSchema",
        metadata=_doc("With a position given and an ok move: the position after it."),
    )
    after = fields.Nested(
        "PlayedOnSchema",
        metadata=_doc(
            "A renuncio judged on a position or a state_id: the position with the card played "
            "(the renuncio recorded) and its state_id."
        ),
    )


class PlayedOnSchema(Schema):
    position = fields.Nested("PositionSchema", required=True)
    state_id = fields.String(required=True, allow_none=True)


class OptionInfoSchema(Schema):
    type = fields.String(required=True)
    default = fields.Raw(required=True)
    allowed = fields.List(fields.Raw())
    minimum = fields.Integer()
    maximum = fields.Integer()
    description = fields.String(required=True)


class MatchSystemSchema(Schema):
    counter = fields.String(
        required=True,
        validate=validate.OneOf([c for c, _ in MATCH_COUNTERS.values()]),
        metadata=_doc("The field of match.standings that this ruleset's match system counts."),
    )
    target = fields.String(
        required=True, metadata=_doc("The option that says how many of them end the match.")
    )


class RulesetSchema(Schema):
    name = fields.String(required=True)
    title = fields.String(required=True)
    players = fields.List(fields.Integer(), required=True)
    cards_per_player = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    stock_size = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata=_doc("Cards of the stock as dealt, its turned card included (0: no stock)."),
    )
    description = fields.String(required=True)
    options = fields.Dict(
        keys=fields.String(), values=fields.Nested(OptionInfoSchema), required=True
    )
    pairs = fields.Boolean(
        required=True, metadata=_doc("Played in pairs: deals then carry per-side totals.")
    )
    stock = fields.Boolean(
        required=True, metadata=_doc("Cards left after dealing form a stock drawn after tricks.")
    )
    trump_from = fields.String(
        required=True,
        validate=validate.OneOf([t.value for t in TrumpSource]),
        metadata=_doc(
            "What fixes trump: the card turned under the stock, the dealer's last card "
            "(trump_card), or the first call in a trick (no trump before it)."
        ),
    )
    cantes = fields.String(
        required=True,
        validate=validate.OneOf([c.value for c in CanteStyle]),
        metadata=_doc("Cantes declared by the trick winner (sing events), or calls in the trick."),
    )
    match = fields.Nested(MatchSystemSchema, required=True)


class ProblemErrorSchema(Schema):
    pointer = fields.String(required=True)
    message = fields.String(
        required=True, metadata=_doc("In the request's language (Accept-Language: es or en).")
    )
    code = fields.String(
        validate=validate.OneOf(FAULT_CODES),
        metadata=_doc("What is wrong, stable across versions and languages (API answers)."),
    )
    params = fields.Dict(
        keys=fields.String(),
        metadata=_doc("The values the message names, by name (with code)."),
    )


class ProblemSchema(Schema):
    """RFC 9457 problem details."""

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    request_id = fields.String()
    errors = fields.List(
        fields.Nested(ProblemErrorSchema),
        metadata=_doc("422: the offending fields, at most 50 by default (ARBITER_MAX_ERRORS)."),
    )
    errors_omitted = fields.Integer(
        metadata=_doc("Errors found beyond those listed in errors (present when any).")
    )


class LineErrorSchema(Schema):
    """Why a line of a batch was not scored, or why the batch stopped (its last line)."""

    status = fields.Integer(
        required=True,
        metadata=_doc(
            "400 not JSON, 413 a line over the size limit, 422 not a log, an invalid id or an "
            "invalid log; on the last line of a batch that stopped: 413 over its limits, "
            "408 or 400 when the body stopped arriving or was unreadable."
        ),
    )
    title = fields.String(required=True)
    errors = fields.List(fields.Nested(ProblemErrorSchema), required=True)
    errors_omitted = fields.Integer(metadata=_doc("Errors beyond those listed (when any)."))


class BatchLineSchema(Schema):
    """One line of the answer to a batch: the body of /v1/scores with its id and source, or an
    error."""

    id = fields.Raw(
        required=True,
        metadata=_doc(
            "The log's id, or its line number when it has none; null on the line that ends a "
            "batch stopped early.",
            type=["string", "integer", "null"],
        ),
    )
    source = fields.Integer(required=True, metadata=_doc("The line number, from 1."))
    status = fields.String(validate=STATUS)
    illegal = fields.Nested(IllegalSchema, allow_none=True)
    deals = fields.List(fields.Nested(DealScoresSchema))
    match = fields.Nested(MatchSchema)
    error = fields.Nested(LineErrorSchema, metadata=_doc("Instead of the scores."))


class HealthSchema(Schema):
    status = fields.String(required=True)
    version = fields.String(required=True, metadata=_doc("The version of tute-arbiter serving."))
    build = fields.String(
        required=True,
        validate=validate.OneOf(("compiled", "pure")),
        metadata=_doc("Which build of the engine runs: compiled with mypyc, or pure Python."),
    )


class CacheStatusSchema(Schema):
    backend = fields.String(required=True)
    reachable = fields.Boolean(required=True)


class ReadySchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(("ready", "degraded")))
    cache = fields.Nested(CacheStatusSchema, required=True)
