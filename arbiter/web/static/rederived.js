// Rule facts the page still works out for itself, each in one function. They belong to the
// position the API answers (issue 26: a complete position — the cards a declaration rests on,
// the event that decided the deal, the stock's size, the call that made trump); once it carries
// them, each function here gives way to reading it, one line at each place that calls it, and
// this module goes. Nothing else in the page may know a rule: add none here.

/**
 * The cards a declaration rests on: a cante on the rey and caballo of its suit, las cuarenta
 * the same in trumps, a tute on the four reyes or the four caballos, the exchange on the siete
 * of trumps. `trump`: the trump suit's letter. Plays rest on no card beyond themselves: [].
 */
export function declarationCards(move, deck, trump) {
  switch (move.type) {
    case "sing":
      return [deck.codeOf(12, move.suit), deck.codeOf(11, move.suit)];
    case "tute": {
      const rank = move.of === "kings" ? 12 : 11;
      return deck.suits().map((suit) => deck.codeOf(rank, suit));
    }
    case "exchange":
      return [deck.codeOf(7, trump)];
    default:
      return [];
  }
}

/** The renuncio that decided the deal: the first one found, or null when none was. */
export function decidingRenuncio(deal) {
  return deal.violations[0] ?? null;
}

/** The places of the stock when the cards are dealt: the pack less the hands and the turned
 *  card (tute-2p, the rulesets whose trump is turned from the stock). */
export function stockSizeAtDeal(packSize, handSize, players) {
  return packSize - handSize * players - 1;
}

/** The call (a cante of a ruleset whose trump is called) that made trump: the deal's first,
 *  or null when nobody has called yet. */
export function trumpCall(deal) {
  return deal.cantes[0] ?? null;
}

/**
 * Whether the deal's outcome is the same in every case the check of the unknown cards asked
 * about: "stands", "depends", or "open" when some seat was not checked. The outcome is the
 * deciding renuncio's (decidingRenuncio), or the play's when there is none; so a renuncio a seat
 * may have made before it (or at all, when there was none) may decide it instead, and so may the
 * deciding renuncio's not standing in every case. `seats`: the check's seats with their findings.
 */
export function outcomeStands(deal, seats) {
  if (seats.some((s) => !s.checked)) return "open";
  const first = decidingRenuncio(deal);
  for (const seat of seats) {
    if (seat.findings.some((f) => first === null || f.event < first.event)) return "depends";
    if (first && first.seat === seat.seat) {
      const decisive = seat.findings.find((f) => f.event === first.event);
      if (!decisive || decisive.cases < seat.cases) return "depends";
    }
  }
  return "stands";
}
