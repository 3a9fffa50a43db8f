// A deal started from the disputed trick (the editor's third way of entering the cards): the
// hands as they are now, the card that shows trump, the trick on the table so far and the tricks
// already played — by their cards, or only by who won each and each seat's card points so far —
// what a position of docs/api.md ("The position") needs, instead of the whole deal. This module
// holds the entry (the same picker, typed text and sorting as DealEntry), the position JSON it
// makes, and the referee's faults in it read back to the places the person typed, in the page's
// words for each fault's code. No rule is worked out here: the referee checks the position, and
// its faults come back by JSON pointer, code and params. No DOM.

import { DealEntry } from "./entry.js";

/** What is known of the tricks already played: their cards, or only who won each and the card
 *  points so far (docs/api.md: a trick given without its cards). */
export const KNOWN = ["cards", "points"];

/** The earlier tricks and leaders a position start asks for, as the table form keeps them:
 *  {tricks (completed), leaders (seat per trick, the trick on the table last), stockLeft,
 *  known ("cards" or "points"), cardPoints (per seat, with "points")}. With "points" the form
 *  asks who won each trick: the one who led the next (leaders[i + 1]). */
export function positionSettings(choice) {
  const given = choice.position ?? {};
  const tricks = Math.max(0, Number(given.tricks ?? 0));
  const leaders = Array.from({ length: tricks + 1 }, (_, i) => Number(given.leaders?.[i] ?? 0));
  const known = KNOWN.includes(given.known) ? given.known : "cards";
  const cardPoints = Array.isArray(given.cardPoints) ? given.cardPoints.map(Number) : [];
  return { tricks, leaders, stockLeft: Number(given.stockLeft ?? 0), known, cardPoints };
}

/** Whether the tricks already played are given by their cards (else by who won and points). */
export function cardsKnown(settings) {
  return settings.known !== "points";
}

/** The places of a position start, in the order the picker fills them: the trick on the
 *  table first (the dispute), each hand as it is now, the card that shows trump, the tricks
 *  played. `entry`: the entry whose slots the hands' sizes follow. */
function positionTargets({ ruleset, players }, settings, entry) {
  const dealt = ruleset.cards_per_player[String(players)];
  const targets = [{ id: "table", kind: "table", size: players - 1, free: true }];
  for (let seat = 0; seat < players; seat++) {
    targets.push({
      id: `hand-${seat}`,
      kind: "hand",
      seat,
      free: true, // the referee says what a hand must hold; these sizes only lead the taps
      get size() {
        // with a stock, the hands are filled again after each trick while it lasts
        if (ruleset.stock) return dealt;
        return dealt - entry.settings.tricks - (entry.playedToTable(seat) ? 1 : 0);
      },
    });
  }
  if (ruleset.trump_from !== "call") targets.push({ id: "shown", kind: "shown", size: 1 });
  // tricks known only by who won them and the points have no cards to give
  const cardTricks = cardsKnown(settings) ? settings.tricks : 0;
  for (let i = 0; i < cardTricks; i++) {
    targets.push({ id: `trick-${i}`, kind: "trick", index: i, size: players });
  }
  return targets;
}

export class PositionEntry extends DealEntry {
  /** `table`: tableOf's facts; `dealer`; `settings`: positionSettings of the table's choice. */
  constructor(table, dealer, settings) {
    super(table, dealer, "hands");
    this.mode = "position";
    this.settings = settings;
    this.targets = positionTargets(table, settings, this);
    this.slots = Object.fromEntries(this.targets.map((target) => [target.id, []]));
    this.keepTrickSlots();
    this.current = this.targets[0].id;
  }

  /** Every earlier trick keeps its place for cards, asked or not: the cards given to a trick
   *  stay when the tricks are given by their points instead, and come back with the cards. */
  keepTrickSlots() {
    for (let i = 0; i < this.settings.tricks; i++) this.slots[`trick-${i}`] ??= [];
  }

  /** The table form's answers changed (the same count of tricks: positionSettings of the
   *  choice): the places follow what is known of the tricks played, the cards stay. */
  retarget(settings) {
    this.settings = settings;
    // the entry has the table's ruleset and players
    this.targets = positionTargets(this, settings, this);
    for (const target of this.targets) this.slots[target.id] ??= [];
    this.keepTrickSlots();
    if (!this.target(this.current)) {
      this.current = (this.targets.find((t) => !this.isFull(t.id)) ?? this.targets[0]).id;
    }
  }

