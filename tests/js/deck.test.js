// deck.js: the cards of a notation as the server describes them — codes, faces, names.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Deck } from "../../arbiter/web/static/deck.js";
import { pageData, wordsIn } from "./support.js";

const { cards } = await pageData();
const es = await wordsIn("es");

test("forty cards, each code once, each its own canonical code", () => {
  for (const notation of ["spanish", "french"]) {
    const deck = new Deck(cards, notation, es);
    const codes = Array.from({ length: 40 }, (_, n) => deck.code(n));
    assert.equal(new Set(codes).size, 40, notation);
    for (const code of codes) {
      assert.equal(deck.canon(code), code);
      assert.equal(deck.canon(code.toLowerCase()), code, `${code} in lower case`);
      assert.ok(deck.face(code), code);
    }
  }
});

test("the French notation takes the suit symbols too", () => {
  const deck = new Deck(cards, "french", es);
  assert.equal(deck.canon("Q♥"), "QH");
  assert.equal(deck.canon("a♦"), "AD");
  assert.equal(deck.canon("nonsense"), "nonsense"); // no card: written back as given
  assert.equal(new Deck(cards, "klingon", es).notation, "spanish");
});

test("a card's rank and suit find it, in either notation", () => {
  const spanish = new Deck(cards, "spanish", es);
  const french = new Deck(cards, "french", es);
  assert.equal(spanish.codeOf(12, "O"), "12O");
  assert.equal(spanish.codeOf(1, "b"), "1B");
  assert.equal(french.codeOf(11, "H"), "QH"); // the caballo's place: the queen
  assert.equal(french.codeOf(7, "S"), "7S");
  for (const deck of [spanish, french]) {
    for (let n = 0; n < 40; n++) {
      const code = deck.code(n);
      const [rank] = deck.face(code);
      assert.equal(deck.codeOf(rank, deck.suitOf(code)), code);
    }
  }
  assert.deepEqual(spanish.suits(), ["O", "C", "E", "B"]);
  assert.equal(spanish.suitOf("13O"), null);
});

test("names and labels in the page's language, which may change in place", async () => {
  const words = await wordsIn("es");
  const deck = new Deck(cards, "spanish", words);
  assert.equal(deck.name("10O"), "la sota de oros");
  assert.equal(deck.label("10O"), "sota de oros");
  assert.equal(deck.suitName("e"), "espadas");
  words.lang = "en";
  assert.equal(deck.name("10O"), "the jack of oros");
  assert.equal(new Deck(cards, "french", words).suitName("H"), "hearts");
  assert.equal(deck.name("99X"), "99X"); // a code that is no card is shown as given
  assert.equal(deck.suitName("X"), "X");
});
