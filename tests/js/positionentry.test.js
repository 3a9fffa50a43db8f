// A deal started from the disputed trick: the entry (positionentry.js), the position it makes
// (the tricks played by their cards, or by who won each and the points), and the referee's
// faults worded from their code and read back to the places — against the app's real answers.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  readDraftFragment,
  restoreInto,
  snapshotOf,
  writeDraftFragment,
} from "../../arbiter/web/static/draft.js";
import { EditorState, headerOf } from "../../arbiter/web/static/editorstate.js";
import { tableOf } from "../../arbiter/web/static/entry.js";
import { MoveLine } from "../../arbiter/web/static/moveline.js";
import {
  PositionEntry,
  WORDED_FAULTS,
  faultSentence,
  faultsByPlace,
  makeEntry,
  placeOfPointer,
  positionOf,
  positionSettings,
  unseenCards,
} from "../../arbiter/web/static/positionentry.js";
import { PositionRun } from "../../arbiter/web/static/positionrun.js";
import { DATA, choiceOf, disputed, entered, service, words } from "./disputed.js";
import { ROOT, wordsIn } from "./support.js";

test("the places: the trick on the table, the hands now, the trump card, the tricks", async () => {
  const { position } = await disputed();
  const entry = makeEntry(
    tableOf(DATA, { ruleset: "tute-4p", players: position.players }, words),
    choiceOf(position),
  );
  assert.ok(entry instanceof PositionEntry);
  const tricks = position.tricks.length;
  assert.deepEqual(
    entry.targets.map((t) => t.id),
    [
      "table",
      "hand-0",
      "hand-1",
      "hand-2",
      "hand-3",
      "shown",
      ...Array.from({ length: tricks }, (_, i) => `trick-${i}`),
    ],
  );
  // the sizes lead the taps: ten dealt less a card per trick played (less one on the table)
  assert.deepEqual(
    entry.targets.filter((t) => t.kind === "hand").map((t) => t.size),
    [10 - tricks, 10 - tricks, 10 - tricks, 10 - tricks],
  );
  const leader = position.trick.leader;
  entry.give(entry.pack()[0]);
  assert.equal(entry.target(`hand-${leader}`).size, 10 - tricks - 1);
  // the card that shows trump may be a card held (or played) now; unknown cards are not offered
  entry.choose(`hand-${leader}`);
  entry.give(entry.pack()[1]);
  entry.choose("shown");
  assert.ok(entry.give(entry.pack()[1]).ok);
  assert.equal(entry.allowsUnknown(entry.target()), false);
});

test("a fault in the position comes back in words beside its place, with no pointer", async () => {
  const { position } = await disputed();
  const { header, entry } = entered(position);
  entry.remove("hand-1", 0); // bea's hand one card short
  const made = positionOf(header, entry);
  const run = new PositionRun(service);
  const error = await run.begin(made, entry.pack()[0]).then(
    () => null,
    (e) => e,
  );
  assert.equal(error?.status, 422);
  const { places, general } = faultsByPlace(
    words,
    error.body,
    made,
    position.players,
    entry,
    (id) => id,
  );
  assert.deepEqual([...places.keys()], ["hand-1"]);
  assert.match(places.get("hand-1")[0], /^bea debe tener \d+ cartas en este momento\.$/);
  assert.deepEqual(general, []);
  for (const text of [...places.values()].flat()) assert.doesNotMatch(text, /\/|seat|_/);
});

test("each pointer of a position names the place the person typed", () => {
  const settings = positionSettings({ position: { tricks: 3, leaders: [1, 2, 0, 3] } });
  const cases = {
    "/position/hands/2": "hand-2",
    "/position/hands/2/1": "hand-2",
    "/position/turned": "shown",
    "/position/trump": "shown",
    "/position/stock_left": "stock-left",
    "/position/trick/plays/1/card": "table",
    "/position/trick/leader": "lead-3",
    "/position/tricks/1/plays/0/seat": "trick-1",
    "/position/tricks/2/leader": "lead-2",
    "/position/tricks/1/winner": "lead-2",
    "/position/tricks/1/points": "points",
    "/position/tricks": "points",
    "/position/card_points": "points",
    "/position/card_points/3": "points-3",
    "/position/deal": null,
    "/position": null,
  };
  for (const [pointer, place] of Object.entries(cases)) {
    assert.equal(placeOfPointer(pointer, settings), place, pointer);
  }
});