  /** Where a card is, {target, index}, or null: the card that shows trump is also where it
   *  lies now (a hand, the table, a trick), so only that place counts. */
  where(code) {
    for (const target of this.targets) {
      if (target.kind === "shown") continue;
      const index = this.slots[target.id].indexOf(code);
      if (index >= 0) return { target, index };
    }
    return null;
  }

  /** The card that shows trump may lie anywhere now: any card of the pack. */
  give(code) {
    if (this.target().kind !== "shown") return super.give(code);
    if (!this.pack().includes(code)) return { refused: "entry.refused.not_in_pack", fields: {} };
    this.slots.shown = [code];
    this.advance();
    return { ok: true };
  }

  /** A position holds real cards only: the referee needs each card it judges on. */
  allowsUnknown() {
    return false;
  }

  /** The last hand does not fill itself: the cards nobody placed were played or are unseen. */
  fillLastHand() {
    return null;
  }

  fillTheOnlyUnknown() {
    return null;
  }

  /** What is missing: the card that shows trump and each earlier trick's cards (a hand or the
   *  trick on the table may hold fewer than its places: the referee says what it must hold). */
  missing() {
    return this.targets
      .filter((target) => !target.free && this.slots[target.id].length < target.size)
      .map((target) => ({
        key: `entry.missing.${target.kind}`,
        target,
        count: target.size - this.slots[target.id].length,
      }));
  }

  /** Whether `seat` has played a card to the trick on the table (as entered so far). */
  playedToTable(seat) {
    const leader = this.settings.leaders[this.settings.tricks];
    const played = this.slots?.table?.length ?? 0;
    return (seat - leader + this.players) % this.players < played;
  }

  /** The next place to fill once this one is full: the next one after it not full. */
  advance() {
    if (!this.isFull(this.current)) return;
    const at = this.targets.findIndex((target) => target.id === this.current);
    const order = [...this.targets.slice(at + 1), ...this.targets.slice(0, at)];
    const next = order.find((target) => !this.isFull(target.id));
    if (next) this.current = next.id;
  }
}

/** The entry for a table `choice` (entry.js's DealEntry, or a position start). */
export function makeEntry(table, choice) {
  if (choice.mode === "position") {
    return new PositionEntry(table, choice.dealer, positionSettings(choice));
  }
  return new DealEntry(table, choice.dealer, choice.mode);
}

/** The plays of a trick led by `leader`: round the table from the leader, in the order given. */
function playsFrom(leader, cards, players) {
  return cards.map((card, i) => ({ seat: (leader + i) % players, card }));
}

/** The tricks already played as the position gives them: with their cards, or (known only by
 *  who won each) without them — `plays` and `draws` empty, the winner the one who led the next
 *  trick (leaders[i + 1], as the form asks it), the points not known (`card_points` says them). */
function tricksOf(entry) {
  const { players, settings } = entry;
  const { leaders, tricks } = settings;
  return Array.from({ length: tricks }, (_, i) =>
    cardsKnown(settings)
      ? { leader: leaders[i], plays: playsFrom(leaders[i], entry.slots[`trick-${i}`], players) }
      : { leader: leaders[i], plays: [], winner: leaders[i + 1], points: null, draws: [] },
  );
}

/**
 * The position (docs/api.md, "The position") the entry describes: the header of `header`
 * (headerOf's: ruleset, players, options, notation), the dealer, each hand, trump and the card
 * showing it, the stock's size (rulesets with a stock), the trick on the table and the tricks
 * played (with their cards, or who won each and each seat's card points so far). Nothing of the
 * history left out is made up: no cantes, exchanges or renuncios.
 */
export function positionOf(header, entry) {
  const { players } = entry;
  const { leaders, tricks, stockLeft, cardPoints } = entry.settings;
  const shown = entry.slots.shown?.[0] ?? null;
  const position = {
    ruleset: header.ruleset,
    players: header.players,
    dealer: entry.dealer,
    hands: Array.from({ length: players }, (_, seat) => entry.slots[`hand-${seat}`].slice()),
    // the card shown is the trump card: its suit is trump (the referee checks the two agree)
    trump: shown ? entry.deck.suitOf(shown) : null,
    turned: shown,
    trick: {
      leader: leaders[tricks],
      plays: playsFrom(leaders[tricks], entry.slots.table, players),
    },
    tricks: tricksOf(entry),
  };
  if (!cardsKnown(entry.settings) && tricks) {
    position.card_points = Array.from({ length: players }, (_, seat) => cardPoints[seat] ?? 0);
  }
  if (header.options) position.options = header.options;
  if (header.notation) position.notation = header.notation;
  if (entry.ruleset.stock) position.stock_left = stockLeft;
  return position;
}

