// moveline.js: the editor's moves as a line with a cursor — undo, redo, what if.

import assert from "node:assert/strict";
import { test } from "node:test";

import { MoveLine } from "../../arbiter/web/static/moveline.js";

const play = (seat, card) => ({ type: "play", seat, card });
const LINE = [play(0, "1O"), play(1, "3O"), play(2, "12O"), play(3, "7C"), play(0, "5E")];

test("undo and redo move the cursor and keep the line", () => {
  const line = new MoveLine(LINE);
  assert.equal(line.cursor, 5);
  assert.ok(line.canUndo() && !line.canRedo());
  line.undo();
  line.undo();
  assert.deepEqual(line.events, LINE.slice(0, 3));
  assert.deepEqual(line.moves, LINE);
  assert.ok(line.canRedo());
  line.redo();
  assert.deepEqual(line.events, LINE.slice(0, 4));
  line.goTo(0);
  assert.ok(!line.canUndo());
  line.undo(); // nothing to undo: stays
  assert.equal(line.cursor, 0);
  line.goTo(99);
  assert.equal(line.cursor, 5);
  line.redo(); // nothing to redo: stays
  assert.equal(line.cursor, 5);
  assert.equal(line.original, null);
});

test("undoing twice and playing the line's next move again is a redo, not a what-if", () => {
  const line = new MoveLine(LINE);
  line.undo();
  line.undo();
  line.play({ ...LINE[3] }); // the same move, another object
  assert.equal(line.cursor, 4);
  assert.deepEqual(line.moves, LINE, "the move after it stays to redo");
  assert.ok(line.canRedo());
  assert.equal(line.original, null, "no what-if");
  line.redo();
  assert.deepEqual(line.events, LINE);
});

test("another move before the end is a what-if, and the original line comes back whole", () => {
  const line = new MoveLine(LINE);
  line.goTo(2);
  line.play(play(2, "1E"));
  assert.deepEqual(line.moves, [...LINE.slice(0, 2), play(2, "1E")]);
  assert.ok(!line.canRedo());
  assert.deepEqual(line.original, { moves: LINE, cursor: 5 });
  line.play(play(3, "7C")); // played on in the what-if: still the same original
  line.backToOriginal();
  assert.deepEqual(line.moves, LINE);
  assert.equal(line.cursor, 5);
  assert.equal(line.original, null);
  line.backToOriginal(); // none left: nothing changes
  assert.deepEqual(line.moves, LINE);
});

test("a second what-if inside the first keeps the original line, not the first what-if", () => {
  const line = new MoveLine(LINE);
  line.goTo(3);
  line.play(play(3, "1E")); // the first what-if: 4 moves
  line.play(play(0, "4B"));
  line.goTo(1);
  line.play(play(1, "2B")); // the second, inside the first
  assert.deepEqual(line.moves, [LINE[0], play(1, "2B")]);
  line.backToOriginal();
  assert.deepEqual(line.moves, LINE);
  assert.equal(line.cursor, 5);
});

test("a move at the end of the line is no what-if", () => {
  const line = new MoveLine(LINE.slice(0, 2));
  line.play(LINE[2]);
  assert.deepEqual(line.moves, LINE.slice(0, 3));
  assert.equal(line.original, null);
});

test("a line opened at a place keeps the rest to redo", () => {
  const line = new MoveLine(LINE, 2);
  assert.deepEqual(line.events, LINE.slice(0, 2));
  assert.ok(line.canRedo());
  assert.equal(new MoveLine(LINE, 9).cursor, 5);
  assert.equal(new MoveLine(LINE, -1).cursor, 0);
  // the line is the MoveLine's own: changing the array it was given changes nothing
  const given = LINE.slice();
  const own = new MoveLine(given);
  given.pop();
  assert.equal(own.moves.length, 5);
});
