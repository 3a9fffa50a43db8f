// The tute-4p example's disputed trick for the tests of a deal started from a position
// (positionentry.test.js, positionrun.test.js): the position the referee gives there, and an
// entry holding it, filled as the picker fills it.

import assert from "node:assert/strict";

import { tableOf } from "../../arbiter/web/static/entry.js";
import { makeEntry } from "../../arbiter/web/static/positionentry.js";
import { Service } from "../../arbiter/web/static/service.js";
import { ORIGIN, appFetch, example, pageData, wordsIn } from "./support.js";

export const DATA = await pageData();
export const words = await wordsIn("es");
export const service = new Service({ base: ORIGIN, lang: () => "es", fetch: appFetch });

/** The tute-4p example's disputed trick: the log's renuncio move and the position before it
 *  (as the referee gives it). */
export async function disputed() {
  const log = example("tute-4p-renuncio.json");
  const answer = await service.replay(log);
  const { event } = answer.deals[1].violations[0];
  const body = JSON.stringify({ ...log, deal: 1, event });
  const position = JSON.parse(await service.post("v1/positions", body)).position;
  return { log, move: log.deals[1].events[event], position };
}

/** The table form's choice for `position`: the tricks played given by their cards, or with
 *  `known` "points", by who won each and each seat's card points (the position's own). */
export const choiceOf = (position, known = "cards") => ({
  ruleset: position.ruleset,
  names: position.players,
  dealer: position.dealer,
  mode: "position",
  position: {
    tricks: position.tricks.length,
    leaders: [...position.tricks.map((t) => t.leader), position.trick.leader],
    known,
    cardPoints: known === "points" ? position.card_points : [],
    stockLeft: position.stock_left ?? 0,
  },
});

/** An entry holding `position`, filled as the picker fills it (the cards given place by place;
 *  the tricks played only when their cards are asked). */
export function entered(position, known = "cards") {
  const header = { ruleset: position.ruleset, players: position.players };
  if (position.notation && position.notation !== "spanish") header.notation = position.notation;
  const entry = makeEntry(tableOf(DATA, header, words), choiceOf(position, known));
  const give = (id, cards) => {
    entry.choose(id);
    for (const code of cards) assert.ok(entry.give(code).ok, `${id} ${code}`);
  };
  give(
    "table",
    position.trick.plays.map((p) => p.card),
  );
  position.hands.forEach((hand, seat) => give(`hand-${seat}`, hand));
  if (position.turned) give("shown", [position.turned]);
  if (known === "cards") {
    position.tricks.forEach((trick, i) =>
      give(
        `trick-${i}`,
        trick.plays.map((p) => p.card),
      ),
    );
  }
  return { header, entry };
}
