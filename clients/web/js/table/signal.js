// The turn signal for a hidden tab: while the page is not visible and it is this player's turn,
// the title starts with "Your turn" and the icon gets a gold badge; both come back when the tab
// is shown again or the turn passes. Off when the player turns it off in the settings.

import { loadSettings } from "../settings.js";
import { myTurn } from "./view.js";

const BADGE_ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="10" y="6" width="40" height="54" rx="6" fill="#fff" stroke="#1b1b1b" stroke-width="3"/>' +
      '<text x="30" y="44" font-size="30" text-anchor="middle" fill="#c62828">\u2665</text><circle cx="50" cy="14" r="13" fill="#ffd54f" stroke="#0f3d25" stroke-width="3"/></svg>',
  );

let plain = null; // the page's own title and icon, to put back

function icon() {
  return document.querySelector("link[rel~='icon']");
}

/** Show or clear the signal for this view; call after every state and on visibility changes. */
export function updateTurnSignal(view) {
  const link = icon();
  if (!plain) plain = { title: document.title, icon: link?.getAttribute("href") || "favicon.svg" };
  const on = document.visibilityState === "hidden" && !!view && myTurn(view) && loadSettings().tabSignal;
  document.title = on ? `Your turn \u2014 ${plain.title}` : plain.title;
  link?.setAttribute("href", on ? BADGE_ICON : plain.icon);
}

/** Follow the tab's visibility for the table `t`; returns the function that stops it. */
export function watchVisibility(t) {
  const onChange = () => updateTurnSignal(t.s.view);
  document.addEventListener("visibilitychange", onChange);
  return () => {
    document.removeEventListener("visibilitychange", onChange);
    updateTurnSignal(null);
  };
}
