// Cards drawn as SVG from the page's own symbols (templates/web/cards.svg): the suit in the
// corners and as pips (1-7), a figure for sota/caballo/rey (J/Q/K in French notation).
// A card is an ordinary <span class="card" data-card="4C" role="img"> holding an <svg>, or a
// <button> with the same face when it can be tapped; its name in words (from the server's
// catalogue, arbiter.i18n) is its accessible name and tooltip. The codes, faces and names are a
// Deck's (deck.js).

const SVG = "http://www.w3.org/2000/svg";
const W = 60;
const H = 90;

// Pip centres for ranks 1-7, inside the column the corner indexes leave free.
const PIPS = {
  1: [[30, 45]],
  2: [
    [30, 24],
    [30, 66],
  ],
  3: [
    [30, 20],
    [30, 45],
    [30, 70],
  ],
  4: [
    [23, 26],
    [37, 26],
    [23, 64],
    [37, 64],
  ],
  5: [
    [23, 24],
    [37, 24],
    [30, 45],
    [23, 66],
    [37, 66],
  ],
  6: [
    [23, 20],
    [37, 20],
    [23, 45],
    [37, 45],
    [23, 70],
    [37, 70],
  ],
  7: [
    [23, 18],
    [37, 18],
    [30, 31],
    [23, 45],
    [37, 45],
    [23, 70],
    [37, 70],
  ],
};
const FIGURES = {
  spanish: { 10: "fig-jack", 11: "fig-horse", 12: "fig-king" },
  french: { 10: "fig-jack", 11: "fig-queen", 12: "fig-king" },
};
const INK = {
  spanish: ["#8a6412", "#b3271d", "#1f4a8a", "#22662a"],
  french: ["#c0251f", "#c0251f", "#1d1d1f", "#1d1d1f"],
};

function node(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

function use(id, cx, cy, size) {
  return node("use", {
    href: `#${id}`,
    x: cx - size / 2,
    y: cy - size / 2,
    width: size,
    height: size,
  });
}

function corner(label, suitId, ink) {
  const g = node("g", {});
  const text = node("text", {
    x: 9,
    y: 17,
    "text-anchor": "middle",
    "font-size": label.length > 1 ? 13 : 16,
    "font-weight": 700,
    "font-family": "system-ui, sans-serif",
    fill: ink,
  });
  text.textContent = label;
  g.append(text, use(suitId, 9, 27, 11));
  return g;
}

/** The <svg> face of one card: `face` is [rank, suit] from the page data. */
export function cardSvg(code, face, notation) {
  const [rank, suit] = face;
  const suitId = `suit-${notation}-${suit}`;
  const ink = INK[notation][suit];
  const label = code.slice(0, -1);
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, "aria-hidden": "true", focusable: "false" });
  svg.append(
    node("rect", {
      x: 1,
      y: 1,
      width: W - 2,
      height: H - 2,
      rx: 5,
      fill: "#fffdf7",
      stroke: "#4a4a4a",
      "stroke-width": 1.5,
    }),
  );
  const top = corner(label, suitId, ink);
  const bottom = corner(label, suitId, ink);
  bottom.setAttribute("transform", `rotate(180 ${W / 2} ${H / 2})`);
  svg.append(top, bottom);
  if (PIPS[rank]) {
    const size = rank === 1 ? 30 : 13;
    for (const [x, y] of PIPS[rank]) svg.append(use(suitId, x, y, size));
  } else {
    svg.append(
      node("rect", {
        x: 17,
        y: 9,
        width: 26,
        height: 72,
        rx: 3,
        fill: "none",
        stroke: ink,
        "stroke-width": 1.5,
      }),
    );
    svg.append(use(FIGURES[notation][rank], 30, 33, 24), use(suitId, 30, 63, 16));
  }
  return svg;
}

function dress(node, code, deck) {
  node.classList.add("card");
  node.dataset.card = code;
  const face = deck.face(code);
  const label = deck.label(code);
  node.title = label;
  if (face) {
    node.append(cardSvg(code, face, deck.notation));
  } else {
    node.classList.add("unknown");
    node.append(document.createTextNode(code));
  }
  return label;
}

/**
 * A card element (an image named by its words). Unknown codes (a log may hold anything) are
 * drawn as a blank card with the code as text.
 */
export function cardElement(code, deck) {
  const span = document.createElement("span");
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", dress(span, code, deck));
  return span;
}

/** A card that can be tapped: a <button> named by the card's words (and `extra`, if any). The
 *  name is the button's own (visually hidden) text, so that the face's corner index is no
 *  other label for it. */
export function cardButton(code, deck, onClick, extra = "") {
  const node = document.createElement("button");
  node.type = "button";
  const label = dress(node, code, deck);
  node.append(hiddenText(extra ? `${label} — ${extra}` : label));
  node.addEventListener("click", onClick);
  return node;
}

function hiddenText(text) {
  const span = document.createElement("span");
  span.className = "sr-only";
  span.textContent = text;
  return span;
}

/** A card face down: one the table does not know («?»), tappable when `onClick` is given. */
export function unknownCard(label, onClick = null) {
  const node = document.createElement(onClick ? "button" : "span");
  node.className = "card hidden-card";
  node.dataset.card = "?";
  node.title = label;
  const mark = document.createElement("span");
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = "?";
  node.append(mark);
  if (onClick) {
    node.type = "button";
    node.append(hiddenText(label));
    node.addEventListener("click", onClick);
  } else {
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", label);
  }
  return node;
}
