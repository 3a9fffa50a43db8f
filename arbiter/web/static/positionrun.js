// Play from a position (a deal started from the disputed trick, positionentry.js): each move is
// judged by POST /v1/moves/validate on the position now (`{position, move}`), and an allowed
// move's answer carries the next position, which the next move is judged on; a renuncio's
// answer carries the position after it (`after`, the renuncio recorded), so play goes on from
// there as it does in a log. The positions of the moves made are kept, so a move can be undone.
// Nothing is judged here. No DOM.

/**
 * A first question about the position given: the referee checks it whole (a fault comes back
 * as a 422 naming each field) and answers what the seat to act may do. The move asked about is
 * any card of the position, its verdict not shown: only the check and `legal_moves` count.
 */
function firstQuestion(position, anyCard) {
  const seat = position.hands.findIndex((hand) => hand.length);
  const card = seat >= 0 ? position.hands[seat][0] : anyCard;
  return { type: "play", seat: Math.max(seat, 0), card };
}

/** A position as the page shows it: the referee's (after a move), or the one given with what
 *  the referee answered of it (who acts, what may be done). */
function shownPosition(position, legalMoves) {
  const turn = legalMoves.length ? legalMoves[0].seat : null;
  const declarations = legalMoves.filter((move) => move.type !== "play");
  return { ...position, turn, legal_moves: legalMoves, declarations };
}

export class PositionRun {
  /** `service`: a Service (service.js). */
  constructor(service) {
    this.service = service;
    this.start = null; // the position as entered
    this.steps = []; // [{view, move, verdict}]: the position given, then after each move made
    this.verdict = null; // the verdict on the last move proposed (ok, renuncio or refused)
    this.stopped = false; // a renuncio the referee gave no position after (play stops there)
  }

  /** The position shown now. */
  get view() {
    return this.steps.at(-1).view;
  }

  /** The moves made from the position given (a renuncio that stopped play last). */
  get moves() {
    return this.ruling().map((made) => made.move);
  }

  /** Begin from `position` (throws the ServiceError of a refused position, its faults in it). */
  async begin(position, anyCard) {
    const answer = await this.service.validate({
      position,
      move: firstQuestion(position, anyCard),
    });
    this.start = position;
    this.steps = [{ view: shownPosition(position, answer.legal_moves ?? []), move: null }];
    this.verdict = null;
    this.stopped = false;
    return answer;
  }

  /** Judge `move` on the position now: allowed, the position after it is the one shown; a
   *  renuncio is said, and play goes on from the position after it (the renuncio recorded in
   *  it) — or stops there when the answer gives none; a refused move changes nothing. */
  async propose(move) {
    const body = { position: this.positionNow(), move };
    const verdict = await this.service.validate(body);
    this.verdict = verdict;
    const next = verdict.verdict === "renuncio" ? verdict.after?.position : verdict.position;
    if ((verdict.verdict === "ok" || verdict.verdict === "renuncio") && next) {
      this.steps.push({ view: next, move, verdict });
    } else if (verdict.verdict === "renuncio") {
      this.stopped = true;
      this.renuncio = { move, verdict };
    }
    return verdict;
  }

  /** The position to judge the next move on: the referee's last, or the one given. */
  positionNow() {
    return this.steps.length > 1 ? this.steps.at(-1).view : this.start;
  }

  /** Take back the last move (a renuncio too). */
  undo() {
    this.verdict = null;
    if (this.stopped) {
      this.stopped = false;
      this.renuncio = null;
    } else if (this.steps.length > 1) this.steps.pop();
  }

  canUndo() {
    return this.stopped || this.steps.length > 1;
  }

  /** Play `moves` again from the position given (a draft reopened): each judged as it was,
   *  as far as play went on. */
  async replay(moves) {
    for (const move of moves) {
      await this.propose(move);
      if (this.stopped || this.verdict.verdict === "illegal") break;
    }
  }

  /** The renuncios played from the position given, as the referee recorded them in the
   *  position now ({seat, card, trick, obligation, …}): each kept red on its trick. */
  renuncios() {
    const given = this.start?.renuncios?.length ?? 0;
    return (this.view.renuncios ?? []).slice(given);
  }

  /** What the ruling says, move by move: [{move, verdict}] (a renuncio that stopped play last). */
  ruling() {
    const made = this.steps.slice(1).map(({ move, verdict }) => ({ move, verdict }));
    return this.stopped ? [...made, this.renuncio] : made;
  }
}
