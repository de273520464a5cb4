// The player's own record (#/stats): GET /api/players/me/stats (matches, wins, gins, undercuts,
// points) and the last few finished matches. Numbers as the server counts them; the page only
// works out the shares (win rate, points per hand) for display.

import { api, listMatches } from "./api.js";
import { formatDate, h, replaceChildren } from "./dom.js";
import { seatIn } from "./history.js";
import { store } from "./store.js";

const share = (n, of) => (of ? `${Math.round((100 * n) / of)}%` : "\u2013");

function figure(label, value, note = "") {
  return h("div", { class: "stat" }, h("dt", {}, label), h("dd", {}, String(value), note ? h("span", { class: "stat-note" }, ` ${note}`) : null));
}

export function mountStats(root) {
  const body = h("div", { class: "stats-body" }, h("p", { class: "muted", role: "status" }, "Loading\u2026"));
  replaceChildren(root, h("section", { class: "panel stats-page", "aria-labelledby": "stats-title" }, h("h1", { id: "stats-title", tabindex: "-1" }, "Your record"), body));
  root.querySelector("h1").focus({ preventScroll: true });
  if (!store.player?.token) {
    replaceChildren(body, h("p", {}, "Play a match first: your record will be kept here."), h("a", { class: "btn primary", href: "#/" }, "Start a match"));
    return () => {};
  }
  (async () => {
    let stats;
    let recent = [];
    try {
      const [s, page] = await Promise.all([api("GET", "/api/players/me/stats"), listMatches({ status: "finished", limit: 5 }).catch(() => ({ matches: [] }))]);
      stats = s;
      recent = page.matches || [];
    } catch (e) {
      replaceChildren(body, h("p", { role: "alert" }, "Your record could not be loaded. Try again in a moment."));
      return;
    }
    if (!body.isConnected) return;
    const perHand = stats.hands ? (stats.points / stats.hands).toFixed(1) : "\u2013";
    replaceChildren(
      body,
      h(
        "dl",
        { class: "stat-grid" },
        figure("Matches", stats.matches),
        figure("Wins", stats.wins, stats.matches ? `(${share(stats.wins, stats.matches)})` : ""),
        figure("Losses", stats.losses),
        figure("Hands played", stats.hands),
        figure("Hands won", stats.hands_won, stats.hands ? `(${share(stats.hands_won, stats.hands)})` : ""),
        figure("Gins", stats.gins),
        figure("Undercuts", stats.undercuts),
        figure("Points per hand", perHand),
      ),
      h("h2", {}, "Recent matches"),
      recent.length
        ? h(
            "ul",
            { class: "match-list" },
            recent.map((m) => {
              const seat = seatIn(m);
              const other = (m.players || []).find((p) => p.seat === 1 - seat) || {};
              const won = m.winner === seat;
              return h(
                "li",
                { class: won ? "won" : "lost" },
                h("a", { href: `#/history/${encodeURIComponent(m.match_id)}` }, `${won ? "Won" : "Lost"} against ${other.name || "?"}`),
                h("span", { class: "muted" }, ` \u00b7 ${(m.scores || []).join("\u2013")} \u00b7 ${formatDate(m.updated_at || m.created_at)}`),
              );
            }),
          )
        : h("p", { class: "muted" }, "No finished matches yet."),
    );
  })();
  return () => {};
}
