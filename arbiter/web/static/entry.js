// The cards of a deal as an organiser enters them at the table (the editor's model, no DOM):
// each seat's hand, the turned or shown card, the stock of tute-2p as far as it is known — or the
// whole deck in dealing order. A slot holds a card code, or UNKNOWN for a card nobody remembers
// (or, in the stock, one not seen yet). The pack comes from the server (the page data's `packs`);
// which cards may go where is all this checks — the referee checks the deal itself when play
// begins.

import { Deck } from "./deck.js";

export const UNKNOWN = "?";

/**
 * The facts of a table the entry needs, from the page data `data` (rulesets, packs, cards) and
 * a log's header ({ruleset, players, notation}): {ruleset, players, deck, pack (its codes)}.
 */
export function tableOf(data, header, words) {
  const ruleset = data.rulesets[header.ruleset];
  const players = header.players.length;
  const deck = new Deck(data.cards, header.notation, words);
  const pack = data.packs[ruleset.name][String(players)].map((n) => deck.code(n));
  return { ruleset, players, deck, pack };
}

/** Where the cards are entered, in the order the picker fills them. */
function targetsOf({ ruleset, players, pack }, mode) {
  const size = ruleset.cards_per_player[String(players)];
  if (mode === "deck") return [{ id: "deck", kind: "deck", size: pack.length }];
  const targets = Array.from({ length: players }, (_, seat) => ({
    id: `hand-${seat}`,
    kind: "hand",
    seat,
    size,
  }));
  if (ruleset.trump_from === "stock") {
    targets.push({ id: "turned", kind: "turned", size: 1 });
    targets.push({ id: "stock", kind: "stock", size: ruleset.stock_size[String(players)] - 1 });
  } else if (ruleset.trump_from === "dealer") {
    targets.push({ id: "trump", kind: "trump", size: 1 });
  }
  return targets;
}

export class DealEntry {
  /** `table`: tableOf's facts; `dealer`: the dealer's seat; `mode`: "hands" or "deck". */
  constructor(table, dealer, mode = "hands") {
    this.ruleset = table.ruleset;
    this.players = table.players;
    this.deck = table.deck;
    this.codes = table.pack;
    this.dealer = dealer;
    this.mode = mode;
    this.targets = targetsOf(table, mode);
    this.slots = Object.fromEntries(this.targets.map((target) => [target.id, []]));
    this.current = this.targets[0].id;
    /** Stock places drawn by a seat and left unknown on purpose (tute-2p, draws as they happen). */
    this.unknownDraws = new Set();
  }

  /** The cards of the ruleset's pack, in display order. */
  pack() {
    return this.codes;
  }

  target(id = this.current) {
    return this.targets.find((target) => target.id === id);
  }

  isFull(id) {
    return this.slots[id].length >= this.target(id).size;
  }

  /** Where a card is already, as {target, index}, or null. In 3p/4p the shown card also
   *  stays in the dealer's hand, so only the hand is its place. */
  where(code) {
    for (const target of this.targets) {
      if (target.kind === "trump") continue;
      const index = this.slots[target.id].indexOf(code);
      if (index >= 0) return { target, index };
    }
    return null;
  }

  /** The known cards still to place (candidates for every unknown slot). */
  unplaced() {
    return this.pack().filter((code) => !this.where(code));
  }

  /** Give `code` to the current target: {ok: true} or {refused: key, fields}. */
  give(code) {
    const target = this.target();
    if (target.kind === "trump") return this.showTrump(code);
    const found = this.where(code);
    if (found) return { refused: "entry.refused.twice", fields: { place: found } };
    if (!this.pack().includes(code)) return { refused: "entry.refused.not_in_pack", fields: {} };
    if (this.isFull(target.id)) {
      return { refused: "entry.refused.full", fields: { place: { target } } };
    }
    this.slots[target.id].push(code);
    this.advance();
    return { ok: true };
  }

  /** 3p/4p: the dealer's shown card is one of the dealer's cards. */
  showTrump(code) {
    const found = this.where(code);
    if (!found || found.target.id !== `hand-${this.dealer}`) {
      return { refused: "entry.refused.not_dealers", fields: {} };
    }
    this.slots.trump = [code];
    this.advance();
    return { ok: true };
  }

