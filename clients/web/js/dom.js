// Tiny DOM helpers: build elements declaratively without a framework or innerHTML (so no text
// from the server is ever parsed as markup).

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "7 of hearts"}, "child", node, [more])
 * Attributes: `class`, `text`, `dataset` (object), `on<event>` (function), booleans (set when
 * true, omitted when false), anything else via setAttribute. Children: strings, nodes, arrays;
 * null/undefined/false are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `el` with `children`. */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/** Politely announce `text` to screen readers through the page's live region. */
let announceTimer = 0;
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region || !text) return;
  // Clearing first and writing a moment later makes a repeated sentence be read again.
  region.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/** Show a short message in the toast area (errors and hints); it fades after a while. */
let toastTimer = 0;
export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.hidden = true;
  }, 4000);
}

export function formatDate(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}
