// entry.js: the cards of a deal as an organiser enters them — places, refusals, unknown cards,
// and the deal they make.

import assert from "node:assert/strict";
import { test } from "node:test";

import { DealEntry, UNKNOWN, tableOf } from "../../arbiter/web/static/entry.js";
import { examples, example, pageData, wordsIn } from "./support.js";

const DATA = await pageData();
const words = await wordsIn("en");
const table = (ruleset, players, notation = "spanish") =>
  tableOf(
    DATA,
    { ruleset, players: Array.from({ length: players }, (_, i) => `p${i}`), notation },
    words,
  );
const shape = (entry) => entry.targets.map((t) => `${t.id}:${t.size}`);

test("the places to fill follow the ruleset: hands, shown card, turned card, stock", () => {
  assert.deepEqual(shape(new DealEntry(table("tute-4p", 4), 3)), [
    "hand-0:10",
    "hand-1:10",
    "hand-2:10",
    "hand-3:10",
    "trump:1",
  ]);
  // tute-2p: 40 cards, 8 each, the turned card, and the 23 left in the stock
  assert.deepEqual(shape(new DealEntry(table("tute-2p", 2), 1)), [
    "hand-0:8",
    "hand-1:8",
    "turned:1",
    "stock:23",
  ]);
  assert.deepEqual(shape(new DealEntry(table("tute-cabron", 3), 2)), [
    "hand-0:12",
    "hand-1:12",
    "hand-2:12",
  ]);
  assert.deepEqual(shape(new DealEntry(table("tute-3p", 3), 2, "deck")), ["deck:36"]);
  const french = new DealEntry(table("tute-gana-pierde", 5, "french"), 4).pack();
  assert.equal(french.length, 40);
  assert.ok(
    french.every((code) => /^[2-7AJQK][DHSC]$/.test(code)),
    french.join(" "),
  );
});

test("every example's deals, entered as given, give back the same cards", () => {
  for (const [name, log] of examples()) {
    const header = { ...log, notation: log.notation ?? "spanish" };
    const facts = tableOf(DATA, header, words);
    log.deals.forEach((deal, index) => {
      const entry = DealEntry.fromDeal(facts, deal, deal.dealer);
      assert.ok(entry.complete(), `${name} deal ${index + 1}: ${JSON.stringify(entry.missing())}`);
      const cards = { ...deal };
      delete cards.events;
      assert.deepEqual(entry.setup(), cards, `${name} deal ${index + 1}`);
    });
  }
});

test("the cards go to the place being filled, then on to the next place by themselves", () => {
  const entry = new DealEntry(table("tute-4p", 4), 3);
  const pack = entry.pack();
  for (const code of pack.slice(0, 10)) assert.deepEqual(entry.give(code), { ok: true });
  assert.equal(entry.current, "hand-1");
  entry.choose("hand-3");
  entry.give(pack[10]);
  assert.deepEqual(entry.slots["hand-3"], [pack[10]]);
  // a card taken out: its place is the one filled next
  entry.remove("hand-0", 4);
  assert.equal(entry.current, "hand-0");
  assert.equal(entry.slots["hand-0"].length, 9);
  entry.give(pack[4]);
  assert.deepEqual(entry.slots["hand-0"], [...pack.slice(0, 4), ...pack.slice(5, 10), pack[4]]);
});

test("a card given twice, a card not in the pack and a full place are refused", () => {
  const entry = new DealEntry(table("tute-3p", 3), 2);
  const [first, second] = entry.pack();
  entry.give(first);
  assert.deepEqual(entry.give(first), {
    refused: "entry.refused.twice",
    fields: { place: { target: entry.target("hand-0"), index: 0 } },
  });
  const missing = DATA.cards.spanish.codes.find((code) => !entry.pack().includes(code));
  assert.ok(missing, "tute-3p plays 36 of the 40 cards");
  assert.equal(entry.give(missing).refused, "entry.refused.not_in_pack");
  for (const code of entry.pack().slice(1, 12)) entry.give(code);
  entry.choose("hand-0");
  assert.deepEqual(entry.give(entry.pack()[20]), {
    refused: "entry.refused.full",
    fields: { place: { target: entry.target("hand-0") } },
  });
  assert.equal(entry.where(second).target.id, "hand-0");
});

