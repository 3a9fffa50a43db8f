// Where each seat sits round the table on a wide screen (seatplaces.js).

import assert from "node:assert/strict";
import { test } from "node:test";

import { seatPlace } from "../../arbiter/web/static/seatplaces.js";

test("round the table: the first seat at the bottom, every seat a place of its own", () => {
  for (const count of [2, 3, 4, 5]) {
    const places = Array.from({ length: count }, (_, seat) => seatPlace(seat, count));
    assert.equal(places[0], "bottom");
    assert.equal(new Set(places).size, count);
  }
  assert.deepEqual(
    [0, 1, 2, 3].map((seat) => seatPlace(seat, 4)),
    ["bottom", "right", "top", "left"],
  );
});
