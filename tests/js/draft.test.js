// draft.js: the editor's work kept — a draft gives back the entry exactly (cards, unknown
// places, moves, the cursor and the line a "what if" left), in the address and in the device's
// list, which keeps the newest, bounded, and survives a storage that refuses.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  DRAFTS_KEY,
  DRAFT_VERSION,
  Drafts,
  draftSummary,
  newDraftId,
  readDraftFragment,
  restoreInto,
  sameDraft,
  snapshotOf,
  writeDraftFragment,
} from "../../arbiter/web/static/draft.js";
import { EditorState, headerOf } from "../../arbiter/web/static/editorstate.js";
import { UNKNOWN } from "../../arbiter/web/static/entry.js";
import { Service } from "../../arbiter/web/static/service.js";
import { ORIGIN, example, pageData, recordingFetch, wordsIn } from "./support.js";

const DATA = await pageData();
const words = await wordsIn("es");
const LOG = example("tute-3p.json");

const newState = () =>
  new EditorState(
    DATA,
    words,
    new Service({ base: ORIGIN, lang: () => "es", fetch: recordingFetch().fetch }),
  );

/** A storage like the browser's, in memory; `refuse`: every write throws (a full storage). */
function memoryStorage({ refuse = false } = {}) {
  const items = new Map();
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => {
      if (refuse) throw new Error("QuotaExceededError");
      items.set(key, String(value));
    },
  };
}

async function openedWithWhatIf() {
  const state = newState();
  state.draftId = "d1";
  await state.open(LOG, { deal: 1, event: 12 });
  state.entry.slots["hand-1"][3] = UNKNOWN; // a card nobody remembers
  state.line.goTo(8);
  state.line.play({ type: "play", seat: 0, card: "1E" }); // a "what if"
  state.phase = "play";
  return state;
}

test("a draft gives back the entry exactly, through the address too", async () => {
  const state = await openedWithWhatIf();
  const draft = snapshotOf(state, 1000);
  const through = readDraftFragment(writeDraftFragment(draft));
  assert.deepEqual(through, draft);
  const back = restoreInto(newState(), through, headerOf);
  assert.equal(back.draftId, "d1");
  assert.equal(back.phase, "play");
  assert.deepEqual(back.choice, state.choice);
  assert.deepEqual(back.entry.slots, state.entry.slots);
  assert.equal(back.entry.current, state.entry.current);
  assert.deepEqual(back.line.moves, state.line.moves);
  assert.equal(back.line.cursor, state.line.cursor);
  assert.deepEqual(back.line.original, state.line.original);
  assert.deepEqual(back.log(), state.log(), "the same log, unknown card filled the same way");
  assert.ok(sameDraft(snapshotOf(back, 2000), draft), "restored, it is the same draft");
});

test("a draft is a copy: a later change of the state leaves it as it was", async () => {
  const state = await openedWithWhatIf();
  const draft = snapshotOf(state);
  state.entry.slots["hand-0"].pop();
  state.line.undo();
  assert.ok(!sameDraft(snapshotOf(state), draft));
  assert.equal(draft.entry.slots["hand-0"].length, 12);
});

test("the draws left unknown on purpose are kept", () => {
  const state = newState();
  state.draftId = "d2";
  state.chooseTable({ ...state.choice, ruleset: "tute-2p", count: 2, names: ["a", "b"] });
  state.entry.unknownDraws.add(3);
  state.phase = "cards";
  const back = restoreInto(newState(), snapshotOf(state), headerOf);
  assert.deepEqual([...back.entry.unknownDraws], [3]);
  assert.equal(back.phase, "cards");
});

test("a form half typed, with no card yet, is a draft of the table step", () => {
  const state = newState();
  state.draftId = "d3";
  state.form = { ...state.choice, names: ["ana"] };
  const back = restoreInto(newState(), snapshotOf(state), headerOf);
  assert.equal(back.phase, "table");
  assert.equal(back.entry, null);
  assert.deepEqual(back.form.names, ["ana"]);
});

test("a draft of another version, or no draft, is refused, never guessed", () => {
  assert.throws(() => restoreInto(newState(), { v: DRAFT_VERSION + 1 }, headerOf));
  assert.equal(readDraftFragment("#log=abc"), null);
  assert.throws(() => readDraftFragment("#edit=bm90IGpzb24")); // base64url of "not json"
});

test("the device's list: newest first, one per deal, bounded, deletable", () => {
  const storage = memoryStorage();
  const drafts = new Drafts(storage, 3);
  const draft = (id, saved) => ({ v: DRAFT_VERSION, id, saved });
  for (const [i, id] of ["a", "b", "c", "d"].entries()) drafts.save(draft(id, i));
  assert.deepEqual(
    drafts.all().map((d) => d.id),
    ["d", "c", "b"],
    "the oldest went",
  );
  drafts.save(draft("b", 9));
  assert.deepEqual(
    drafts.all().map((d) => [d.id, d.saved]),
    [
      ["b", 9],
      ["d", 3],
      ["c", 2],
    ],
  );
  assert.equal(drafts.get("c").saved, 2);
  drafts.remove("d");
  assert.deepEqual(
    drafts.all().map((d) => d.id),
    ["b", "c"],
  );
  assert.equal(drafts.get("d"), null);
});

test("a storage that refuses or holds something else loses nothing but the list", () => {
  const refusing = new Drafts(memoryStorage({ refuse: true }));
  assert.equal(refusing.save({ v: DRAFT_VERSION, id: "x" }), false);
  assert.deepEqual(refusing.all(), []);
  const foreign = memoryStorage();
  foreign.items.set(DRAFTS_KEY, "{not json");
  assert.deepEqual(new Drafts(foreign).all(), []);
  foreign.items.set(DRAFTS_KEY, JSON.stringify([{ v: 0, id: "old" }, { v: DRAFT_VERSION }]));
  assert.equal(new Drafts(foreign).all().length, 1);
});

test("a draft's summary counts the cards placed and the moves made", async () => {
  const state = await openedWithWhatIf();
  const summary = draftSummary(snapshotOf(state, 5));
  assert.equal(summary.id, "d1");
  assert.equal(summary.cards, 3 * 12 + 1); // three hands and the shown card, unknown or not
  assert.equal(summary.moves, 9);
  assert.deepEqual(summary.names, LOG.players);
});

test("draft ids differ from one to the next", () => {
  let n = 0;
  const random = () => (n += 0.1);
  assert.notEqual(newDraftId(1, random), newDraftId(1, random));
});