test("the dealer's shown card is one of the dealer's own, and goes with it", () => {
  const entry = new DealEntry(table("tute-4p", 4), 2);
  const pack = entry.pack();
  pack.forEach((code) => entry.give(code));
  assert.equal(entry.current, "trump");
  assert.equal(entry.give(pack[0]).refused, "entry.refused.not_dealers"); // ana's, not the dealer's
  assert.deepEqual(entry.give(pack[25]), { ok: true }); // the dealer, seat 2, holds 20-29
  assert.ok(entry.complete());
  assert.equal(entry.setup().trump_card, pack[25]);
  entry.remove("hand-2", 5); // the shown card taken out of the hand: no shown card any more
  assert.deepEqual(entry.slots.trump, []);
});

test("cards nobody knows: in hands and the stock, never the turned card", () => {
  const entry = new DealEntry(table("tute-2p", 2), 1);
  const pack = entry.pack();
  for (const code of pack.slice(0, 7)) entry.give(code);
  assert.deepEqual(entry.giveUnknown(), { ok: true });
  for (const code of pack.slice(7, 15)) entry.give(code);
  assert.equal(entry.current, "turned");
  assert.equal(entry.giveUnknown().refused, "entry.refused.full");
  entry.give(pack[15]);
  assert.deepEqual(entry.restUnknown(), { ok: true }); // the stock: "as it happens"
  assert.ok(entry.complete());
  const slots = entry.unknownSlots();
  assert.equal(slots.length, 1 + 23);
  assert.deepEqual(slots[0], { id: "hand-0", index: 7, seat: 0 });
  assert.deepEqual(slots[1], { id: "stock", index: 0, seat: null });
  // the candidates: every card not placed
  assert.deepEqual(entry.candidates(), pack.slice(16));
  // filled in one way, the deal holds every card of the pack once
  const deal = entry.setup(entry.representative());
  const all = [...deal.hands.flat(), ...deal.stock];
  assert.deepEqual([...all].sort(), [...pack].sort());
  assert.equal(deal.stock.at(-1), pack[15], "the turned card is the stock's last");
});

test("an unknown card once named is known; a card placed elsewhere cannot be named", () => {
  const entry = new DealEntry(table("tute-3p", 3), 2, "deck");
  const pack = entry.pack();
  entry.give(pack[0]);
  entry.giveUnknown();
  assert.equal(entry.slots.deck[1], undefined, "a deck takes no unknown card");
  entry.choose("deck");
  const hands = DealEntry.fromDeal(table("tute-3p", 3), example("tute-3p.json").deals[0], 2);
  const given = hands.slots["hand-1"][3];
  hands.slots["hand-1"][3] = UNKNOWN;
  const slot = { id: "hand-1", index: 3 };
  assert.equal(hands.name(slot, hands.slots["hand-0"][0]), false);
  assert.equal(hands.name(slot, given), true);
  assert.equal(hands.slots["hand-1"][3], given);
  assert.equal(hands.name(slot, given), false, "named once");
});

test("what is missing, place by place", () => {
  const entry = new DealEntry(table("tute-2p", 2), 1);
  entry.give(entry.pack()[0]);
  assert.deepEqual(
    entry.missing().map((m) => [m.key, m.target.id, m.count]),
    [
      ["entry.missing.hand", "hand-0", 7],
      ["entry.missing.hand", "hand-1", 8],
      ["entry.missing.turned", "turned", 1],
      ["entry.missing.stock", "stock", 23],
    ],
  );
});

