// unknowns.js: what the ruling depends on when some cards are not known — the cases asked,
// the findings read from their answers, the cards that explain a renuncio.

import assert from "node:assert/strict";
import { test } from "node:test";

import { DealEntry, UNKNOWN, tableOf } from "../../arbiter/web/static/entry.js";
import {
  CHECK_LIMIT,
  checkUnknowns,
  findingsOf,
  triggerCards,
} from "../../arbiter/web/static/unknowns.js";
import { appFetch, example, pageData, replayed, wordsIn } from "./support.js";

const DATA = await pageData();
const words = await wordsIn("en");

// --- which cards explain a renuncio ------------------------------------------------------------

const cases = (...pairs) =>
  pairs.map(([holding, has]) => ({ holding, events: new Set(has ? [7] : []) }));

// every case holding one of them has the renuncio, and every case with it holds one
test("the cards that make a renuncio stand", () => {
  // it stands if and only if the seat held the as (a): a alone explains it
  const onlyA = cases([["a", "b"], true], [["a", "c"], true], [["b", "c"], false]);
  assert.deepEqual(triggerCards(onlyA, 7), ["a"]);
  // b was held in a case with the renuncio, but also in one without it: b is no trigger
  assert.ok(!triggerCards(onlyA, 7).includes("b"));
  // one card (c) or both others together: no set of cards explains that — none is named
  const noSet = cases(
    [["a", "b"], true],
    [["a", "c"], true],
    [["a", "d"], false],
    [["b", "c"], true],
    [["b", "d"], false],
    [["c", "d"], true],
  );
  assert.equal(triggerCards(noSet, 7), null);
  // a renuncio in no case: no card makes it
  assert.deepEqual(triggerCards(cases([["a"], false], [["b"], false]), 7), []);
  // in every case: every card "makes" it (the page says it stands whatever the card)
  assert.deepEqual(triggerCards(cases([["a"], true], [["b"], true]), 7), ["a", "b"]);
});

// --- the findings of a seat ------------------------------------------------------------------

const answer = (...violations) => ({ status: "complete", deals: [{}, { violations }] });
const renuncio = (seat, event, obligation = "asistir", trick = 2) => ({
  seat,
  event,
  obligation,
  trick,
});

test("a seat's findings: the cases of each renuncio, its obligations, its cards", () => {
  const read = findingsOf(1, [
    { holding: ["1O"], answer: answer(renuncio(1, 9, "fallar"), renuncio(0, 3)) },
    { holding: ["3O"], answer: answer(renuncio(1, 9, "asistir"), renuncio(1, 4, "montar", 1)) },
    { holding: ["7E"], answer: answer() },
    { holding: ["5B"], answer: { ...answer(renuncio(1, 9)), status: "invalid" } },
    { holding: ["6B"], answer: { id: "4", error: { status: 400 } } },
    { holding: ["4B"], answer: null },
  ]);
  assert.equal(read.cases, 3, "the refused, failed and missing answers are no case");
  assert.equal(read.inconsistent, 3);
  assert.deepEqual(
    read.findings.map((f) => [f.event, f.trick, [...f.obligations].sort(), f.cases, f.trigger]),
    [
      [4, 1, ["montar"], 1, ["3O"]],
      [9, 2, ["asistir", "fallar"], 2, ["1O", "3O"]],
    ],
  );
});

// --- the check, case by case ------------------------------------------------------------------

/** A tute-4p deal with cards nobody knows: `unknown` {seat: how many}, the first cards of
 *  the seat's hand entered as unknown. */
function stateWith(unknown, deal = { tricks: [], violations: [], steps: [{ decided: null }] }) {
  const log = example("tute-4p-renuncio.json");
  const given = log.deals[0];
  const facts = tableOf(DATA, log, words);
  const entry = DealEntry.fromDeal(facts, given, given.dealer);
  for (const [seat, count] of Object.entries(unknown)) {
    entry.slots[`hand-${seat}`].fill(UNKNOWN, 0, count);
  }
  const header = { ruleset: log.ruleset, players: log.players };
  return {
    entry,
    deal,
    log: (fill) => ({ ...header, deals: [{ ...entry.setup(fill), events: given.events }] }),
  };
}

