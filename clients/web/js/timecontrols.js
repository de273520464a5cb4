// The time controls a match against a friend can have (the server's presets, docs/protocol.md,
// "Clocks, claims and rematches"), as a fieldset for the start page.

import { h } from "./dom.js";

export const TIME_CONTROLS = [
  { name: "none", label: "No clock", description: "Take all the time you like.", value: null },
  {
    name: "realtime",
    label: "Real time: 20 s a move + 2 min bank",
    description: "Run out and the server moves for you; three times in a row loses.",
    value: { kind: "realtime", move_seconds: 20, bank_seconds: 120 },
  },
  {
    name: "correspondence",
    label: "Correspondence: a day a move",
    description: "Come back when you like, within a day.",
    value: { kind: "correspondence", move_seconds: 86400, bank_seconds: 0 },
  },
];

export function clockFieldset(name) {
  return h(
    "fieldset",
    {},
    h("legend", {}, "Clock"),
    TIME_CONTROLS.map((tc, i) =>
      h(
        "label",
        { class: "choice" },
        h("input", { type: "radio", name, value: tc.name, checked: i === 0, required: true }),
        h("span", { class: "choice-text" }, h("strong", {}, tc.label), h("span", { class: "note" }, tc.description)),
      ),
    ),
  );
}

/** The request's `time_control` for the chosen radio (none: left out). */
export function chosenTimeControl(value) {
  return TIME_CONTROLS.find((tc) => tc.name === value)?.value ?? null;
}
