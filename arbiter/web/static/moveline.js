// The moves of a deal in the editor as a line with a cursor: the moves before the cursor are
// made, the ones after it are there to redo. Undo and redo move the cursor; playing the line's
// next move again is a redo; a different move before the end of the line is a "what if", and
// the line it left is kept (once: a what-if inside a what-if keeps the first line) to go back
// to. No DOM and no requests: the editor's state (editorstate.js) asks about the line.

const sameMove = (a, b) => Boolean(a && b) && JSON.stringify(a) === JSON.stringify(b);

export class MoveLine {
  /** `moves`: the line (a log's events); `cursor`: how many of them are made. */
  constructor(moves = [], cursor = moves.length) {
    this.moves = moves.slice();
    this.cursor = Math.max(0, Math.min(cursor, this.moves.length));
    this.original = null; // {moves, cursor}: the line a "what if" left
  }

  /** The moves made. */
  get events() {
    return this.moves.slice(0, this.cursor);
  }

  /** Make `move` at the cursor. */
  play(move) {
    if (sameMove(this.moves[this.cursor], move)) {
      this.cursor += 1;
      return;
    }
    if (this.cursor < this.moves.length && !this.original) {
      this.original = { moves: this.moves, cursor: this.moves.length };
    }
    this.moves = [...this.moves.slice(0, this.cursor), move];
    this.cursor = this.moves.length;
  }

  canUndo() {
    return this.cursor > 0;
  }

  canRedo() {
    return this.cursor < this.moves.length;
  }

  undo() {
    if (this.canUndo()) this.cursor -= 1;
  }

  redo() {
    if (this.canRedo()) this.cursor += 1;
  }

  /** Back (or on) to the point where `count` moves had been made; the rest stays to redo. */
  goTo(count) {
    this.cursor = Math.max(0, Math.min(this.moves.length, count));
  }

  /** Leave the "what if" for the line it started from, as it was. */
  backToOriginal() {
    if (!this.original) return;
    ({ moves: this.moves, cursor: this.cursor } = this.original);
    this.original = null;
  }
}