test("each seat is asked about every hand it may have held, the rest to the others", async () => {
  const hands = example("tute-4p-renuncio.json").deals[0].hands;
  const state = stateWith({ 1: 2, 3: 1 });
  const candidates = state.entry.candidates();
  const [a, b, c] = [hands[1][0], hands[1][1], hands[3][0]];
  assert.deepEqual([...candidates].sort(), [a, b, c].sort());
  let asked = [];
  const check = await checkUnknowns(state, async (logs) => {
    asked = logs;
    return logs.map(() => answer());
  });
  // seat 1: 3 choose 2 hands; seat 3: 3 hands of one card
  assert.equal(asked.length, 3 + 3);
  for (const log of asked) {
    const cards = [...log.deals[0].hands.flat()];
    assert.equal(new Set(cards).size, 40, "every card once in every case");
  }
  const seat1 = asked
    .slice(0, 3)
    .map((log) => log.deals[0].hands[1].filter((c) => candidates.includes(c)).sort());
  const byPack = (codes) => [...codes].sort();
  assert.deepEqual(seat1, [
    byPack([candidates[0], candidates[1]]),
    byPack([candidates[0], candidates[2]]),
    byPack([candidates[1], candidates[2]]),
  ]);
  assert.deepEqual(
    check.seats.map((s) => [s.seat, s.unknown, s.cases, s.checked]),
    [
      [1, 2, 3, true],
      [3, 1, 3, true],
    ],
  );
  assert.equal(check.outcome, "stands");
});

// a seat with more hands than the check may ask about is not checked: the outcome stays open
test("the check's bound on the cases asked", async () => {
  const many = stateWith({ 0: 6, 2: 4 });
  let count = 0;
  await checkUnknowns(many, async (logs) => {
    count = logs.length;
    return logs.map(() => answer());
  });
  // 10 candidates: seat 0 has C(10, 6) = 210 hands, seat 2 C(10, 4) = 210: both fit in 600
  assert.equal(count, 420);
  assert.ok(count <= CHECK_LIMIT);
  const more = stateWith({ 0: 5, 1: 5, 2: 1 });
  const checked = await checkUnknowns(more, async (logs) => logs.map(() => answer()));
  // 11 candidates: C(11, 5) = 462 for seat 0, then 462 more is past the limit for seat 1
  assert.deepEqual(
    checked.seats.map((s) => [s.seat, s.checked]),
    [
      [0, true],
      [1, false],
      [2, true],
    ],
  );
  assert.equal(checked.outcome, "open");
});

test("cards of the stock nobody has drawn yet: nothing depends on them", async () => {
  const log = example("tute-2p-match.json");
  const entry = DealEntry.fromDeal(tableOf(DATA, log, words), log.deals[0], log.deals[0].dealer);
  entry.slots.stock = entry.slots.stock.map(() => UNKNOWN);
  const state = {
    entry,
    deal: { tricks: [], violations: [] },
    log: () => assert.fail("nothing to ask"),
  };
  assert.equal(await checkUnknowns(state, () => assert.fail("nothing to ask")), null);
});

test("with the referee itself: ana's renuncio stands whatever her unknown card was", async () => {
  // deal 2 of tute-4p-renuncio up to ana's renuncio; ana forgot the cinco de oros, bea a card
  const log = example("tute-4p-renuncio.json");
  const answerOf = await replayed({ ...log, deals: log.deals.slice(1, 2) });
  const violation = answerOf.deals[0].violations[0];
  const { dealer, deck, events } = log.deals[1];
  const given = {
    dealer,
    hands: answerOf.deals[0].steps[0].hands, // the deck as dealt
    trump_card: deck.at(-1),
    events: events.slice(0, violation.event + 1),
  };
  const entry = DealEntry.fromDeal(tableOf(DATA, log, words), given, given.dealer);
  const forgotten = {
    0: "5O",
    1: entry.slots["hand-1"].find((c) => !given.events.some((e) => e.card === c)),
  };
  for (const [seat, code] of Object.entries(forgotten)) {
    const hand = entry.slots[`hand-${seat}`];
    hand[hand.indexOf(code)] = UNKNOWN;
  }
  const deal = (await replayed({ ...log, deals: [given] })).deals[0];
  const state = {
    entry,
    deal,
    log: (fill) => ({ ...log, deals: [{ ...entry.setup(fill), events: given.events }] }),
  };
  const batch = async (logs) => {
    const body = logs.map((l, id) => JSON.stringify({ ...l, id: String(id) })).join("\n");
    const response = await appFetch("/v1/scores/batch", {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson" },
      body,
    });
    const lines = (await response.text())
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    return logs.map((_, id) => lines.find((a) => a.id === String(id)));
  };
  const check = await checkUnknowns(state, batch);
  const ana = check.seats.find((s) => s.seat === 0);
  assert.equal(ana.cases, 2);
  const found = ana.findings.find((f) => f.event === violation.event);
  assert.equal(found.cases, 2, "in both cases");
  assert.ok(found.obligations.has(violation.obligation));
});
