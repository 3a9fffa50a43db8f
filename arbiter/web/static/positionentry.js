// A deal started from the disputed trick (the editor's third way of entering the cards): the
// hands as they are now, the card that shows trump, the trick on the table so far and the tricks
// already played — what a position of docs/api.md ("The position") needs — instead of the whole
// deal. This module holds the entry (the same picker, typed text and sorting as DealEntry), the
// position JSON it makes, and the referee's faults in it read back to the places the person
// typed, in words. No rule is worked out here: the referee checks the position, and its faults
// come back by JSON pointer. No DOM.

import { DealEntry } from "./entry.js";

/** The earlier tricks and leaders a position start asks for, as the table form keeps them:
 *  {tricks (completed), leaders (seat per trick, the trick on the table last), stockLeft}. */
export function positionSettings(choice) {
  const given = choice.position ?? {};
  const tricks = Math.max(0, Number(given.tricks ?? 0));
  const leaders = Array.from({ length: tricks + 1 }, (_, i) => Number(given.leaders?.[i] ?? 0));
  return { tricks, leaders, stockLeft: Number(given.stockLeft ?? 0) };
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
  for (let i = 0; i < settings.tricks; i++) {
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
    this.current = this.targets[0].id;
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

/**
 * The position (docs/api.md, "The position") the entry describes: the header of `header`
 * (headerOf's: ruleset, players, options, notation), the dealer, each hand, trump and the card
 * showing it, the stock's size (rulesets with a stock), the trick on the table and the tricks
 * played. Nothing of the history left out is made up: no cantes, exchanges or renuncios.
 */
export function positionOf(header, entry) {
  const { players } = entry;
  const { leaders, tricks, stockLeft } = entry.settings;
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
    tricks: Array.from({ length: tricks }, (_, i) => ({
      leader: leaders[i],
      plays: playsFrom(leaders[i], entry.slots[`trick-${i}`], players),
    })),
  };
  if (header.options) position.options = header.options;
  if (header.notation) position.notation = header.notation;
  if (entry.ruleset.stock) position.stock_left = stockLeft;
  return position;
}

// --- the referee's faults, read back to the places --------------------------------------------

/** The place each field of a position is, by its first parts (`a`, `b`: the parts after the
 *  field's name). */
const PLACES = {
  hands: (a) => (a === undefined ? null : `hand-${a}`),
  turned: () => "shown",
  trump: () => "shown",
  stock_left: () => "stock-left",
  trick: (a, _b, settings) => (a === "leader" ? `lead-${settings.tricks}` : "table"),
  tricks: (a, b) => {
    if (a === undefined) return null;
    return b === "leader" ? `lead-${a}` : `trick-${a}`;
  },
};

/** The place of the entry a pointer under /position names: a target's id, a form field's id
 *  (`lead-<trick>`, `stock-left`), or null (the position as a whole). */
export function placeOfPointer(pointer, settings) {
  const parts = String(pointer ?? "")
    .split("/")
    .slice(1);
  if (parts[0] === "position") parts.shift();
  const [head, a, b] = parts;
  return Object.hasOwn(PLACES, head) ? PLACES[head](a, b, settings) : null;
}

/** The kinds of fault the referee names: its message's shape (the referee's words are English
 *  and name seats by number), the page's words for it, and their fields from the match
 *  (`found`) and `at` ({card, names, place(pointer)}). */
const FAULTS = [
  [
    /^seat (\d+) holds (\d+) cards at this point$/,
    "position.fault.hand_size",
    (found, at) => ({ name: at.names[Number(found[1])], count: found[2] }),
  ],
  [
    /^this card is already at (\/\S+)$/,
    "position.fault.twice",
    (found, at) => ({ card: at.card, place: at.place(found[1]) }),
  ],
  [/^not a card of this pack$/, "position.fault.not_in_pack", (_, at) => ({ card: at.card })],
  [
    /^seat (\d+) plays here$/,
    "position.fault.plays_here",
    (found, at) => ({ name: at.names[Number(found[1])] }),
  ],
  [
    /^the trick is led by seat (\d+)$/,
    "position.fault.led_by",
    (found, at) => ({ name: at.names[Number(found[1])] }),
  ],
  [/^the last trick's winner/, "position.fault.leader", () => ({})],
  [
    /^(\d+) cards are left after the draws$/,
    "position.fault.stock_left",
    (found) => ({ count: found[1] }),
  ],
  [/^missing: the card that shows trump$/, "position.fault.shown_missing", () => ({})],
  [/^trump is the suit of the turned card$/, "position.fault.trump", () => ({})],
  [/turns no card$/, "position.fault.no_shown", () => ({})],
];

/** The faults whose sentence begins with the card's name (capitalised, as a sentence). */
const CARD_FIRST = new Set(["position.fault.twice", "position.fault.not_in_pack"]);

/** The card a pointer under /position names in `position` (the JSON sent), or null. */
function cardAt(position, pointer) {
  let value = { position };
  for (const part of String(pointer).split("/").slice(1)) value = value?.[part];
  return typeof value === "string" ? value : null;
}

/** One fault in words: `error` ({pointer, message}) of a refusal of `position` (the JSON sent);
 *  `placeName(id)` names a place of the entry for people. */
export function faultSentence(words, error, position, names, entry, placeName) {
  const code = cardAt(position, error.pointer);
  const at = {
    card: code ? entry.deck.name(code) : "",
    names,
    place: (pointer) => {
      const place = placeOfPointer(pointer, entry.settings);
      return place ? placeName(place) : "";
    },
  };
  for (const [shape, key, fields] of FAULTS) {
    const found = shape.exec(String(error.message ?? ""));
    if (!found) continue;
    // a sentence may begin with a card («Dos de espadas ya está…»), never with a name changed
    const say = CARD_FIRST.has(key) ? words.sentence : words.t;
    return say.call(words, key, fields(found, at));
  }
  return words.t("position.fault.other");
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