/** The cards of `pack` not seen in `position` (in no hand, not on the table, in no trick given
 *  with its cards, not the card that shows trump while the stock lasts): those of the tricks
 *  given without their cards (or still in the stock), in the pack's order. */
export function unseenCards(pack, position) {
  const seen = new Set([...position.hands.flat(), ...position.trick.plays.map((p) => p.card)]);
  for (const trick of position.tricks) for (const play of trick.plays) seen.add(play.card);
  if (position.stock_left && position.turned) seen.add(position.turned);
  return pack.filter((code) => !seen.has(code));
}

// --- the referee's faults, read back to the places --------------------------------------------

/** The place each field of a position is, by its first parts (`a`, `b`: the parts after the
 *  field's name). A trick's winner is asked as who led the next one (`lead-<i + 1>`). */
const PLACES = {
  hands: (a) => (a === undefined ? null : `hand-${a}`),
  turned: () => "shown",
  trump: () => "shown",
  stock_left: () => "stock-left",
  card_points: (a) => (a === undefined ? "points" : `points-${a}`),
  trick: (a, _b, settings) => (a === "leader" ? `lead-${settings.tricks}` : "table"),
  tricks: (a, b) => {
    if (a === undefined) return "points"; // the tricks as a whole: what their points say
    if (b === "leader") return `lead-${a}`;
    if (b === "winner") return `lead-${Number(a) + 1}`;
    if (b === "points") return "points";
    return `trick-${a}`;
  },
};

/** The place of the entry a pointer under /position names: a target's id, a form field's id
 *  (`lead-<trick>`, `stock-left`, `points`, `points-<seat>`), or null (the position as a
 *  whole). */
export function placeOfPointer(pointer, settings) {
  const parts = String(pointer ?? "")
    .split("/")
    .slice(1);
  if (parts[0] === "position") parts.shift();
  const [head, a, b] = parts;
  return Object.hasOwn(PLACES, head) ? PLACES[head](a, b, settings) : null;
}

/** The page's words for each fault code of the referee (docs/api.md, `errors[].code`): the key,
 *  and the fields it takes from the fault's `params` and `at` ({name(seat), card(code),
 *  place(pointer), ruleset(name)}). A code not here (or whose params do not fit its words) is
 *  said as the general refusal: never the referee's English, never a code. */
const FAULTS = {
  missing: ["position.fault.missing", () => ({})],
  list_size: [
    "position.fault.list_size",
    (p) => (p.least === p.most ? null : { least: p.least, most: p.most }),
  ],
  list_size_exact: ["position.fault.list_size_exact", (p) => ({ most: p.most })],
  int_range: ["position.fault.int_range", (p) => ({ low: p.low, high: p.high })],
  card_code: ["position.fault.card_code", (p) => ({ code: p.code })],
  boolean: ["position.fault.boolean", () => ({})],
  must_be: [
    "position.fault.must_be",
    (p) => (typeof p.value === "number" ? { value: p.value } : null),
  ],
  does_not_follow: ["position.fault.does_not_follow", () => ({})],
  play_seat: ["position.fault.play_seat", (p, at) => ({ name: at.name(p.seat) })],
  draw_seat: ["position.fault.draw_seat", (p, at) => ({ name: at.name(p.seat) })],
  draw_count: ["position.fault.draw_count", (p) => ({ count: p.count })],
  trick_leader: ["position.fault.trick_leader", (p, at) => ({ name: at.name(p.seat) })],
  table_leader: ["position.fault.table_leader", () => ({})],
  no_stock: ["position.fault.no_stock", (p, at) => ({ ruleset: at.ruleset(p.ruleset) })],
  no_exchange: ["position.fault.no_exchange", (p, at) => ({ ruleset: at.ruleset(p.ruleset) })],
  no_turned_card: [
    "position.fault.no_turned_card",
    (p, at) => ({ ruleset: at.ruleset(p.ruleset) }),
  ],
  trump_by_call: ["position.fault.trump_by_call", () => ({})],
  turned_missing: ["position.fault.turned_missing", () => ({})],
  trump_of_turned: ["position.fault.trump_of_turned", () => ({})],
  exchange_before_trick: ["position.fault.exchange_before_trick", () => ({})],
  exchange_not_leader: [
    "position.fault.exchange_not_leader",
    (p, at) => ({ name: at.name(p.seat), given: at.name(p.given) }),
  ],
  exchange_no_stock: ["position.fault.exchange_no_stock", () => ({})],
  renuncio_not_played: ["position.fault.renuncio_not_played", () => ({})],
  renuncio_in_unknown_trick: ["position.fault.renuncio_in_unknown_trick", () => ({})],
  decided_by_renuncio: ["position.fault.decided_by_renuncio", () => ({})],
  renuncio_decides: ["position.fault.renuncio_decides", () => ({})],
  card_not_in_pack: ["position.fault.card_not_in_pack", (p, at) => ({ card: at.card(p.card) })],
  repeated: [
    "position.fault.repeated",
    (p, at) => ({ card: at.card(p.card), place: at.place(p.first) }),
  ],
  hand_size: ["position.fault.hand_size", (p, at) => ({ name: at.name(p.seat), count: p.count })],
  stock_size: ["position.fault.stock_size", (p) => ({ count: p.count })],
  points_below_known: [
    "position.fault.points_below_known",
    (p, at) => ({ name: at.name(p.seat), points: p.points }),
  ],
  points_not_known_tricks: [
    "position.fault.points_not_known_tricks",
    (p, at) => ({ name: at.name(p.seat), points: p.points }),
  ],
  unknown_points_too_many: ["position.fault.unknown_points_too_many", (p) => ({ most: p.most })],
  unknown_points_not_all: ["position.fault.unknown_points_not_all", (p) => ({ points: p.points })],
};

