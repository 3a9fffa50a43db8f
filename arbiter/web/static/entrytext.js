// The editor's sentences about the cards being entered (entry.js): the places, what to do now,
// what is missing, why a card was refused. No DOM: picker.js shows them.

/** The name of a place for people: "ana's hand", "the stock", "the deck (card 12)" (the deck's
 *  place `index`, when given; the other places are named alone). */
export function placeName(words, target, names, index = null) {
  switch (target.kind) {
    case "hand":
      return words.t("entry.place.hand", { name: names[target.seat] });
    case "deck":
      return index === null
        ? words.t("entry.place.deck")
        : words.t("entry.place.deck_at", { number: index + 1 });
    case "trick":
      return words.t("entry.place.trick", { number: target.index + 1 });
    default:
      return words.t(`entry.place.${target.kind}`);
  }
}

/** What to do now: the place the next tap fills, or that every card is in. */
export function nowText(words, entry, names) {
  const target = entry.target();
  if (entry.mode === "position" && (!entry.complete() || !entry.isFull(target.id))) {
    // a hand or the trick on the table may hold fewer cards than its places: say the place
    const key = { shown: "entry.now_deck", table: "entry.now_order", trick: "entry.now_order" };
    return words.t(key[target.kind] ?? "entry.now", { place: placeName(words, target, names) });
  }
  if (entry.complete()) {
    return words.t(entry.mode === "position" ? "position.now_done" : "entry.now_done");
  }
  const keys = { trump: "entry.now_trump", deck: "entry.now_deck", turned: "entry.now_deck" };
  const place = placeName(words, target, names, entry.slots.deck?.length ?? null);
  return words.t(keys[target.kind] ?? "entry.now", { place, dealer: names[entry.dealer] });
}

/** What is still missing, place by place, or that the deal is complete. */
export function missingText(words, entry, names) {
  const parts = entry
    .missing()
    .map((m) => words.t(m.key, { place: placeName(words, m.target, names), count: m.count }));
  if (!parts.length) {
    return words.t(entry.mode === "position" ? "position.complete" : "entry.complete");
  }
  return words.t("entry.missing", { parts: parts.join("; ") });
}

/** Why `code` was refused (`refusal`: entry.js's {refused: key, fields}): «Dos de espadas ya
 *  está en la mano de ana». */
export function refusalText(words, entry, names, refusal, code) {
  const { place } = refusal.fields;
  const twiceInDeck = refusal.refused === "entry.refused.twice" && place.target.kind === "deck";
  return words.sentence(twiceInDeck ? "entry.refused.twice_deck" : refusal.refused, {
    card: entry.deck.label(code),
    place: place ? placeName(words, place.target, names, place.index ?? null) : "",
    dealer: names[entry.dealer],
  });
}
