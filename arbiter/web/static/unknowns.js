// What the ruling of an entered deal depends on when some cards are not known.
//
// An unknown card is never one that was played (a card played is named when it is played), so
// the tricks — who played what, who won — are known, and so is every call. What a player held
// is what is not: and whether a play was a renuncio depends only on the hand of the player who
// made it. So, seat by seat, the referee is asked about every hand the seat may have held (its
// unknown places filled with each possible set of the cards nobody has placed, the other seats
// filled with the rest), all in one /v1/scores/batch request, and the seat's renuncio findings
// are compared across those cases. A seat with too many possible hands is not checked, and the
// page says so. Nothing here judges a play: every finding is the referee's. No DOM and no
// requests of its own: the batch goes through the `ask` it is given.

/** At most this many logs are sent for one check (one batch request). */
export const CHECK_LIMIT = 600;

function combinations(items, size) {
  const out = [];
  const pick = (start, chosen) => {
    if (chosen.length === size) {
      out.push(chosen.slice());
      return;
    }
    for (let i = start; i <= items.length - (size - chosen.length); i++) {
      chosen.push(items[i]);
      pick(i + 1, chosen);
      chosen.pop();
    }
  };
  pick(0, []);
  return out;
}

function binomial(n, k) {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return Math.round(result);
}

/** The seat each unknown slot belongs to: a hand's seat, or who drew that card of the stock
 *  (from the answer's draws); null for a stock card nobody has drawn. */
export function unknownSlotSeats(state) {
  const drawn = state.deal.tricks.flatMap((trick) => trick.draws.map((draw) => draw.seat));
  return state.entry.unknownSlots().map((slot) => ({
    ...slot,
    seat: slot.id === "stock" ? (drawn[slot.index] ?? null) : slot.seat,
  }));
}

/** A filling where `seatSlots` get `holding` and every other unknown slot the rest. */
function fillingWith(slots, seatSlots, holding, candidates) {
  const fill = new Map();
  const rest = candidates.filter((code) => !holding.includes(code));
  seatSlots.forEach((slot, i) => fill.set(`${slot.id}/${slot.index}`, holding[i]));
  let next = 0;
  for (const slot of slots) {
    const key = `${slot.id}/${slot.index}`;
    if (!fill.has(key)) fill.set(key, rest[next++]);
  }
  return fill;
}

/** The seats holding unknown slots, by seat: {seat, slots, unknown, cases (their count)}. */
function seatsOf(slots, candidates) {
  const bySeat = new Map();
  for (const slot of slots) {
    if (slot.seat === null) continue;
    if (!bySeat.has(slot.seat)) bySeat.set(slot.seat, []);
    bySeat.get(slot.seat).push(slot);
  }
  return [...bySeat.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([seat, seatSlots]) => ({
      seat,
      slots: seatSlots,
      unknown: seatSlots.length,
      cases: binomial(candidates.length, seatSlots.length),
    }));
}

/**
 * The check of an entered deal with unknown cards (null when no player holds one):
 * {candidates, seats: [{seat, unknown, cases, checked, findings: [{event, trick, obligations,
 * cases: count with it, trigger: cards that make it}]}], outcome}. `state`: the editor's
 * {entry, deal (the answer's), log(fill)}; `ask(logs)`: their answers of /v1/scores/batch.
 */
export async function checkUnknowns(state, ask) {
  const slots = unknownSlotSeats(state);
  const candidates = state.entry.candidates();
  const seats = seatsOf(slots, candidates);
  // none: no card is unknown, or only cards of the stock nobody has drawn (nothing depends on them)
  if (!seats.length) return null;
  let budget = CHECK_LIMIT;
  const asked = [];
  for (const seat of seats) {
    seat.checked = seat.cases <= budget;
    if (!seat.checked) continue;
    budget -= seat.cases;
    for (const holding of combinations(candidates, seat.unknown)) {
      const log = state.log(fillingWith(slots, seat.slots, holding, candidates));
      asked.push({ seat, holding, log });
    }
  }
  const answers = asked.length ? await ask(asked.map((a) => a.log)) : [];
  asked.forEach((a, i) => {
    a.answer = answers[i];
  });
  for (const seat of seats.filter((s) => s.checked)) {
    Object.assign(
      seat,
      findingsOf(
        seat.seat,
        asked.filter((a) => a.seat === seat),
      ),
    );
  }
  return { candidates, seats, outcome: outcomeStands(state.deal, seats) };
}

/**
 * A seat's renuncios across its possible hands. `cases`: [{holding, answer}], the answer to the
 * log where the seat held `holding`. Gives {cases: how many were answered, inconsistent: how many
 * the referee refused, findings: [{event, trick, obligations, cases: how many have it, trigger}]}
 * (trigger: triggerCards).
 */
export function findingsOf(seat, cases) {
  const usable = cases.filter((c) => c.answer && !c.answer.error && c.answer.status !== "invalid");
  const found = new Map();
  const read = usable.map((c) => {
    const events = new Set();
    for (const v of c.answer.deals.at(-1).violations) {
      if (v.seat !== seat) continue;
      events.add(v.event);
      if (!found.has(v.event)) {
        found.set(v.event, { event: v.event, trick: v.trick, obligations: new Set(), cases: 0 });
      }
      const finding = found.get(v.event);
      finding.obligations.add(v.obligation);
      finding.cases += 1;
    }
    return { holding: c.holding, events };
  });
  for (const finding of found.values()) finding.trigger = triggerCards(read, finding.event);
  return {
    cases: usable.length,
    inconsistent: cases.length - usable.length,
    findings: [...found.values()].sort((a, b) => a.event - b.event),
  };
}

/**
 * The cards that make the renuncio at `event` stand, when "it stands if and only if the seat
 * held one of them" is what the cases show: every case holding one of them has it, and every
 * case with it holds one. Null when no set of cards explains the cases so. `cases`: [{holding,
 * events}], the events of the seat's renuncios when it held `holding`.
 */
export function triggerCards(cases, event) {
  const cards = new Set(cases.flatMap((c) => c.holding));
  const trigger = [...cards].filter((code) =>
    cases.every((c) => !c.holding.includes(code) || c.events.has(event)),
  );
  const explains = cases.every(
    (c) => c.events.has(event) === c.holding.some((code) => trigger.includes(code)),
  );
  return explains ? trigger : null;
}

/**
 * Whether the deal's outcome is the same in every case the check of the unknown cards asked
 * about: "stands", "depends", or "open" when some seat was not checked. The outcome is that of
 * the event the position says decided the deal (`decided`: a renuncio or a tute), or the play's
 * when none did; so a renuncio a seat may have made before it (or at all, when none did) may
 * decide it instead, and so may the deciding renuncio's not standing in every case. `seats`:
 * the check's seats with their findings.
 */
export function outcomeStands(deal, seats) {
  if (seats.some((s) => !s.checked)) return "open";
  const { decided } = deal.steps.at(-1);
  for (const seat of seats) {
    if (seat.findings.some((f) => decided === null || f.event < decided.event)) return "depends";
    if (decided?.kind === "renuncio" && decided.seat === seat.seat) {
      const decisive = seat.findings.find((f) => f.event === decided.event);
      if (!decisive || decisive.cases < seat.cases) return "depends";
    }
  }
  return "stands";
}
