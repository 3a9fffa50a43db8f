// The editor by keyboard alone: a card's code typed where cards are picked gives or plays it
// ("7C", "12O", "QH": as soon as the keys make a code, so no Enter is needed); the arrow keys move
// through the pack's rows and along a hand or the list of moves; Ctrl+Z and Ctrl+Y (⌘ too)
// undo and redo. Keys typed into a field of a form stay the field's.

/** The controls the arrow keys move between, from the focused one: a row of the pack, a hand,
 *  the list of moves. */
const GROUPS = ".picker, .hand-now, .moves";

function moveAlong(active, key) {
  const group = active.closest(GROUPS);
  if (!group) return false;
  const buttons = [...group.querySelectorAll("button:not([disabled])")];
  const at = buttons.indexOf(active);
  if (at < 0) return false;
  let next = null;
  if (key === "ArrowRight") next = buttons[at + 1];
  else if (key === "ArrowLeft") next = buttons[at - 1];
  else next = acrossRows(group, active, key === "ArrowDown" ? 1 : -1);
  if (!next) return false;
  next.focus();
  return true;
}

/** The control in the next (or previous) row of the pack at the same place, or the row's last. */
function acrossRows(group, active, step) {
  const rows = [...group.querySelectorAll(".pick-row")];
  const row = active.closest(".pick-row");
  const target = rows[rows.indexOf(row) + step];
  if (!row || !target) return null;
  const column = [...row.querySelectorAll("button")].indexOf(active);
  const buttons = [...target.querySelectorAll("button")];
  return buttons[Math.min(column, buttons.length - 1)] ?? null;
}

/**
 * The editor's keys on `root`'s document. `editor`: {phase(), canon(text) (a typed code as the
 * card's code, or null), undo(), redo()}.
 */
export function wireKeys(root, editor) {
  let typed = "";
  const type = (char) => {
    typed = (typed + char).slice(-3);
    // the longest code the last keys make: "12O" before "2O"; French figures are letters ("QH")
    const code = [3, 2]
      .map((n) => typed.length >= n && editor.canon(typed.slice(-n)))
      .find(Boolean);
    if (!code) return false;
    typed = "";
    const card =
      root.querySelector(`.prompt [data-pick-card="${code}"]`) ??
      root.querySelector(`.entry .picker [data-pick-card="${code}"]`) ??
      root.querySelector(`.hand-now [data-card="${code}"]`);
    if (!card) return false;
    card.click();
    return true;
  };
  const shortcut = (event) => {
    if (editor.phase() !== "play") return false;
    const key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) return editor.undo();
    if (key === "y" || key === "z") return editor.redo();
    return false;
  };
  const handle = (event) => {
    if (event.ctrlKey || event.metaKey) return shortcut(event);
    if (event.key.startsWith("Arrow")) return moveAlong(event.target, event.key);
    return /^[0-9a-z]$/i.test(event.key) && type(event.key);
  };
  root.ownerDocument.addEventListener("keydown", (event) => {
    if (event.target.closest?.("input, textarea, select") || event.altKey) return;
    if (handle(event)) event.preventDefault();
  });
}
