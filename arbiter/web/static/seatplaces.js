// Where each seat sits round the table on a wide screen (referee.css lays the hands out round
// the trick by these names): the first seat at the bottom, and the others round the table in
// the order play goes (to the right). Only where the hands are drawn: no rule. No DOM.

/** The places of a table of 2 to 5 seats, seat by seat. */
const PLACES = {
  2: ["bottom", "top"],
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  5: ["bottom", "right", "top-right", "top-left", "left"],
};

/** The place of `seat` at a table of `count` seats ("bottom", "right", "top", "left",
 *  "top-right", "top-left"). */
export function seatPlace(seat, count) {
  const places = PLACES[count] ?? PLACES[4];
  return places[seat % places.length];
}
