// Play from a position (positionrun.js): each move judged by /v1/moves/validate on the position
// now, the referee's next position followed, a renuncio ruled and play going on from the
// position after it, moves undone and judged again; the earlier tricks given by who won them and
// the points alone judge alike — against the app's real answers.

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
  assert.equal(run.stopped, false); // play goes on from the position after it
  assert.deepEqual(
    run.ruling().map((m) => m.verdict.verdict),
    ["renuncio"],
  );
  assert.deepEqual(run.moves, [move]);
  assert.deepEqual(run.view, verdict.after.position);
  assert.ok(!run.view.hands[move.seat].includes(move.card));
  assert.deepEqual(
    run.renuncios().map(({ seat, card, obligation }) => ({ seat, card, obligation })),
    [{ seat: move.seat, card: move.card, obligation: verdict.obligation }],
  );
  run.undo();
  assert.equal(run.stopped, false);
  assert.deepEqual(run.moves, []);
  assert.deepEqual(run.renuncios(), []);
});

/** Play on from `run` to the end of the deal, each time the first move allowed. */
async function playToTheEnd(run) {
  for (let guard = 0; run.view.turn !== null && guard < 60; guard++) {
    const verdict = await run.propose(run.view.legal_moves[0]);
    assert.equal(verdict.verdict, "ok");
  }
  assert.equal(run.view.turn, null);
}

test("after a renuncio play goes on to the end of the deal, which it decides", async () => {
  const { move, position } = await disputed();
  const { header, entry } = entered(position);
  const run = new PositionRun(service);
  await run.begin(positionOf(header, entry), entry.pack()[0]);
  await run.propose(move);
  await playToTheEnd(run);
  assert.equal(run.view.over, true);
  assert.equal(run.view.decided.kind, "renuncio");
  assert.equal(run.view.decided.seat, move.seat);
  assert.equal(run.view.outcome.reason, "renuncio");
  assert.ok(run.view.outcome.losers.includes(move.seat));
  assert.equal(run.renuncios().length, 1);
  // a draft reopened: the same moves, judged again, reach the same end
  const again = new PositionRun(service);
  await again.begin(positionOf(header, entry), entry.pack()[0]);
  await again.replay(run.moves);
  assert.deepEqual(again.view, run.view);
});

test("the tricks played given by who won them and the points judge as their cards do", async () => {
  const { move, position } = await disputed();
  const full = entered(position);
  const points = entered(position, "points");
  const given = positionOf(points.header, points.entry);
  assert.equal(given.tricks.length, position.tricks.length);
  given.tricks.forEach((trick, i) => {
    assert.deepEqual(trick, {
      leader: position.tricks[i].leader,
      plays: [],
      winner: position.tricks[i].winner,
      points: null,
      draws: [],
    });
  });
  assert.deepEqual(given.card_points, position.card_points);
  const byCards = new PositionRun(service);
  await byCards.begin(positionOf(full.header, full.entry), full.entry.pack()[0]);
  const byPoints = new PositionRun(service);
  await byPoints.begin(given, points.entry.pack()[0]);
  assert.deepEqual(byPoints.view.legal_moves, byCards.view.legal_moves);
  const [a, b] = [await byCards.propose(move), await byPoints.propose(move)];
  for (const key of ["verdict", "obligation", "correct", "message", "legal_moves"]) {
    assert.deepEqual(b[key], a[key], key);
  }
  await playToTheEnd(byCards);
  await playToTheEnd(byPoints);
  for (const key of ["outcome", "decided", "card_points", "totals", "tricks_won"]) {
    assert.deepEqual(byPoints.view[key], byCards.view[key], key);
  }
  // the earlier tricks come back as given: no cards made up
  assert.deepEqual(byPoints.view.tricks.slice(0, given.tricks.length), given.tricks);
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