test("one unknown place and one card left: that card is filled in; more, nothing is", () => {
  const entry = DealEntry.fromDeal(table("tute-3p", 3), example("tute-3p.json").deals[0], 2);
  const card = entry.slots["hand-1"][4];
  entry.slots["hand-1"][4] = UNKNOWN;
  assert.deepEqual(entry.fillTheOnlyUnknown(), {
    id: "hand-1",
    index: 4,
    seat: 1,
    code: card,
  });
  assert.equal(entry.slots["hand-1"][4], card);
  entry.slots["hand-1"][4] = UNKNOWN;
  entry.slots["hand-0"][0] = UNKNOWN;
  assert.equal(entry.fillTheOnlyUnknown(), null, "two places: either card may be either");
  assert.deepEqual(entry.unknownSlots().length, 2);
});

test("a log's unknown cards are marked (`unknown`), and a log so marked opens them unknown", () => {
  const deal = example("tute-3p.json").deals[0];
  const entry = DealEntry.fromDeal(table("tute-3p", 3), deal, 2);
  const forgotten = [entry.slots["hand-1"][4], entry.slots["hand-0"][0]];
  entry.slots["hand-1"][4] = UNKNOWN;
  entry.slots["hand-0"][0] = UNKNOWN;
  const fill = entry.representative();
  const written = entry.setup(fill);
  assert.deepEqual(written.unknown.sort(), [...fill.values()].sort());
  assert.deepEqual([...fill.values()].sort(), forgotten.sort(), "the fillers are the cards left");
  const again = DealEntry.fromDeal(table("tute-3p", 3), written, 2);
  assert.deepEqual(again.slots, entry.slots, "the marked places are unknown again");
  // no mark: every card as given; a mark of no card of the pack, or of the shown card, is none
  assert.equal(DealEntry.fromDeal(table("tute-3p", 3), deal, 2).unknownSlots().length, 0);
  const odd = { ...deal, unknown: ["ZZ", 7, deal.trump_card] };
  assert.equal(DealEntry.fromDeal(table("tute-3p", 3), odd, 2).unknownSlots().length, 0);
  assert.equal(entry.setup(new Map()).unknown.length, 0, "unfilled places mark nothing");
});

test("cards typed as text, in either notation; the last hand fills itself with the rest", () => {
  const facts = table("tute-4p", 4);
  const entry = new DealEntry(facts, 3);
  const pack = entry.pack();
  const typed = entry.giveText(`${pack.slice(0, 9).join(" ")} ZZ, ${pack[0]}`);
  assert.equal(typed.given, 9);
  assert.deepEqual(
    typed.refused.map((r) => [r.text, r.result.refused]),
    [
      ["ZZ", "entry.refused.not_in_pack"],
      [pack[0], "entry.refused.twice"],
    ],
  );
  assert.equal(entry.giveText("ad").given, 0, "the as de oros is placed already");
  entry.giveText(pack.slice(9, 30).join(" "));
  assert.equal(entry.fillLastHand().count, 10);
  assert.deepEqual(entry.slots["hand-3"], pack.slice(30));
  assert.equal(entry.current, "trump");
  assert.equal(entry.fillLastHand(), null, "nothing left to fill");
  const french = new DealEntry(table("tute-4p", 4, "french"), 3);
  assert.equal(french.giveText("1O 12b").given, 2);
  assert.deepEqual(french.slots["hand-0"], ["AD", "KC"]);
});

test("a card in the wrong hand moves to the hand being filled; never into a full one", () => {
  const entry = new DealEntry(table("tute-4p", 4), 3);
  const pack = entry.pack();
  entry.give(pack[0]);
  entry.choose("hand-2");
  assert.ok(entry.canMoveHere(pack[0]));
  assert.deepEqual(entry.moveHere(pack[0]), { ok: true, from: entry.target("hand-0") });
  assert.deepEqual(entry.slots["hand-0"], []);
  assert.deepEqual(entry.slots["hand-2"], [pack[0]]);
  assert.ok(!entry.canMoveHere(pack[0]), "already here");
  assert.ok(!entry.canMoveHere(pack[1]), "given nowhere");
  assert.equal(entry.moveHere(pack[1]).refused, "entry.refused.twice");
});
