// The editor's work, kept: a draft is the editor's state as plain JSON — the table chosen (and
// the form being filled), the cards entered, the moves with the cursor and the line a "what if"
// left, the deals before, the step shown — small enough for the address (`#edit=<base64url>`)
// and for the browser's storage. Every step of the editor writes one (enter.js): a reload, Back
// and Forward, a tab closed and opened again, and the ruling opened and left by Back all bring
// the entry back exactly. The drafts of this device are listed, to reopen or delete. No DOM: the
// storage is given (localStorage in the page, a Map-like object in the tests).

import { tableOf } from "./entry.js";
import { decodeLog, encodeLog } from "./logcodec.js";
import { MoveLine } from "./moveline.js";
import { makeEntry } from "./positionentry.js";

/** The version of a draft's form: a draft of another version is not opened (never guessed). */
export const DRAFT_VERSION = 1;
/** The storage key of the drafts of this device. */
export const DRAFTS_KEY = "tute-arbiter.drafts";
/** At most this many drafts are kept: the oldest go first. */
export const DRAFTS_KEPT = 30;

/** A new draft's id: the time and a random tail (unique enough for one device). */
export function newDraftId(now = Date.now(), random = Math.random) {
  return `${now.toString(36)}-${Math.floor(random() * 36 ** 4).toString(36)}`;
}

function entrySnapshot(entry) {
  if (!entry) return null;
  return {
    dealer: entry.dealer,
    mode: entry.mode,
    slots: entry.slots,
    current: entry.current,
    unknownDraws: [...entry.unknownDraws],
  };
}

/** The draft of the editor's `state` (an EditorState with its `draftId` and `form`): a copy,
 *  which later changes of the state leave as it was. */
export function snapshotOf(state, now = Date.now()) {
  const { line } = state;
  return structuredClone({
    v: DRAFT_VERSION,
    id: state.draftId,
    saved: now,
    phase: state.phase,
    choice: state.choice,
    form: state.form ?? null,
    before: state.before,
    entry: entrySnapshot(state.entry),
    line: { moves: line.moves, cursor: line.cursor, original: line.original },
  });
}

function entryOf(data, words, header, snap, choice) {
  const table = tableOf(data, header, words);
  const entry = makeEntry(table, { ...choice, dealer: snap.dealer, mode: snap.mode });
  for (const id of Object.keys(entry.slots)) entry.slots[id] = (snap.slots[id] ?? []).slice();
  entry.choose(snap.current);
  entry.unknownDraws = new Set(snap.unknownDraws ?? []);
  return entry;
}

/**
 * Put the draft `snap` into the editor's `state` (its `headerOf` gives the log's header of a
 * choice): the table, the cards, the moves and the step shown. The position is not asked here:
 * the caller asks for it (state.changed()) when the step is the play.
 */
export function restoreInto(state, snap, headerOf) {
  if (!snap || snap.v !== DRAFT_VERSION) throw new Error("not a draft of this page");
  state.draftId = snap.id;
  state.choice = snap.choice;
  state.form = snap.form ?? null;
  state.before = snap.before ?? [];
  state.header = headerOf(state.data, snap.choice);
  state.entry = snap.entry
    ? entryOf(state.data, state.words, state.header, snap.entry, snap.choice)
    : null;
  const line = new MoveLine(snap.line.moves, snap.line.cursor);
  line.original = snap.line.original ?? null;
  state.line = line;
  state.answer = null;
  state.current = false;
  state.verdict = null;
  state.naming = null;
  state.check = null;
  state.phase = state.entry ? snap.phase : "table";
  return state;
}

/** The draft in an address's fragment (`#edit=…`), or null. */
export function readDraftFragment(hash) {
  const match = /^#edit=([A-Za-z0-9_-]+)$/.exec(hash);
  if (!match) return null;
  return JSON.parse(decodeLog(match[1]));
}

export function writeDraftFragment(snap) {
  return `#edit=${encodeLog(JSON.stringify(snap))}`;
}

/** The same draft, whenever it was saved (a step that changed nothing writes nothing). */
export function sameDraft(a, b) {
  const body = (snap) => JSON.stringify({ ...snap, saved: 0 });
  return Boolean(a && b) && body(a) === body(b);
}

/** The drafts of this device in `storage` (getItem, setItem), newest first. */
export class Drafts {
  constructor(storage, kept = DRAFTS_KEPT) {
    this.storage = storage;
    this.kept = kept;
  }

  all() {
    try {
      const found = JSON.parse(this.storage.getItem(DRAFTS_KEY) ?? "[]");
      return Array.isArray(found) ? found.filter((snap) => snap?.v === DRAFT_VERSION) : [];
    } catch {
      return []; // storage unreadable or not ours: nothing to offer, nothing lost by it
    }
  }

  get(id) {
    return this.all().find((snap) => snap.id === id) ?? null;
  }

  /** Keep `snap` (replacing its earlier version), the newest first; false when the storage
   *  refused (full, or off): the address still holds the draft. */
  save(snap) {
    const rest = this.all().filter((other) => other.id !== snap.id);
    return this.write([snap, ...rest].slice(0, this.kept));
  }

  remove(id) {
    return this.write(this.all().filter((snap) => snap.id !== id));
  }

  write(list) {
    try {
      this.storage.setItem(DRAFTS_KEY, JSON.stringify(list));
      return true;
    } catch {
      return false;
    }
  }
}

/** What a draft is, for the list: {id, saved, ruleset, names, cards (placed), moves}. */
export function draftSummary(snap) {
  const slots = snap.entry ? Object.values(snap.entry.slots) : [];
  return {
    id: snap.id,
    saved: snap.saved,
    ruleset: snap.choice.ruleset,
    names: snap.choice.names,
    cards: slots.reduce((sum, cards) => sum + cards.length, 0),
    moves: snap.line.cursor,
  };
}
