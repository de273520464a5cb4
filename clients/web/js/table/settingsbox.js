// The settings box beside the table: the player's choices, kept in this browser (settings.js).
// The computer's pace is said to the server at once (a fresh hello); the notification asks for
// the browser's permission only when the player turns it on. The open state of the box
// survives redraws.

import { h, toast } from "../dom.js";
import { loadSettings, PACES, saveSettings } from "../settings.js";
import { askToNotify } from "./cues.js";

const SWITCHES = [
  ["fourColour", "Four-colour deck (clubs green, diamonds blue)"],
  ["motion", "Move the cards (off when the system asks for reduced motion)"],
  ["tabSignal", "Say \u201cYour turn\u201d in the tab's title when it is hidden"],
  ["notify", "Notify me when it is my turn and the tab is hidden"],
  ["sound", "Sounds on my turn and on the other player's moves"],
  ["hints", "Hints against the computer: what Hard would play, and why (never in rated matches)"],
];

function switchRow(t, settings, key, text) {
  return h(
    "label",
    { class: "setting" },
    h("input", {
      type: "checkbox",
      checked: !!settings[key],
      dataset: { focusKey: `setting:${key}` },
      onchange: async (e) => {
        const box = e.currentTarget;
        let on = box.checked;
        if (key === "notify" && on && !(await askToNotify())) {
          on = false;
          toast("This browser does not allow notifications for this page: the tab's title still says when it is your turn.");
        }
        saveSettings({ [key]: on });
        t.render();
      },
    }),
    text,
  );
}

function paceRow(t, settings) {
  const id = "setting-pace";
  return h(
    "div",
    { class: "setting setting-pace" },
    h("label", { for: id }, "Computer's pace"),
    h(
      "select",
      {
        id,
        dataset: { focusKey: "setting:pace" },
        onchange: (e) => {
          saveSettings({ pace: e.currentTarget.value });
          t.socket?.hello(); // the server takes the new pace from the next hello
          t.render();
        },
      },
      PACES.map(([name, label]) => h("option", { value: name, selected: settings.pace === name }, label)),
    ),
  );
}

export function settingsBox(t) {
  const settings = loadSettings();
  const computer = !t.watching && (t.s.view?.players || []).some((p) => p.kind === "computer");
  return h(
    "details",
    {
      class: "panel settings",
      open: !!t.s.settingsOpen,
      ontoggle: (e) => {
        t.s.settingsOpen = e.currentTarget.open;
      },
    },
    h("summary", {}, "Settings"),
    computer ? paceRow(t, settings) : null,
    SWITCHES.filter(([key]) => !(t.watching && key === "notify")).map(([key, text]) => switchRow(t, settings, key, text)),
  );
}
