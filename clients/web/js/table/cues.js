// Cues outside the page's own drawing, each off until the player turns it on in the settings:
// a short generated tone (Web Audio; no sound files) when the turn comes to this player and when
// the other seat moves, and a system notification when the turn comes while the tab is hidden
// (the Notification API, whose permission is asked only when the player turns it on).
// They say only what the table already shows: whose turn it is, never a card of the other hand.

import { loadSettings } from "../settings.js";
import { playerName } from "../words.js";
import { myTurn } from "./view.js";

let audio = null;

/** One soft tone: `turn` rises (your turn), `move` is a lower tap (the other seat moved). */
function tone(kind) {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return;
  try {
    audio = audio || new Ctx();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const now = audio.currentTime;
    const notes = kind === "turn" ? [660, 880] : [330];
    notes.forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      const start = now + i * 0.12;
      gain.gain.setValueAtTime(0.0001, start);
      gain.gain.exponentialRampToValueAtTime(0.15, start + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.18);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.2);
    });
  } catch {
    // No audio output: the cue is only a nicety.
  }
}

/** Ask for the permission to notify (from the settings' click); resolves to whether it is given. */
export async function askToNotify() {
  if (!("Notification" in window)) return false;
  if (Notification.permission === "granted") return true;
  if (Notification.permission === "denied") return false;
  try {
    return (await Notification.requestPermission()) === "granted";
  } catch {
    return false;
  }
}

function notifyTurn(view) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  try {
    const n = new Notification("Your turn", { body: `Gin Rummy: your move against ${playerName(view, 1 - view.seat)}.`, tag: `turn-${view.match_id}`, icon: "favicon.svg" });
    n.onclick = () => {
      window.focus();
      n.close();
    };
  } catch {
    // Some browsers only notify from a service worker: the title and icon still say it.
  }
}

/** Play the cues for the change from `prev` to `view` (a seat's views; watchers get none). */
export function cueChanges({ watching }, prev, view) {
  if (watching || !prev || !view || view.seat === null) return;
  const settings = loadSettings();
  const theirs = (view.hand?.history || []).length > (prev.hand?.history || []).length && view.hand.history.at(-1)?.seat === 1 - view.seat;
  const turnCame = myTurn(view) && !myTurn(prev);
  if (settings.sound && turnCame) tone("turn");
  else if (settings.sound && theirs) tone("move");
  if (settings.notify && turnCame && document.visibilityState === "hidden") notifyTurn(view);
}
