// editorstate.js: the table editor's one state, asking the app itself — and what it does when
// the answers come late, out of order, or refused.

import assert from "node:assert/strict";
import { test as nodeTest } from "node:test";

import {
  EditorState,
  StaleAnswer,
  changedOptions,
  headerOf,
} from "../../arbiter/web/static/editorstate.js";
import { UNKNOWN } from "../../arbiter/web/static/entry.js";
import { Service } from "../../arbiter/web/static/service.js";
import { ORIGIN, example, pageData, recordingFetch, wordsIn } from "./support.js";

const DATA = await pageData();
const words = await wordsIn("en");
const LOG = example("tute-3p.json"); // one deal of 38 events, ana, bea and carlos
const EVENTS = LOG.deals[0].events;

/** A state whose service's fetch is `fetch` (the app's answers, as recordingFetch gives them). */
function stateWith(fetch) {
  const service = new Service({ base: ORIGIN, lang: () => words.lang, fetch });
  return new EditorState(DATA, words, service);
}

/** The state with LOG's deal open at event `event`; from then on, the service's fetch is a
 *  recordingFetch with `options` (answers held, or changed). */
async function opened(event, options = {}) {
  const state = stateWith(recordingFetch().fetch);
  await state.open(LOG, { deal: 1, event });
  const recorder = recordingFetch(options);
  state.service.fetch = recorder.fetch;
  return { state, recorder };
}

/** Let every question go to the app as it is asked, until `action` is done; its result. */
async function answering(recorder, action) {
  let done = false;
  const finished = action.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    if (recorder.requests.length) await recorder.requests.shift().release();
    else await Promise.race([finished, recorder.asked()]);
  }
  return action;
}

/** A test here waits for answers the test itself lets go: one that never comes fails it, after
 *  a bound far past any answer of the app in process. */
const test = (name, fn) => nodeTest(name, { timeout: 120_000 }, fn);

const moves = (state) => state.line.events.length;
const shownMoves = (state) => state.deal.steps.length - 1;

test("the log opens at its place, and a move the referee allows is played", async () => {
  const { state } = await opened(10);
  assert.equal(moves(state), 10);
  assert.equal(shownMoves(state), 10);
  assert.ok(state.current && state.stateId && !state.busy);
  assert.ok(state.line.canRedo(), "the rest of the line stays to redo");
  const verdict = await state.propose(EVENTS[10]);
  assert.equal(verdict.verdict, "ok");
  assert.equal(moves(state), 11);
  assert.equal(shownMoves(state), 11);
  assert.equal(state.line.original, null, "the line's own next move: no what-if");
  assert.deepEqual(state.log().deals[0].events, EVENTS.slice(0, 11));
});

test("a move the referee refuses is not played, and the position stays", async () => {
  const { state, recorder } = await opened(10);
  const out = EVENTS.slice(11).find((e) => e.seat !== EVENTS[10].seat && e.type === "play");
  const verdict = await state.propose(out);
  assert.equal(verdict.verdict, "illegal");
  assert.equal(moves(state), 10);
  assert.deepEqual(
    recorder.requests.map((r) => r.path),
    ["/v1/moves/validate"],
    "no new position asked",
  );
  assert.equal(state.verdict, verdict);
});

test("a slow answer never overwrites a newer one: the later undo's position is shown", async () => {
  const { state, recorder } = await opened(10, { hold: true });
  const first = assert.rejects(
    state.step((line) => line.undo()),
    StaleAnswer,
  );
  const second = state.step((line) => line.undo());
  assert.equal(recorder.requests.length, 2);
  assert.ok(state.busy);
  const [older, newer] = recorder.requests;
  await newer.release(); // the newer question's answer comes first...
  await second;
  assert.equal(shownMoves(state), 8);
  assert.ok(!state.busy, "the latest question is answered");
  await older.release(); // ...then the older one's, late: dropped
  await first;
  assert.equal(shownMoves(state), 8);
  assert.equal(moves(state), 8);
  assert.ok(state.current);
});

test("an older answer coming first is dropped too; the newer one shows when it comes", async () => {
  const { state, recorder } = await opened(10, { hold: true });
  const first = assert.rejects(
    state.step((line) => line.undo()),
    StaleAnswer,
  );
  const second = state.step((line) => line.redo());
  const [older, newer] = recorder.requests;
  await older.release();
  await first;
  assert.equal(shownMoves(state), 10, "still the position of before: nothing new is shown");
  assert.ok(state.busy, "the page still waits for the newer answer");
  assert.ok(!state.current);
  await newer.release();
  await second;
  assert.equal(shownMoves(state), 10);
  assert.ok(state.current && !state.busy);
});

test("a failure of a question a newer one replaced is dropped as well", async () => {
  const refused = (request) =>
    request.body.deals?.[0].events.length === 9 ? { status: 500, body: "{}" } : null;
  const { state, recorder } = await opened(10, { hold: true, answer: refused });
  // its answer will be a 500: no ServiceError to show, as a newer question is out
  const first = assert.rejects(
    state.step((line) => line.undo()),
    StaleAnswer,
  );
  const second = state.step((line) => line.goTo(5));
  const [older, newer] = recorder.requests;
  await older.release();
  await first;
  await newer.release();
  await second;
  assert.equal(shownMoves(state), 5);
});