test("a position start's draft gives back its entry and moves, through the address", async () => {
  const { move, position } = await disputed();
  const state = new EditorState(DATA, words, service);
  state.draftId = "p1";
  const choice = { ...choiceOf(position), count: 4, notation: "spanish", options: {} };
  state.chooseTable(choice);
  const { entry } = entered(position);
  state.entry.slots = structuredClone(entry.slots);
  state.line = new MoveLine([move]);
  state.phase = "play";
  const draft = readDraftFragment(writeDraftFragment(snapshotOf(state)));
  const back = restoreInto(new EditorState(DATA, words, service), draft, headerOf);
  assert.ok(back.entry instanceof PositionEntry);
  assert.deepEqual(back.entry.slots, entry.slots);
  assert.deepEqual(back.entry.settings, entry.settings);
  assert.deepEqual(back.line.moves, [move]);
  assert.equal(back.phase, "play");
  assert.deepEqual(
    positionOf(headerOf(DATA, back.choice), back.entry),
    positionOf(headerOf(DATA, choice), entry),
  );
});

test("tricks known by who won them and the points: no card places, the cards kept", async () => {
  const { position } = await disputed();
  const { entry } = entered(position);
  const tricks = position.tricks.length;
  const byCards = entry.targets.map((t) => t.id);
  const kept = structuredClone(entry.slots);
  entry.retarget(positionSettings(choiceOf(position, "points")));
  assert.deepEqual(
    entry.targets.map((t) => t.id),
    byCards.filter((id) => !id.startsWith("trick-")),
  );
  assert.deepEqual(entry.missing(), []);
  assert.deepEqual(entry.slots, kept); // the cards given to the tricks stay, not asked
  assert.equal(entry.where(position.tricks[0].plays[0].card), null); // ...and not in the way
  entry.retarget(positionSettings(choiceOf(position, "cards")));
  assert.deepEqual(
    entry.targets.map((t) => t.id),
    byCards,
  );
  assert.equal(entry.target(`trick-${tricks - 1}`).size, 4);
  assert.deepEqual(entry.slots, kept);
});

test("the cards not seen in a position given by points: those of the tricks played", async () => {
  const { position } = await disputed();
  const { header, entry } = entered(position, "points");
  const made = positionOf(header, entry);
  const unseen = unseenCards(entry.pack(), made);
  const played = position.tricks.flatMap((t) => t.plays.map((p) => p.card));
  assert.deepEqual([...unseen].sort(), [...played].sort());
  assert.equal(unseen.length, 4 * position.tricks.length);
});

/** The position the referee gives after `event` events of the tute-4p example's second deal. */
async function positionAfter(event) {
  const { log } = await disputed();
  const body = JSON.stringify({ ...log, deal: 1, event });
  return JSON.parse(await service.post("v1/positions", body)).position;
}

test("a fault in the points given comes back beside the seat's points, in words", async () => {
  // two tricks played: a seat that won none of them has no points from them
  const position = await positionAfter(8);
  const { header, entry } = entered(position, "points");
  const made = positionOf(header, entry);
  const wonNone = position.players.findIndex(
    (_, seat) => !position.tricks.some((t) => t.winner === seat),
  );
  assert.ok(wonNone >= 0);
  made.card_points = made.card_points.map((points, seat) => (seat === wonNone ? 12 : points));
  const error = await new PositionRun(service).begin(made, entry.pack()[0]).then(
    () => null,
    (e) => e,
  );
  assert.equal(error?.status, 422);
  const codes = error.body.errors.map((e) => e.code);
  assert.ok(codes.includes("points_not_known_tricks"), codes);
  for (const lang of ["es", "en"]) {
    const w = await wordsIn(lang);
    const { places } = faultsByPlace(w, error.body, made, position.players, entry, (id) => id);
    const said = places.get(`points-${wonNone}`);
    assert.ok(said, [...places.keys()]);
    const expected = w.t("position.fault.points_not_known_tricks", {
      name: position.players[wonNone],
      points: 0,
    });
    assert.ok(said.includes(expected), said);
  }
});

