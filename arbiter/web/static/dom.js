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