test("a move made while a position is on its way is judged on the log, not state_id", async () => {
  const { state, recorder } = await opened(10, { hold: true });
  const oldStateId = state.stateId;
  const undo = assert.rejects(
    state.step((line) => line.undo()),
    StaleAnswer,
  );
  const move = state.propose(EVENTS[9]); // the undone move again, before the undo's answer
  const [position, judged] = recorder.requests.splice(0);
  assert.equal(judged.path, "/v1/moves/validate");
  assert.equal(judged.body.state_id, undefined, "the state_id is of a position no longer shown");
  assert.deepEqual(judged.body.deals[0].events, EVENTS.slice(0, 9));
  assert.notEqual(oldStateId, null);
  await position.release();
  await undo;
  await judged.release();
  assert.equal((await answering(recorder, move)).verdict, "ok");
  assert.equal(moves(state), 10);
  assert.equal(shownMoves(state), 10);
  assert.equal(state.line.original, null, "the line's own move again: a redo, not a what-if");
  assert.ok(state.line.canRedo());
});

test("an undo asked while a move is judged leaves the move unplayed", async () => {
  const { state, recorder } = await opened(10, { hold: true });
  const move = assert.rejects(state.propose(EVENTS[10]), StaleAnswer);
  const undo = state.step((line) => line.undo());
  const [judged, position] = recorder.requests;
  await judged.release(); // the verdict, late: dropped, and the move is not played
  await move;
  await position.release();
  await undo;
  assert.equal(moves(state), 9);
  assert.equal(shownMoves(state), 9);
  assert.equal(state.verdict, null);
});

test("a state_id the server cannot open (409) is asked again with the whole log", async () => {
  const conflict = (request) =>
    request.body.state_id
      ? { status: 409, body: JSON.stringify({ title: "Conflict", status: 409 }) }
      : null;
  const { state, recorder } = await opened(10, { answer: conflict });
  const verdict = await state.propose(EVENTS[10]);
  assert.equal(verdict.verdict, "ok");
  const [byToken, byLog, position] = recorder.requests;
  assert.ok(byToken.body.state_id);
  assert.equal(byLog.path, "/v1/moves/validate");
  assert.deepEqual(byLog.body.move, EVENTS[10]);
  assert.deepEqual(byLog.body.deals[0].events, EVENTS.slice(0, 10));
  assert.equal(position.path, "/v1/replays");
  assert.equal(moves(state), 11);
  // another refusal than 409 is the problem it is, not retried
  const gone = (request) => (request.body.state_id ? { status: 503, body: "{}" } : null);
  const other = await opened(10, { answer: gone });
  await assert.rejects(other.state.propose(EVENTS[10]), (error) => error.status === 503);
  assert.equal(other.recorder.requests.length, 1);
});

test("the unknown cards' check waits for no one, and a move makes its answer stale", async () => {
  const { state, recorder } = await opened(10, { hold: true });
  // ana's last card nobody remembers: entered as unknown
  const hand = state.entry.slots["hand-0"];
  const forgotten = hand.findIndex((code) => !EVENTS.slice(0, 12).some((e) => e.card === code));
  hand[forgotten] = UNKNOWN;
  const refresh = state.changed();
  await recorder.requests.shift().release();
  await refresh;
  assert.equal(state.check, "pending");
  // while the page waits for an answer, no check is asked
  const undo = state.step((line) => line.undo());
  await assert.rejects(state.checkUnknowns(), StaleAnswer);
  assert.equal(recorder.requests.length, 1);
  await recorder.requests.shift().release();
  await undo;
  // asked when the page is quiet; then a move comes before its answer
  const check = assert.rejects(state.checkUnknowns(), StaleAnswer);
  assert.ok(!state.busy, "the page does not wait for the check");
  const [batch] = recorder.requests.splice(0);
  assert.equal(batch.path, "/v1/scores/batch");
  const move = state.propose(EVENTS[9]);
  await batch.release();
  await check;
  assert.equal(state.check, "pending", "the old check's answer is not taken");
  await answering(recorder, move);
  assert.equal(state.check, "pending", "a new position: a check to ask again");
  await answering(recorder, state.checkUnknowns());
  assert.ok(state.check.seats.length >= 1, JSON.stringify(state.check));
  assert.equal(state.check.seats[0].seat, 0);
});

