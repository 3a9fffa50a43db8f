// What the ruling of an entered deal depends on when some cards are not known.
//
// An unknown card is never one that was played (a card played is named when it is played), so
// the tricks — who played what, who won — are known, and so is every call. What a player held
// is what is not: and whether a play was a renuncio depends only on the hand of the player who
// made it. So, seat by seat, the referee is asked about every hand the seat may have held (its
// unknown places filled with each possible set of the cards nobody has placed, the other seats
// filled with the rest), all in one /v1/scores/batch request, and the seat's renuncio findings
// are compared across those cases. A seat with too many possible hands is not checked, and the
// page says so. Nothing here judges a play: every finding is the referee's.

import { scoreMany } from "./service.js";

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
function slotSeats(session) {
  const drawn = session.deal.tricks.flatMap((trick) => trick.draws.map((draw) => draw.seat));
  return session.entry.unknownSlots().map((slot) => ({
    ...slot,
    seat: slot.id === "stock" ? drawn[slot.index] ?? null : slot.seat,
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

/**
 * The check of an entered deal with unknown cards (null when no player holds one):
 * {candidates, seats: [{seat, unknown, cases, checked, findings: [{event, trick, obligations,
 * cases: count with it, trigger: cards that make it}]}], shownFindings, outcome}.
 */
export async function checkUnknowns(session) {
  const slots = slotSeats(session);
  if (!slots.length) return null;
  const candidates = session.entry.candidates();
  const bySeat = new Map();
  for (const slot of slots) {
    if (slot.seat === null) continue;
    if (!bySeat.has(slot.seat)) bySeat.set(slot.seat, []);
    bySeat.get(slot.seat).push(slot);
  }
  const seats = [...bySeat.entries()].sort((a, b) => a[0] - b[0]).map(([seat, seatSlots]) => ({
    seat, slots: seatSlots, unknown: seatSlots.length, cases: binomial(candidates.length, seatSlots.length),
  }));
  if (!seats.length) return null; // only cards of the stock nobody has drawn: nothing depends on them
  let budget = CHECK_LIMIT;
  const asked = [];
  for (const seat of seats) {
    seat.checked = seat.cases <= budget;
    if (!seat.checked) continue;
    budget -= seat.cases;
    seat.holdings = combinations(candidates, seat.unknown);
    for (const holding of seat.holdings) asked.push({ seat, holding, log: session.log(fillingWith(slots, seat.slots, holding, candidates)) });
  }
  const answers = asked.length ? await scoreMany(asked.map((a) => a.log)) : [];
  asked.forEach((a, i) => {
    a.answer = answers[i];
  });
  for (const seat of seats.filter((s) => s.checked)) seat.findings = findingsOf(seat, asked.filter((a) => a.seat === seat));
  return { candidates, seats, outcome: outcomeStands(session, seats) };
}

/** The seat's renuncios across its possible hands: in how many each stands, and which cards
 *  make it stand (when "it stands if and only if the seat held one of them" is what the cases
 *  show). */
function findingsOf(seat, cases) {
  const usable = cases.filter((c) => c.answer && !c.answer.error && c.answer.status !== "invalid");
  seat.inconsistent = cases.length - usable.length;
  seat.cases = usable.length;
  const found = new Map();
  for (const c of usable) {
    const deal = c.answer.deals[c.answer.deals.length - 1];
    c.events = new Set();
    for (const v of deal.violations.filter((v) => v.seat === seat.seat)) {
      c.events.add(v.event);
      if (!found.has(v.event)) found.set(v.event, { event: v.event, trick: v.trick, obligations: new Set(), cases: 0 });
      const finding = found.get(v.event);
      finding.obligations.add(v.obligation);
      finding.cases += 1;
    }
  }
  for (const finding of found.values()) finding.trigger = triggerCards(usable, finding.event);
  return [...found.values()].sort((a, b) => a.event - b.event);
}

function triggerCards(cases, event) {
  const cards = new Set(cases.flatMap((c) => c.holding));
  const trigger = [...cards].filter((code) => cases.every((c) => !c.holding.includes(code) || c.events.has(event)));
  const explains = cases.every((c) => c.events.has(event) === c.holding.some((code) => trigger.includes(code)));
  return explains ? trigger : null;
}

/**
 * Whether the deal's outcome (decided by its first renuncio, or by the play when there is none)
 * is the same in every case: "stands", "depends", or "open" when some seat was not checked.
 */
function outcomeStands(session, seats) {
  if (seats.some((s) => !s.checked)) return "open";
  const first = session.deal.violations[0] ?? null;
  for (const seat of seats) {
    // a renuncio that may come before the one found (or at all, when none was) may decide it
    if (seat.findings.some((f) => first === null || f.event < first.event)) return "depends";
    if (first && first.seat === seat.seat) {
      const decisive = seat.findings.find((f) => f.event === first.event);
      if (!decisive || decisive.cases < seat.cases) return "depends";
    }
  }
  return "stands";
}
