// A log in a link: `#log=<base64url of its UTF-8 JSON>` (padding optional), followed by where to
// look: `&deal=3&trick=6` (counted from 1, as people count) or `&event=12` (the editor's place in
// the deal). The fragment never reaches the server.

export function encodeLog(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeLog(encoded) {
  let base64 = encoded.trim().replace(/-/g, "+").replace(/_/g, "/");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new Error("not base64url");
  base64 = base64.replace(/=+$/, "");
  while (base64.length % 4) base64 += "=";
  const binary = atob(base64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/** The parts of a `#log=…&key=value` fragment (or of the compact `#c=…`): {log (encoded) or
 *  compact, deal, trick, event} or null. */
export function readFragment(hash) {
  const match = /^#(log|c)=([^&]*)((?:&[a-z]+=[^&]*)*)$/s.exec(hash);
  if (!match) return null;
  const place = {};
  for (const pair of match[3].split("&").filter(Boolean)) {
    const [key, value] = pair.split("=");
    if (/^\d+$/.test(value)) place[key] = Number(value);
  }
  const payload = decodeURIComponent(match[2]);
  return match[1] === "c" ? { compact: payload, ...place } : { log: payload, ...place };
}

/** The fragment for a log, and a place in it ({deal, trick} or {event}). */
export function writeFragment(logText, place = {}) {
  const parts = [`log=${encodeLog(logText)}`];
  for (const [key, value] of Object.entries(place)) {
    if (value !== undefined && value !== null) parts.push(`${key}=${value}`);
  }
  return `#${parts.join("&")}`;
}

/** A log as the pages write it: compact JSON (links stay short). */
export function logText(log) {
  return JSON.stringify(log);
}

// --- the compact form: `#c=…` -----------------------------------------------------------------
//
// A link of one deal in a few hundred characters (docs/api.md, "Short links"): base64url of the
// UTF-8 JSON {"v": 1, "r": ruleset, "p": players, "o": options, "n": "french", "d": [deal...]},
// each deal one string of segments joined by ".": the dealer's seat ("-" when the log gives
// none); then "D" and the deck, or "H" and the hands joined by ",", "S" the stock and "T" the
// trump card; "E" the events; "U" the cards marked unknown. A card is one character: the
// engine's card number (0-39) in the alphabet below. An event: a card (played by the seat that
// holds it), "~" seat card (played by another seat), "!" seat suit (a cante), "^" seat "k"/"h"
// (a tute of kings or horses), "*" seat (the exchange). A log with anything else (another
// field of a deal or an event, a card that is no card) has no compact form: its link is #log=.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const COMPACT_VERSION = 1;
const DEAL_FIELDS = new Set([
  "dealer",
  "deck",
  "hands",
  "stock",
  "trump_card",
  "events",
  "unknown",
]);

class NoCompactForm extends Error {}

function cardCodec(cards, notation) {
  const table = cards[notation === "french" ? "french" : "spanish"];
  const number = (code) => {
    const canon =
      typeof code === "string" ? (table.inputs[code] ?? table.inputs[code.toUpperCase()]) : null;
    if (!canon) throw new NoCompactForm();
    return table.codes.indexOf(canon);
  };
  return {
    char: (code) => ALPHABET[number(code)],
    code: (char) => {
      const n = ALPHABET.indexOf(char);
      if (n < 0 || n >= table.codes.length) throw new Error(`no card ${char}`);
      return table.codes[n];
    },
    cards: (list) => {
      if (!Array.isArray(list)) throw new NoCompactForm();
      return list.map((code) => ALPHABET[number(code)]).join("");
    },
    suits: table.suits,
  };
}

const SEAT = /^[0-9]$/;
const seatOf = (seat) => {
  if (!Number.isInteger(seat) || seat < 0 || seat > 9) throw new NoCompactForm();
  return String(seat);
};

/** How each kind of event is written: its fields (sorted) and its text, or null. */
const WRITERS = {
  play: [
    "card,seat,type",
    (e, codec, holder, seat) => {
      const card = codec.char(e.card);
      return holder.get(card) === e.seat ? card : `~${seat}${card}`;
    },
  ],
  sing: [
    "seat,suit,type",
    (e, codec, _, seat) => codec.suits.includes(e.suit) && `!${seat}${e.suit}`,
  ],
  tute: [
    "of,seat,type",
    (e, _, __, seat) => ["kings", "horses"].includes(e.of) && `^${seat}${e.of[0]}`,
  ],
  exchange: ["seat,type", (_, __, ___, seat) => `*${seat}`],
};

function eventText(event, codec, holder) {
  const writer = event && Object.hasOwn(WRITERS, event.type) ? WRITERS[event.type] : null;
  if (!writer || Object.keys(event).sort().join(",") !== writer[0]) throw new NoCompactForm();
  const text = writer[1](event, codec, holder, seatOf(event.seat));
  if (!text) throw new NoCompactForm();
  return text;
}

/** The segments of a deal's cards: "D" the deck, or "H" the hands, "S" the stock, "T" the
 *  trump card; `holder` learns who was dealt each card. */
function cardParts(deal, codec, holder) {
  if (deal.deck !== undefined) return [`D${codec.cards(deal.deck)}`];
  if (!Array.isArray(deal.hands)) throw new NoCompactForm();
  const hands = deal.hands.map((hand) => codec.cards(hand));
  hands.forEach((hand, seat) => [...hand].forEach((card) => holder.set(card, seat)));
  const parts = [`H${hands.join(",")}`];
  if (deal.stock !== undefined) parts.push(`S${codec.cards(deal.stock)}`);
  if (deal.trump_card !== undefined) parts.push(`T${codec.char(deal.trump_card)}`);
  return parts;
}

function dealText(deal, codec) {
  if (!deal || typeof deal !== "object" || Object.keys(deal).some((k) => !DEAL_FIELDS.has(k))) {
    throw new NoCompactForm();
  }
  const holder = new Map(); // who was dealt each card (a deck's holders are the referee's to say)
  const parts = [deal.dealer === undefined ? "-" : seatOf(deal.dealer)];
  parts.push(...cardParts(deal, codec, holder));
  const events = deal.events ?? [];
  if (!Array.isArray(events)) throw new NoCompactForm();
  parts.push(`E${events.map((event) => eventText(event, codec, holder)).join("")}`);
  if (deal.unknown !== undefined) parts.push(`U${codec.cards(deal.unknown)}`);
  return parts.join(".");
}

/** The compact form of `log` (the text after `#c=`), or null when it has none. `cards`: the
 *  page data's `cards`. */
export function compactLog(log, cards) {
  try {
    const codec = cardCodec(cards, log.notation);
    const out = { v: COMPACT_VERSION, r: log.ruleset, p: log.players };
    if (log.options !== undefined) out.o = log.options;
    if (log.notation !== undefined) out.n = log.notation;
    if (log.details !== undefined) out.t = log.details;
    if (!Array.isArray(log.deals)) return null;
    out.d = log.deals.map((deal) => dealText(deal, codec));
    return encodeLog(JSON.stringify(out));
  } catch (error) {
    if (error instanceof NoCompactForm) return null;
    throw error;
  }
}

/** How each mark of an event is read: its length and the event. */
const READERS = {
  "~": [3, (seat, arg, codec) => ({ type: "play", seat, card: codec.code(arg) })],
  "!": [3, (seat, arg) => ({ type: "sing", seat, suit: arg })],
  "^": [3, (seat, arg) => ({ type: "tute", seat, of: arg === "k" ? "kings" : "horses" })],
  "*": [2, (seat) => ({ type: "exchange", seat })],
};

function readEvents(text, codec, holder) {
  const events = [];
  for (let i = 0; i < text.length;) {
    const mark = text[i];
    const reader = READERS[mark];
    if (!reader) {
      events.push({ type: "play", seat: holder.get(mark) ?? 0, card: codec.code(mark) });
      i += 1;
      continue;
    }
    if (!SEAT.test(text[i + 1] ?? "")) throw new Error("a seat is a digit");
    events.push(reader[1](Number(text[i + 1]), text[i + 2], codec));
    i += reader[0];
  }
  return events;
}

function readDeal(text, codec) {
  const [dealer, ...segments] = text.split(".");
  const deal = dealer === "-" ? {} : { dealer: Number(dealer) };
  const holder = new Map();
  const cards = (chars) => [...chars].map((char) => codec.code(char));
  for (const segment of segments) {
    const [kind, body] = [segment[0], segment.slice(1)];
    if (kind === "D") deal.deck = cards(body);
    else if (kind === "H") {
      deal.hands = body.split(",").map((hand, seat) => {
        [...hand].forEach((char) => holder.set(char, seat));
        return cards(hand);
      });
    } else if (kind === "S") deal.stock = cards(body);
    else if (kind === "T") deal.trump_card = codec.code(body);
    else if (kind === "E") deal.events = readEvents(body, codec, holder);
    else if (kind === "U") deal.unknown = cards(body);
    else throw new Error(`no part ${kind}`);
  }
  return deal;
}

/** The log of a compact form (compactLog's text); throws when it is not one. */
export function expandLog(text, cards) {
  const data = JSON.parse(decodeLog(text));
  if (!data || data.v !== COMPACT_VERSION || !Array.isArray(data.d)) {
    throw new Error("not a compact log of this page");
  }
  const codec = cardCodec(cards, data.n);
  const log = { ruleset: data.r, players: data.p };
  if (data.o !== undefined) log.options = data.o;
  if (data.n !== undefined) log.notation = data.n;
  if (data.t !== undefined) log.details = data.t;
  log.deals = data.d.map((deal) => readDeal(String(deal), codec));
  return log;
}

/** The fragment that shares `log` (and a place in it): the compact form when the log has one,
 *  else #log=. */
export function shareFragment(log, cards, place = {}) {
  const compact = compactLog(log, cards);
  if (compact === null) return writeFragment(logText(log), place);
  return writeFragment("", place).replace(/^#log=/, `#c=${compact}`);
}

/** The log's JSON text of a fragment read by readFragment (either form). */
export function fragmentText(found, cards) {
  return found.compact !== undefined
    ? JSON.stringify(expandLog(found.compact, cards))
    : decodeLog(found.log);
}
