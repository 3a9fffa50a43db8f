// entrytext.js: the editor's sentences about the cards being entered.

import assert from "node:assert/strict";
import { test } from "node:test";

import { DealEntry, tableOf } from "../../arbiter/web/static/entry.js";
import {
  missingText,
  nowText,
  placeName,
  refusalText,
} from "../../arbiter/web/static/entrytext.js";
import { pageData, wordsIn } from "./support.js";

const DATA = await pageData();
const en = await wordsIn("en");
const es = await wordsIn("es");
const NAMES = ["ana", "bea", "carlos", "dani"];
const entryOf = (ruleset, mode = "hands", dealer = 3, words = en) => {
  const header = { ruleset, players: NAMES.slice(0, ruleset === "tute-2p" ? 2 : 4) };
  return new DealEntry(tableOf(DATA, header, words), dealer, mode);
};

test("places by name: a hand, the stock, the deck and a card of it", () => {
  const entry = entryOf("tute-2p", "hands", 1);
  assert.equal(placeName(en, entry.target("hand-1"), NAMES), "bea's hand");
  assert.equal(placeName(es, entry.target("hand-1"), NAMES, 4), "la mano de bea");
  assert.equal(placeName(en, entry.target("stock"), NAMES), "the stock, in the order it is drawn");
  const deck = entryOf("tute-4p", "deck").target("deck");
  assert.equal(placeName(en, deck, NAMES), "the deck");
  assert.equal(placeName(en, deck, NAMES, 11), "card 12 of the deck");
});

test("what to do now follows the place being filled, to the end", () => {
  const entry = entryOf("tute-4p");
  assert.equal(nowText(en, entry, NAMES), "Now: ana's hand — tap its cards in the pack.");
  entry.pack().forEach((code) => entry.give(code));
  assert.equal(
    nowText(en, entry, NAMES).split("—")[0],
    "Now: the card dani showed (it fixes trump) ",
  );
  entry.give(entry.slots["hand-3"][0]);
  assert.equal(nowText(en, entry, NAMES), en.t("entry.now_done"));
  const deck = entryOf("tute-4p", "deck");
  deck
    .pack()
    .slice(0, 5)
    .forEach((code) => deck.give(code));
  assert.equal(nowText(en, deck, NAMES), "Now: card 6 of the deck — tap it in the pack.");
});

test("what is missing, every place in order, then that nothing is", () => {
  const entry = entryOf("tute-2p", "hands", 1);
  entry.give(entry.pack()[0]);
  assert.equal(
    missingText(en, entry, NAMES),
    "Still missing: ana's hand, 7 more; bea's hand, 8 more; the turned card; " +
      "the stock, in the order it is drawn, 23 more.",
  );
  entry
    .pack()
    .slice(1)
    .forEach((code) => entry.give(code));
  assert.equal(missingText(en, entry, NAMES), en.t("entry.complete"));
});

test("a refusal names the card and where it is, from a capital letter", () => {
  const entry = entryOf("tute-4p", "hands", 3, es);
  const first = "1O";
  entry.give(first);
  assert.equal(
    refusalText(es, entry, NAMES, entry.give(first), first),
    "As de oros ya está en la mano de ana: cada carta se da una sola vez.",
  );
  const deck = entryOf("tute-4p", "deck");
  deck
    .pack()
    .slice(0, 3)
    .forEach((code) => deck.give(code));
  const again = deck.pack()[2];
  // in the deck a card's place is its number there: "is already card 3 of the deck"
  assert.match(
    refusalText(en, deck, NAMES, deck.give(again), again),
    /is already card 3 of the deck:/,
  );
  entry.pack().forEach((code) => entry.give(code)); // the rest: the shown card is next
  // ana's card, given as the dealer's shown card
  assert.match(refusalText(es, entry, NAMES, entry.give(first), first), /^As de oros no es .*dani/);
});
