// Building the DOM: elements from a tag, attributes and children. Strings become text nodes or
// attribute values, never markup (the pages' Content-Security-Policy enforces it with Trusted
// Types).

/**
 * An element. `attrs`: "class", "text" (its text), "on" ({event: handler}), else attributes
 * (true: present and empty; null, undefined or false: left out).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) set(node, key, value);
  }
  append(node, children);
  return node;
}

function set(node, key, value) {
  if (key === "class") node.className = value;
  else if (key === "text") node.textContent = value;
  else if (key === "on") {
    for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
  } else node.setAttribute(key, value === true ? "" : String(value));
}

function append(node, children) {
  for (const child of children) {
    if (Array.isArray(child)) append(node, child);
    else if (child !== null && child !== undefined && child !== false) node.append(child);
  }
}

/** A <button type="button"> that calls `onClick`. */
export function button(attrs, text, onClick) {
  return el("button", { type: "button", ...attrs, text, on: { click: onClick } });
}

export const byId = (id) => document.getElementById(id);

/**
 * Scroll the least that shows `first` to `last` (two elements of the page, top to bottom) in
 * the window — or, when both do not fit, `last` with as much above it as fits — then give
 * `focus` the focus where it is: the next thing to do is in view and focused.
 */
export function bringIntoView(first, last, focus = null) {
  const margin = 8;
  const top = first.getBoundingClientRect().top - margin;
  const bottom = last.getBoundingClientRect().bottom + margin;
  const room = window.innerHeight;
  let by = 0;
  if (bottom - top <= room) {
    if (top < 0) by = top;
    else if (bottom > room) by = bottom - room;
  } else {
    by = bottom - room; // the work at the bottom of the screen, what leads to it above
  }
  if (by) window.scrollBy({ top: by, behavior: "instant" });
  if (focus) focus.focus({ preventScroll: true });
}