  /** Whether `code`, already in another hand, could move to the hand being filled. */
  canMoveHere(code) {
    const target = this.target();
    const found = this.where(code);
    return Boolean(
      found &&
      target.kind === "hand" &&
      found.target.kind === "hand" &&
      found.target.id !== target.id &&
      !this.isFull(target.id),
    );
  }

  /** Move `code` from the hand that holds it to the hand being filled (a card given to the
   *  wrong hand, found out later): {ok, from (the hand it left)} or a refusal. */
  moveHere(code) {
    if (!this.canMoveHere(code)) return { refused: "entry.refused.twice", fields: {} };
    const found = this.where(code);
    const to = this.current;
    this.slots[found.target.id].splice(found.index, 1);
    if (this.slots.trump?.[0] === code) this.slots.trump = []; // no longer the dealer's card
    this.slots[to].push(code);
    this.advance();
    return { ok: true, from: found.target };
  }

  /** A card nobody knows, in the current hand (or the next place of the stock). */
  giveUnknown() {
    const target = this.target();
    if (!this.allowsUnknown(target) || this.isFull(target.id)) {
      return { refused: "entry.refused.full", fields: { place: { target } } };
    }
    this.slots[target.id].push(UNKNOWN);
    this.advance();
    return { ok: true };
  }

  /** Every place left in the current hand or stock is unknown ("draws entered as they happen"). */
  restUnknown() {
    const target = this.target();
    if (!this.allowsUnknown(target)) {
      return { refused: "entry.refused.full", fields: { place: { target } } };
    }
    while (!this.isFull(target.id)) this.slots[target.id].push(UNKNOWN);
    this.advance();
    return { ok: true };
  }

  allowsUnknown(target) {
    return target.kind === "hand" || target.kind === "stock";
  }

  /** Take a card (or an unknown) out of a place; it becomes the place to fill next. */
  remove(id, index) {
    const removed = this.slots[id].splice(index, 1)[0];
    if (this.slots.trump && this.slots.trump[0] === removed) this.slots.trump = [];
    this.current = id;
    return removed;
  }

  choose(id) {
    if (this.slots[id]) this.current = id;
  }

  advance() {
    if (!this.isFull(this.current)) return;
    const next = this.targets.find((target) => !this.isFull(target.id));
    if (next) this.current = next.id;
  }

  /** What is missing, as words to fill: [{key, fields}]. */
  missing() {
    const out = [];
    for (const target of this.targets) {
      const left = target.size - this.slots[target.id].length;
      if (left > 0) out.push({ key: `entry.missing.${target.kind}`, target, count: left });
    }
    return out;
  }

  complete() {
    return this.missing().length === 0;
  }

  /** Every unknown slot: {id, index} in a fixed order (hands by seat, then the stock). */
  unknownSlots() {
    const out = [];
    for (const target of this.targets) {
      this.slots[target.id].forEach((code, index) => {
        if (code === UNKNOWN) out.push({ id: target.id, index, seat: target.seat ?? null });
      });
    }
    return out;
  }

  /** The cards that can be in the unknown slots: the pack less every card known. */
  candidates() {
    return this.unplaced();
  }

  /** One unknown place and one card nobody placed: that card is the place's, filled in.
   *  The place filled, {id, index, seat, code}, or null when nothing is certain so. */
  fillTheOnlyUnknown() {
    const slots = this.unknownSlots();
    const candidates = this.candidates();
    if (slots.length !== 1 || candidates.length !== 1) return null;
    this.name(slots[0], candidates[0]);
    return { ...slots[0], code: candidates[0] };
  }

  /**
   * The last hand fills itself: when every place but one hand is full and the cards nobody
   * placed are exactly as many as that hand still lacks, they are its cards. The hand filled
   * ({target, count}) or null.
   */
  fillLastHand() {
    if (this.mode !== "hands") return null;
    const open = this.targets.filter(
      (target) => target.kind !== "trump" && !this.isFull(target.id),
    );
    const [target] = open;
    if (open.length !== 1 || target.kind !== "hand") return null;
    const rest = this.unplaced();
    const left = target.size - this.slots[target.id].length;
    if (rest.length !== left) return null;
    this.slots[target.id].push(...rest);
    this.advance();
    return { target, count: rest.length };
  }