test("the table chosen keeps the cards entered while they fit it", async () => {
  const state = stateWith(recordingFetch().fetch);
  const choice = {
    ...state.choice,
    ruleset: "tute-3p",
    count: 3,
    names: ["ana", "bea", "carlos"],
    dealer: 2,
  };
  state.chooseTable(choice);
  const entry = state.entry;
  entry.give(entry.pack()[0]);
  state.chooseTable({ ...choice, names: ["Ana", "Bea", "Carlos"] }); // names corrected
  assert.equal(state.entry, entry);
  state.chooseTable({ ...choice, dealer: 0 }); // another dealer: the same cards
  assert.equal(state.entry, entry);
  assert.equal(state.entry.slots["hand-0"].length, 1);
  state.chooseTable({ ...choice, dealer: 0, ruleset: "tute-cabron" }); // another pack
  assert.notEqual(state.entry, entry);
  assert.equal(state.entry.slots["hand-0"].length, 0);
});

test("the log's header: the options that differ from the ruleset's, and the notation", () => {
  const choice = {
    ruleset: "tute-2p",
    names: ["ana", "bea"],
    notation: "french",
    options: { match_target: 5, cantes_per_trick: 1, tie_break: "last_trick" },
  };
  assert.deepEqual(headerOf(DATA, choice), {
    ruleset: "tute-2p",
    players: ["ana", "bea"],
    options: { match_target: 5 },
    notation: "french",
  });
  assert.deepEqual(headerOf(DATA, { ...choice, notation: "spanish", options: {} }), {
    ruleset: "tute-2p",
    players: ["ana", "bea"],
  });
  const { options } = DATA.rulesets["tute-gana-pierde"];
  const pair = Object.keys(options).find((name) => options[name].type === "array");
  if (pair) {
    assert.deepEqual(
      changedOptions(DATA.rulesets["tute-gana-pierde"], { [pair]: [...options[pair].default] }),
      {},
    );
  }
});

test("the draws of a stock entered as it happens are asked for, one by one", async () => {
  const log = example("tute-2p-match.json");
  const state = stateWith(recordingFetch().fetch);
  await state.open({ ...log, deals: log.deals.slice(0, 1) }, { deal: 1, event: 0 });
  state.entry.slots.stock = state.entry.slots.stock.map(() => UNKNOWN);
  await state.changed();
  assert.equal(state.pendingDraw(), null, "nothing drawn before the first trick");
  const [first] = state.answer.deals;
  const stock = log.deals[0].stock;
  while (state.line.canRedo() && state.deal.tricks.flatMap((t) => t.draws).length === 0) {
    await state.propose(state.line.moves[state.line.cursor]);
  }
  const draw = state.pendingDraw();
  assert.equal(draw.index, 0);
  const drawn = state.deal.tricks[0].draws[0];
  assert.equal(draw.seat, drawn.seat);
  await state.nameDraw(stock[0]);
  assert.equal(state.entry.slots.stock[0], stock[0]);
  assert.equal(state.pendingDraw().index, 1);
  await state.nameDraw(null); // nobody saw it
  assert.equal(state.pendingDraw(), null);
  assert.ok(first);
});

test("names or options changed keep every card and move; another pack is said first", async () => {
  const { state } = await opened(10);
  const cards = structuredClone(state.entry.slots);
  const renamed = { ...state.choice, names: ["ana", "beatriz", "carlos"], options: {} };
  assert.equal(state.lostBy(renamed), null);
  assert.equal(state.chooseTable(renamed), null);
  assert.deepEqual(state.entry.slots, cards);
  assert.equal(state.line.cursor, 10);
  const french = { ...renamed, notation: "french" };
  assert.deepEqual(state.lostBy(french), { cards: 37, moves: EVENTS.length });
  for (const key of ["ruleset", "count", "mode"]) {
    assert.ok(state.lostBy({ ...renamed, [key]: "other" }), key);
  }
});

test("another dealer: hands kept, a shown card not the dealer's out, moves to redo", async () => {
  const { state } = await opened(10);
  const hands = [0, 1, 2].map((seat) => state.entry.slots[`hand-${seat}`].slice());
  const shown = state.entry.slots.trump[0];
  const dealer = [0, 1].find((seat) => !hands[seat].includes(shown));
  const note = state.chooseTable({ ...state.choice, dealer });
  assert.deepEqual(note, { dealer, deck: false, trumpOut: shown, moves: 10 });
  assert.deepEqual(
    [0, 1, 2].map((seat) => state.entry.slots[`hand-${seat}`]),
    hands,
  );
  assert.deepEqual(state.entry.slots.trump, []);
  assert.equal(state.entry.current, "trump");
  assert.equal(state.entry.dealer, dealer);
  assert.equal(state.line.cursor, 0);
  assert.deepEqual(state.line.moves, EVENTS, "every move kept, to redo");
});

test("deal after deal: the deal over joins the deals before, the next seat deals", async () => {
  const { state } = await opened(EVENTS.length);
  assert.ok(state.canDealAgain());
  const finished = state.log().deals.at(-1);
  state.nextDeal();
  assert.deepEqual(state.before, [finished]);
  assert.equal(state.entry.dealer, (finished.dealer + 1) % 3);
  assert.equal(state.choice.dealer, state.entry.dealer);
  assert.equal(state.line.moves.length, 0);
  assert.equal(state.entry.unknownSlots().length, 0);
  assert.equal(state.log(new Map()).deals.length, 2);
});
