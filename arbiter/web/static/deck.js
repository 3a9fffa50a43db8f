// The cards of one notation as the server describes them (the page data's `cards`): their codes,
// faces and names in words. Nothing about the game (strength, points) is known here. No DOM:
// cards.js draws them.

export class Deck {
  /** `cards`: the page data's `cards` (both notations); `words`: the Words naming them. */
  constructor(cards, notation, words) {
    this.notation = notation === "french" ? "french" : "spanish";
    this.data = cards[this.notation];
    this.other = cards[this.notation === "french" ? "spanish" : "french"];
    this.words = words;
  }

  /** The code of this notation for a card written in either ("1O" or "AD" for the as de
   *  oros, any case), or null when it is no card. */
  canonAny(code) {
    const own = this.canon(code);
    if (this.face(own)) return own;
    const inOther = this.other?.inputs[code] ?? this.other?.inputs[String(code).toUpperCase()];
    return inOther ? this.code(this.other.codes.indexOf(inOther)) : null;
  }

  /** The code written back for any accepted input (lower case, French symbols...). */
  canon(code) {
    const { inputs } = this.data;
    return inputs[code] ?? inputs[String(code).toUpperCase()] ?? String(code);
  }

  /** The code of card number `n` (0-39, the engine's numbering). */
  code(n) {
    return this.data.codes[n];
  }

  /** [rank, suit index] of a card, or undefined for a code that is no card. */
  face(code) {
    return this.data.faces[code];
  }

  /** «la sota de oros»: the card in a sentence. */
  name(code) {
    return this.data.names[this.words.lang][code] ?? String(code);
  }

  /** «sota de oros»: the card shown alone (its accessible name). */
  label(code) {
    return this.data.labels[this.words.lang][code] ?? String(code);
  }

  /** The suit letter of a card (O, C, E, B or D, H, S, C), or null for an unknown code. */
  suitOf(code) {
    const face = this.face(code);
    return face ? this.data.suits[face[1]] : null;
  }

  /** The code of the card of `rank` (1-12) in the suit `letter`. */
  codeOf(rank, letter) {
    const suit = this.data.suits.indexOf(String(letter).toUpperCase());
    return Object.keys(this.data.faces).find((code) => {
      const [r, s] = this.data.faces[code];
      return r === rank && s === suit;
    });
  }

  suitName(letter) {
    const index = this.data.suits.indexOf(String(letter).toUpperCase());
    return this.data.suit_names[this.words.lang][index] ?? String(letter);
  }

  suits() {
    return this.data.suits;
  }
}
