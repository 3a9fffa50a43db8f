// A deal being played in the editor: the entered cards (entry.js), the moves made, and what the
// referee says of them. Nothing is judged here: each proposed move goes to /v1/moves/validate
// with the state_id of the position (the service keeps nothing), and the position after every
// change is the last of the steps of /v1/replays for the log so far.
//
// The moves are a line with a cursor: undo and redo move the cursor; a different move played
// before the end of the line is a "what if", and the line it left is kept to go back to.

import { ServiceError, replay, validate } from "./service.js";

const sameMove = (a, b) => a && b && JSON.stringify(a) === JSON.stringify(b);

export class PlaySession {
  /** `header`: the log's ruleset, options, notation and players; `before`: the deals played
   *  before this one (from a loaded log, kept as they were). */
  constructor(header, entry, before = []) {
    this.header = header;
    this.entry = entry;
    this.before = before;
    this.line = [];
    this.cursor = 0;
    this.original = null; // {line, cursor}: the line a "what if" left
    this.answer = null;
    this.stateId = null;
  }

  get events() {
    return this.line.slice(0, this.cursor);
  }

  /** The log so far (docs/api.md), the unknown slots filled by `fill` (the representative
   *  filling by default), with the moves up to `count`. */
  log(fill = this.entry.representative(), count = this.cursor) {
    const deal = { ...this.entry.setup(fill), events: this.line.slice(0, count) };
    return { ...this.header, deals: [...this.before, deal] };
  }

  /** The cards the representative filling puts where nobody knows the card. */
  fillers() {
    return new Set(this.entry.representative().values());
  }

  /** Ask for the position after the moves so far (throws a ServiceError the caller shows). */
  async refresh() {
    this.answer = await replay(this.log());
    this.stateId = this.answer.state_id;
    return this.answer;
  }

  get deal() {
    return this.answer.deals[this.answer.deals.length - 1];
  }

  /** The position now: the last step of this deal. */
  get view() {
    const { steps } = this.deal;
    return steps[steps.length - 1];
  }

  /** Judge `move` on the position now; play it when the referee lets it be played (a
   *  renuncio is played: the table plays on). Returns the verdict. */
  async propose(move) {
    const verdict = await this.judge(move);
    if (verdict.verdict === "illegal") return verdict;
    this.play(move);
    await this.refresh();
    return verdict;
  }

  /** The referee's verdict on `move`: by the position's state_id, and by the whole log when
   *  the server cannot open that token (409: its secret rotated, say), as docs/api.md says. */
  async judge(move) {
    if (this.stateId) {
      try {
        return await validate({ state_id: this.stateId, move });
      } catch (error) {
        if (!(error instanceof ServiceError && error.status === 409)) throw error;
        this.stateId = null;
      }
    }
    return validate({ ...this.log(), move });
  }

  play(move) {
    if (sameMove(this.line[this.cursor], move)) {
      this.cursor += 1;
      return;
    }
    if (this.cursor < this.line.length && !this.original) this.original = { line: this.line, cursor: this.line.length };
    this.line = [...this.line.slice(0, this.cursor), move];
    this.cursor = this.line.length;
  }

  canUndo() {
    return this.cursor > 0;
  }

  canRedo() {
    return this.cursor < this.line.length;
  }

  async undo() {
    if (!this.canUndo()) return;
    this.cursor -= 1;
    await this.refresh();
  }

  async redo() {
    if (!this.canRedo()) return;
    this.cursor += 1;
    await this.refresh();
  }

  /** Back to the point where `count` moves had been made (the rest stays to redo). */
  async goTo(count) {
    this.cursor = Math.max(0, Math.min(this.line.length, count));
    await this.refresh();
  }

  /** Leave the "what if" for the line it started from, as it was. */
  async backToOriginal() {
    if (!this.original) return;
    ({ line: this.line, cursor: this.cursor } = this.original);
    this.original = null;
    await this.refresh();
  }
}
