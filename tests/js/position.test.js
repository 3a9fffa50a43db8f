// The rule facts the page reads from the position (the steps of /v1/replays), not from rules of
// its own: the cards a declaration rests on, the stock as dealt, the call that made trump, the
// event that decided the deal; and the check of unknown cards reading that event.

import assert from "node:assert/strict";
import { test } from "node:test";

import { outcomeStands } from "../../arbiter/web/static/unknowns.js";
import { examples, pageData, replayed } from "./support.js";

const DATA = await pageData();
const ANSWERS = await Promise.all(
  examples().map(async ([name, log]) => [name, log, await replayed(log)]),
);

test("each declaration offered rests on cards the seat to act holds", () => {
  let offered = 0;
  for (const [name, , answer] of ANSWERS) {
    for (const step of answer.deals.flatMap((deal) => deal.steps)) {
      const declared = step.legal_moves.filter((m) => m.type !== "play");
      assert.deepEqual(
        step.declarations.map(({ cards: _cards, ...move }) => move),
        declared,
        name,
      );
      for (const { cards } of step.declarations) {
        assert.ok(cards.length, name);
        for (const code of cards) assert.ok(step.hands[step.turn].includes(code), name);
        offered += 1;
      }
    }
  }
  assert.ok(offered > 10, `only ${offered} declarations offered in the examples`);
});

test("the stock as dealt: the ruleset's stock_size, the turned card its last", () => {
  const size = DATA.rulesets["tute-2p"].stock_size["2"];
  for (const [name, log, answer] of ANSWERS.filter(([, log]) => log.ruleset === "tute-2p")) {
    log.deals.forEach((deal, index) => {
      if (deal.stock) assert.equal(deal.stock.length, size, name);
      assert.equal(answer.deals[index].steps[0].stock_left, size, `${name} deal ${index + 1}`);
    });
  }
});

test("the call that made trump is marked, of the suit that is trump", () => {
  let calls = 0;
  for (const [name, log, answer] of ANSWERS) {
    if (DATA.rulesets[log.ruleset].trump_from !== "call") continue;
    for (const deal of answer.deals) {
      const made = deal.steps.at(-1).cantes.filter((c) => c.made_trump);
      assert.equal(made.length, deal.trump === null ? 0 : 1, name);
      if (made.length) {
        assert.equal(made[0].suit, deal.trump, name);
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
      const last = deal.steps.at(-1);
      if (last.decided?.kind === "renuncio" && deal.outcome?.reason === "renuncio") {
        assert.ok(deal.outcome.losers.includes(last.decided.seat), name);
        assert.equal(deal.violations[0].event, last.decided.event, name);
        decided += 1;
      }
    }
  }
  assert.ok(decided > 0);
});

test("the outcome stands unless a renuncio found in some case could come first or fail", () => {
  const deal = (decided = null) => ({ steps: [{ decided }] });
  const renuncio = { kind: "renuncio", seat: 1, event: 20 };
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
  // a tute decided it: only a renuncio before the tute could have
  const tute = { kind: "tute", seat: 0, event: 16 };
  assert.equal(outcomeStands(deal(tute), [seat(1, [finding(20, 4)])]), "stands");
  assert.equal(outcomeStands(deal(tute), [seat(1, [finding(12, 1)])]), "depends");
});
