// Play from a position (positionrun.js): each move judged by /v1/moves/validate on the position
// now, the referee's next position followed, a renuncio ruled where play stops, moves undone
// and judged again — against the app's real answers.

import assert from "node:assert/strict";
import { test } from "node:test";

import { positionOf } from "../../arbiter/web/static/positionentry.js";
import { PositionRun } from "../../arbiter/web/static/positionrun.js";
import { disputed, entered, service } from "./disputed.js";

test("the position entered is the referee's own, and it finds the renuncio from it", async () => {
  const { move, position } = await disputed();
  const { header, entry } = entered(position);
  assert.deepEqual(entry.missing(), []);
  const made = positionOf(header, entry);
  assert.deepEqual(made.hands, position.hands);
  assert.deepEqual(made.trick, { leader: position.trick.leader, plays: position.trick.plays });
  assert.deepEqual(
    made.tricks,
    position.tricks.map(({ leader, plays }) => ({ leader, plays })),
  );
  assert.equal(made.trump, position.trump);
  const run = new PositionRun(service);
  await run.begin(made, entry.pack()[0]);
  assert.equal(run.view.turn, move.seat);
  assert.deepEqual(run.ruling(), []);
  const verdict = await run.propose(move);
  assert.equal(verdict.verdict, "renuncio");
  assert.ok(run.stopped);
  assert.deepEqual(
    run.ruling().map((m) => m.verdict.verdict),
    ["renuncio"],
  );
  assert.deepEqual(run.moves, [move]);
  run.undo();
  assert.equal(run.stopped, false);
  assert.deepEqual(run.moves, []);
});

test("an allowed move is followed by the referee's next position, and undone", async () => {
  const { position } = await disputed();
  const { header, entry } = entered(position);
  const run = new PositionRun(service);
  await run.begin(positionOf(header, entry), entry.pack()[0]);
  const [first] = run.view.legal_moves;
  const verdict = await run.propose(first);
  assert.equal(verdict.verdict, "ok");
  assert.notEqual(run.view.turn, first.seat);
  assert.ok(!run.view.hands[first.seat].includes(first.card));
  const [second] = run.view.legal_moves;
  assert.equal((await run.propose(second)).verdict, "ok"); // judged on the referee's position
  assert.deepEqual(run.moves, [first, second]);
  run.undo();
  assert.deepEqual(run.moves, [first]);
  // a draft reopened: the moves judged again from the position give the same view
  const again = new PositionRun(service);
  await again.begin(positionOf(header, entry), entry.pack()[0]);
  await again.replay([first]);
  assert.deepEqual(again.view, run.view);
});
