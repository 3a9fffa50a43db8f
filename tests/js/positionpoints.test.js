// A position start whose earlier tricks are given by who won each and the card points
// (positionentry.js, "points"), for a point in the middle of each bundled example's first deal:
// the referee takes it as it takes the same position with every card, and judges the next move
// of the log alike — against the app's real answers.

import assert from "node:assert/strict";
import { test } from "node:test";

import { positionOf } from "../../arbiter/web/static/positionentry.js";
import { PositionRun } from "../../arbiter/web/static/positionrun.js";
import { entered, service } from "./disputed.js";
import { examples } from "./support.js";

/** The position the referee gives after `event` events of the first deal of `log`. */
async function positionAt(log, event) {
  const body = JSON.stringify({ ...log, deal: 0, event });
  return JSON.parse(await service.post("v1/positions", body)).position;
}

const taken = [];

for (const [name, log] of examples()) {
  test(`${name}: the tricks before by points judge the next move as by cards`, async () => {
    const events = log.deals[0].events ?? [];
    // a point after a few tricks, between two plays
    let event = Math.floor(events.length / 2);
    while (event < events.length && events[event].type !== "play") event += 1;
    if (event >= events.length) return;
    const position = await positionAt(log, event);
    const runs = [];
    for (const known of ["cards", "points"]) {
      const { header, entry } = entered(position, known);
      const run = new PositionRun(service);
      const made = positionOf({ ...header, options: log.options }, entry);
      const answer = await run.begin(made, entry.pack()[0]).then(
        () => null,
        (error) => error.body?.errors?.map((e) => e.code) ?? String(error),
      );
      runs.push({ run, answer, made });
    }
    const [byCards, byPoints] = runs;
    assert.deepEqual(byPoints.answer, byCards.answer, name); // both taken, or refused alike
    if (byCards.answer) return;
    taken.push(name);
    assert.ok(byPoints.made.tricks.every((t) => t.plays.length === 0));
    assert.deepEqual(byPoints.run.view.legal_moves, byCards.run.view.legal_moves, name);
    const move = events[event];
    const [a, b] = [await byCards.run.propose(move), await byPoints.run.propose(move)];
    for (const key of ["verdict", "obligation", "correct", "code"]) {
      assert.deepEqual(b[key], a[key], `${name} ${key}`);
    }
  });
}

test("every example's position is taken (the comparisons above are no refusals)", () => {
  assert.equal(taken.length, examples().length, taken);
});
