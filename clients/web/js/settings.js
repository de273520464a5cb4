// The player's settings, kept in this browser (localStorage): a four-colour deck, card motion,
// the turn signal in a hidden tab's title and icon, a notification when a hidden tab's turn
// comes, sounds, the computer's pace and hints against the computer (analysis.js asks the server
// for them). The pace is said to the server in every hello (docs/protocol.md, `hello.pace`),
// which bounds it; the rest change nothing that is sent as a move.

const KEY = "ginrummy.settings";
const DEFAULTS = { fourColour: false, motion: true, tabSignal: true, notify: false, sound: false, pace: "normal", hints: false };

/** The computer's paces (the server's `hello.pace` names), slowest first, with their words. */
export const PACES = [
  ["slow", "Slow"],
  ["normal", "Normal"],
  ["fast", "Fast"],
];

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...(JSON.parse(localStorage.getItem(KEY) || "{}") || {}) };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(changes) {
  const next = { ...loadSettings(), ...changes };
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    // Storage disabled: the setting lasts for this page only.
  }
  applySettings(next);
  return next;
}

/** Put the settings that CSS reads onto the page (the four-colour deck). */
export function applySettings(settings = loadSettings()) {
  document.documentElement.classList.toggle("four-colour", !!settings.fourColour);
}

/** Whether cards may move: the player's setting and the system's reduced-motion preference. */
export function motionAllowed() {
  return loadSettings().motion && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