  /**
   * Cards typed as text ("1O 3O 12O 7C", as hand records are written; either notation, any
   * case; "?" an unknown card), given one by one to the places being filled. {given, refused:
   * [{text, result}]}: a word that is no card, or a card refused, is said and the rest goes on.
   */
  giveText(text) {
    const out = { given: 0, refused: [] };
    for (const word of text.split(/[\s,;]+/).filter(Boolean)) {
      const code = this.deck.canonAny(word);
      const result =
        word === UNKNOWN
          ? this.giveUnknown()
          : code
            ? this.give(code)
            : { refused: "entry.refused.not_in_pack", fields: {} };
      if (result.ok) out.given += 1;
      else out.refused.push({ text: code ?? word, result });
    }
    return out;
  }

  /** Name an unknown slot's card (it is known from now on). */
  name(slot, code) {
    if (this.slots[slot.id][slot.index] !== UNKNOWN || this.where(code)) return false;
    this.slots[slot.id][slot.index] = code;
    return true;
  }

  /**
   * The deal as a log's deal (docs/api.md), each unknown slot given the card `fill` names for it
   * (a Map from "id/index" to a code): the referee needs every card of the pack exactly once.
   */
  setup(fill = new Map()) {
    const card = (id, index) => {
      const code = this.slots[id][index];
      return code === UNKNOWN ? fill.get(`${id}/${index}`) : code;
    };
    const list = (id) => this.slots[id].map((_, index) => card(id, index));
    const deal = { dealer: this.dealer };
    // the cards the log fills in where nobody knows the card: marked, never passed off as known
    const filled = this.unknownSlots().map((slot) => fill.get(`${slot.id}/${slot.index}`));
    if (filled.length) deal.unknown = filled.filter(Boolean);
    if (this.mode === "deck") {
      deal.deck = list("deck");
      return deal;
    }
    deal.hands = this.targets
      .filter((target) => target.kind === "hand")
      .map((target) => list(target.id));
    if (this.ruleset.trump_from === "stock") deal.stock = [...list("stock"), ...list("turned")];
    if (this.ruleset.trump_from === "dealer") deal.trump_card = this.slots.trump[0];
    return deal;
  }

  /** One way to fill the unknown slots: the candidates in pack order, slot by slot. */
  representative() {
    const fill = new Map();
    const rest = this.candidates();
    this.unknownSlots().forEach((slot, i) => fill.set(`${slot.id}/${slot.index}`, rest[i]));
    return fill;
  }

  /** An entry holding a log's deal (its cards as given: hands with stock or trump card, or
   *  deck; the cards its `unknown` marks, docs/api.md, are unknown again). */
  static fromDeal(table, deal, dealer) {
    const entry = new DealEntry(table, dealer, Array.isArray(deal.deck) ? "deck" : "hands");
    const canon = (code) => entry.deck.canon(code);
    if (entry.mode === "deck") entry.slots.deck = deal.deck.map(canon);
    else {
      (deal.hands ?? []).forEach((hand, seat) => {
        if (entry.slots[`hand-${seat}`]) entry.slots[`hand-${seat}`] = hand.map(canon);
      });
      if (entry.ruleset.trump_from === "stock" && Array.isArray(deal.stock) && deal.stock.length) {
        entry.slots.stock = deal.stock.slice(0, -1).map(canon);
        entry.slots.turned = [canon(deal.stock[deal.stock.length - 1])];
      }
      if (entry.ruleset.trump_from === "dealer" && deal.trump_card) {
        entry.slots.trump = [canon(deal.trump_card)];
      }
    }
    entry.forget(unknownMarked(deal, entry.pack(), canon));
    entry.advance();
    return entry;
  }

  /** The places holding one of `codes` hold a card nobody knows (a log's `unknown`): in a
   *  hand or the stock, where a card may be unknown; never the dealer's shown card. */
  forget(codes) {
    codes.delete(this.slots.trump?.[0]);
    for (const target of this.targets) {
      if (!this.allowsUnknown(target)) continue;
      const slots = this.slots[target.id];
      slots.forEach((code, index) => {
        if (codes.has(code)) slots[index] = UNKNOWN;
      });
    }
  }
}

/** The cards a log's deal marks as unknown (its `unknown`: card codes of the pack, at most the
 *  pack's size; anything else is no mark and is left out), canonical by `canon`. */
export function unknownMarked(deal, pack, canon = (code) => code) {
  const marked = Array.isArray(deal.unknown) ? deal.unknown.slice(0, pack.length) : [];
  const codes = marked.filter((code) => typeof code === "string").map(canon);
  return new Set(codes.filter((code) => pack.includes(code)));
}