/** The fault codes the API lists (api_spec/openapi.yaml: the Fault schema's enum, the one that
 *  holds hand_size). */
function apiFaultCodes() {
  const spec = readFileSync(join(ROOT, "api_spec", "openapi.yaml"), "utf8").split("\n");
  const lists = [];
  let list = null;
  for (const line of spec) {
    const found = /^ {10}- ([a-z_]+)$/.exec(line);
    if (found && list) list.push(found[1]);
    else if (/^ {10}enum:$/.test(line)) lists.push((list = []));
    else list = null;
  }
  return lists.find((codes) => codes.includes("hand_size")) ?? [];
}

/** Params each code's message names (as the referee gives them), for a sentence of each. */
const PARAMS = {
  list_size: { least: 1, most: 3 },
  int_range: { low: 0, high: 130 },
  card_code: { code: "13X", notation: "spanish", what: "card" },
  must_be: { value: 14 },
  does_not_follow: { value: 3 },
  play_seat: { seat: 1 },
  draw_seat: { seat: 2 },
  draw_count: { count: 2 },
  trick_leader: { seat: 3 },
  no_stock: { ruleset: "tute-4p" },
  no_exchange: { ruleset: "tute-4p" },
  no_turned_card: { ruleset: "tute-cabron" },
  exchange_not_leader: { seat: 0, given: 1, first: false },
  card_not_in_pack: { card: "8O" },
  repeated: { first: "/position/hands/0/1" },
  hand_size: { seat: 1, count: 3 },
  stock_size: { count: 4 },
  points_below_known: { seat: 2, points: 21 },
  points_not_known_tricks: { seat: 1, points: 0 },
  unknown_points_too_many: { most: 80 },
  unknown_points_not_all: { points: 64 },
};

test("every fault code of the API is said in words of the page, es and en", async () => {
  const { position } = await disputed();
  const { header, entry } = entered(position);
  const made = positionOf(header, entry);
  const general = new Set(["invalid", "not_object", "one_of", "deal_with_position"]);
  const codes = apiFaultCodes();
  assert.ok(codes.length > 30 && codes.includes("hand_size"), codes);
  for (const code of codes) {
    assert.ok(WORDED_FAULTS.includes(code) || general.has(code), `no words for ${code}`);
  }
  for (const lang of ["es", "en"]) {
    const w = await wordsIn(lang);
    const other = w.t("position.fault.other");
    for (const code of codes) {
      const error = {
        pointer: "/position/hands/1/0",
        code,
        params: PARAMS[code] ?? {},
        message: "seat 1 holds 3 cards at this point", // English the page never shows
      };
      const said = faultSentence(w, error, made, position.players, entry, (id) => `[${id}]`);
      assert.equal(said === other, general.has(code), `${lang} ${code}: ${said}`);
      assert.doesNotMatch(said, /\{|undefined|null|NaN|seat \d|_/, `${lang} ${code}: ${said}`);
    }
    // a code the page does not know, or params its words need missing: the general refusal
    const unknown = { pointer: "/position/hands/0", code: "something_new", params: {} };
    assert.equal(faultSentence(w, unknown, made, position.players, entry, String), other);
    const holed = { pointer: "/position/hands/0", code: "hand_size", params: { count: 3 } };
    assert.equal(faultSentence(w, holed, made, position.players, entry, String), other);
  }
  const es = await wordsIn("es");
  const said = faultSentence(
    es,
    { pointer: "/position/hands/1", code: "hand_size", params: { seat: 1, count: 3 } },
    made,
    position.players,
    entry,
    String,
  );
  assert.equal(said, `${position.players[1]} debe tener 3 cartas en este momento.`);
});
