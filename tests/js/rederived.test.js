// rederived.js: the rule facts the page still works out itself, checked against the engine's
// answers for every bundled example, until the position carries them.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Deck } from "../../arbiter/web/static/deck.js";
import {
  decidingRenuncio,
  declarationCards,
  outcomeStands,
  stockSizeAtDeal,
  trumpCall,
} from "../../arbiter/web/static/rederived.js";
import { examples, pageData, replayed, wordsIn } from "./support.js";

const DATA = await pageData();
const words = await wordsIn("en");
const ANSWERS = await Promise.all(
  examples().map(async ([name, log]) => [name, log, await replayed(log)]),
);

test("a declaration the referee offers rests on cards the seat to act holds", () => {
  let offered = 0;
  for (const [name, log, answer] of ANSWERS) {
    const deck = new Deck(DATA.cards, log.notation, words);
    for (const step of answer.deals.flatMap((deal) => deal.steps)) {
      for (const move of step.legal_moves.filter((m) => m.type !== "play")) {
        const cards = declarationCards(move, deck, step.trump);
        assert.ok(cards.length, `${name}: ${JSON.stringify(move)}`);
        for (const code of cards) {
          assert.ok(step.hands[step.turn].includes(code), `${name}: ${code}`);
        }
        offered += 1;
      }
    }
  }
  assert.ok(offered > 10, `only ${offered} declarations offered in the examples`);
});

test("the cards of each kind of declaration", () => {
  const deck = new Deck(DATA.cards, "spanish", words);
  assert.deepEqual(declarationCards({ type: "sing", suit: "C" }, deck, "O"), ["12C", "11C"]);
  assert.deepEqual(declarationCards({ type: "tute", of: "kings" }, deck, "O"), [
    "12O",
    "12C",
    "12E",
    "12B",
  ]);
  assert.deepEqual(declarationCards({ type: "tute", of: "horses" }, deck, "O"), [
    "11O",
    "11C",
    "11E",
    "11B",
  ]);
  assert.deepEqual(declarationCards({ type: "exchange" }, deck, "E"), ["7E"]);
  assert.deepEqual(declarationCards({ type: "play", card: "1O" }, deck, "E"), []);
  const french = new Deck(DATA.cards, "french", words);
  assert.deepEqual(declarationCards({ type: "sing", suit: "H" }, french, "D"), ["KH", "QH"]);
});

test("the stock as dealt: what the hands and the turned card leave of the pack", () => {
  const { cards_per_player: perPlayer } = DATA.rulesets["tute-2p"];
  const size = stockSizeAtDeal(DATA.packs["tute-2p"]["2"].length, perPlayer["2"], 2);
  for (const [name, log, answer] of ANSWERS.filter(([, log]) => log.ruleset === "tute-2p")) {
    log.deals.forEach((deal, index) => {
      if (deal.stock) {
        assert.equal(deal.stock.length, size + 1, `${name}: the stock and the turned card`);
      }
      assert.equal(answer.deals[index].steps[0].stock_left, size + 1, `${name} deal ${index + 1}`);
    });
  }
});

test("the call that made trump is the deal's first, of the suit that is trump", () => {
  let calls = 0;
  for (const [name, log, answer] of ANSWERS) {
    if (DATA.rulesets[log.ruleset].trump_from !== "call") continue;
    for (const deal of answer.deals) {
      const call = trumpCall(deal);
      assert.equal(call === null, deal.trump === null, name);
      if (call) {
        assert.equal(call.suit, deal.trump, name);
        calls += 1;
      }
    }
  }
  assert.ok(calls > 0);
});

test("the renuncio that decided a deal lost it for its side", () => {
  let decided = 0;
  for (const [name, , answer] of ANSWERS) {
    for (const deal of answer.deals) {
      const renuncio = decidingRenuncio(deal);
      assert.equal(renuncio === null, deal.violations.length === 0, name);
      if (renuncio && deal.outcome && deal.outcome.reason === "renuncio") {
        assert.ok(deal.outcome.losers.includes(renuncio.seat), name);
        decided += 1;
      }
    }
  }
  assert.ok(decided > 0);
});

test("the outcome stands unless a renuncio found in some case could come first or fail", () => {
  const deal = (...violations) => ({ violations });
  const renuncio = { seat: 1, event: 20 };
  const seat = (number, findings, cases = 4) => ({ seat: number, checked: true, cases, findings });
  const finding = (event, cases) => ({ event, cases });
  // the deciding renuncio stands in all of its seat's cases; the others find nothing earlier
  assert.equal(
    outcomeStands(deal(renuncio), [seat(1, [finding(20, 4)]), seat(2, [finding(30, 1)])]),
    "stands",
  );
  assert.equal(outcomeStands(deal(renuncio), [seat(1, [finding(20, 3)])]), "depends");
  assert.equal(outcomeStands(deal(renuncio), [seat(1, [])]), "depends");
  assert.equal(
    outcomeStands(deal(renuncio), [seat(1, [finding(20, 4)]), seat(2, [finding(12, 1)])]),
    "depends",
  );
  assert.equal(outcomeStands(deal(), [seat(2, [])]), "stands");
  assert.equal(outcomeStands(deal(), [seat(2, [finding(40, 1)])]), "depends");
  assert.equal(outcomeStands(deal(renuncio), [{ ...seat(2, []), checked: false }]), "open");
});