/** The faults whose sentence begins with the card's name (capitalised, as a sentence). */
const CARD_FIRST = new Set(["repeated", "card_not_in_pack"]);

/** The fault codes the page has words of its own for (the others are the general refusal). */
export const WORDED_FAULTS = Object.keys(FAULTS);

/** The card a pointer under /position names in `position` (the JSON sent), or null. */
function cardAt(position, pointer) {
  let value = { position };
  for (const part of String(pointer).split("/").slice(1)) value = value?.[part];
  return typeof value === "string" ? value : null;
}

/** The words of a fault's code: its key and fields, or null (said as the general refusal). A
 *  list of one size has words of its own. */
function faultWords(error, at) {
  const params = error.params && typeof error.params === "object" ? error.params : {};
  let code = String(error.code ?? "");
  if (code === "list_size" && params.least === params.most) code = "list_size_exact";
  if (!Object.hasOwn(FAULTS, code)) return null;
  const [key, fieldsOf] = FAULTS[code];
  const fields = fieldsOf(params, at);
  if (!fields || Object.values(fields).some((value) => value === undefined || value === "")) {
    return null; // a field the words need is not in the params: no sentence with a hole
  }
  return { code, key, fields };
}

/** One fault in words, from its `code` and `params`: `error` ({pointer, code, params}) of a
 *  refusal of `position` (the JSON sent); `placeName(id)` names a place of the entry for
 *  people. */
export function faultSentence(words, error, position, names, entry, placeName) {
  const at = {
    name: (seat) => (Number.isInteger(seat) ? names[seat] : undefined),
    card: (code) => {
      const card = typeof code === "string" ? code : cardAt(position, error.pointer);
      if (!card) return undefined;
      return entry.deck.face(card) ? entry.deck.name(card) : card; // a card of another pack
    },
    place: (pointer) => {
      const place = placeOfPointer(pointer, entry.settings);
      return place ? placeName(place) : undefined;
    },
    ruleset: (name) => (typeof name === "string" ? words.t(`ruleset.${name}`) : undefined),
  };
  const said = faultWords(error, at);
  if (!said) return words.t("position.fault.other");
  // a sentence may begin with a card («Dos de espadas ya está…»), never with a name changed
  const say = CARD_FIRST.has(said.code) ? words.sentence : words.t;
  return say.call(words, said.key, said.fields);
}

/**
 * The faults of a refusal (its problem+json `body`) of the position `position`, by place:
 * {places: Map of a place's id to its sentences, general: sentences of the position as a
 * whole}. No pointer and no code is said: each fault is a sentence, beside its place.
 */
export function faultsByPlace(words, body, position, names, entry, placeName) {
  const places = new Map();
  const general = [];
  for (const error of Array.isArray(body?.errors) ? body.errors : []) {
    const text = faultSentence(words, error, position, names, entry, placeName);
    const place = placeOfPointer(error.pointer, entry.settings);
    if (place === null) general.push(text);
    else places.set(place, [...(places.get(place) ?? []), text]);
  }
  if (!places.size && !general.length) general.push(words.t("position.fault.other"));
  return { places, general };
}
