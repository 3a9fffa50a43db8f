// A deal started from the disputed trick: the entry (positionentry.js), the position it makes,
// and the referee's faults read back to the places — against the app's real answers.

import assert from "node:assert/strict";
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
  faultsByPlace,
  makeEntry,
  placeOfPointer,
  positionOf,
  positionSettings,
} from "../../arbiter/web/static/positionentry.js";
import { PositionRun } from "../../arbiter/web/static/positionrun.js";
import { DATA, choiceOf, disputed, entered, service, words } from "./disputed.js";

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
