// A player's page (#/player/ID): rating with its deviation, a graph of the rating over rated
// matches (inline SVG, drawn here: no library), the record and the last finished matches. Anyone
// may look at anyone's page: it shows nothing a player could not see in the lobby.

import { ApiError } from "./api.js";
import { loadCatalog, rulesLabel } from "./catalog.js";
import { formatDate, h, replaceChildren } from "./dom.js";
import { getProfile, getRatingHistory, ratingText } from "./ratings-api.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

/** The rating after each rated match, oldest to newest, with a band of ± 2 deviations, drawn
 * `width` units wide (the space it has, so that its 12 px labels stay 12 px on a phone). */
export function ratingGraph(points, width = 640) {
  const W = Math.round(Math.min(640, Math.max(280, width)));
  const H = W < 480 ? 180 : 220;
  const pad = { l: 44, r: 12, t: 12, b: 24 };
  const start = { rating: 1500, deviation: 350 };
  const series = [start, ...points];
  const lo = Math.min(...series.map((p) => p.rating - 2 * p.deviation));
  const hi = Math.max(...series.map((p) => p.rating + 2 * p.deviation));
  const x = (i) => pad.l + (i * (W - pad.l - pad.r)) / Math.max(series.length - 1, 1);
  const y = (r) => pad.t + ((hi - r) * (H - pad.t - pad.b)) / Math.max(hi - lo, 1);
  const line = series.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join("");
  const upper = series.map((p, i) => `${x(i).toFixed(1)},${y(p.rating + 2 * p.deviation).toFixed(1)}`);
  const lower = series.map((p, i) => `${x(i).toFixed(1)},${y(p.rating - 2 * p.deviation).toFixed(1)}`).reverse();
  const ticks = [lo, 1500, hi].map((r) =>
    svg("text", { x: pad.l - 6, y: y(r) + 4, "text-anchor": "end", class: "graph-label" }, Math.round(r)),
  );
  const last = series[series.length - 1];
  return svg(
    "svg",
    {
      viewBox: `0 0 ${W} ${H}`,
      class: "rating-graph",
      role: "img",
      "aria-label": `Rating over ${points.length} rated matches: from 1500 to ${Math.round(last.rating)}`,
    },
    svg("title", {}, `Rating after each of ${points.length} rated matches`),
    svg("polygon", { points: [...upper, ...lower].join(" "), class: "graph-band" }),
    svg("line", { x1: pad.l, x2: W - pad.r, y1: y(1500), y2: y(1500), class: "graph-base" }),
    svg("path", { d: line, class: "graph-line" }),
    ...series.map((p, i) => svg("circle", { cx: x(i), cy: y(p.rating), r: 3.5, class: "graph-dot" })),
    ...ticks,
    svg("text", { x: pad.l, y: H - 6, class: "graph-label" }, "start"),
    svg("text", { x: W - pad.r, y: H - 6, "text-anchor": "end", class: "graph-label" }, `match ${points.length}`),
  );
}

function statList(stats) {
  const rows = [
    ["Matches", stats.matches],
    ["Won", stats.wins],
    ["Lost", stats.losses],
    ["Hands won", `${stats.hands_won} of ${stats.hands}`],
    ["Gins", stats.gins],
    ["Undercuts", stats.undercuts],
  ];
  return h("dl", { class: "stat-list" }, rows.map(([k, v]) => h("div", {}, h("dt", {}, k), h("dd", {}, String(v)))));
}

function recentList(page) {
  if (!page.recent.length) return h("p", { class: "muted" }, "No finished matches yet.");
  return h(
    "ul",
    { class: "match-list" },
    page.recent.map((m) => {
      const seat = m.seat ?? 0;
      const other = (m.players || [])[1 - seat] || {};
      const won = m.winner === seat;
      return h(
        "li",
        {},
        h("strong", {}, won ? "Won" : "Lost"),
        ` against ${other.name || "?"} `,
        h("span", { class: "muted" }, `\u00b7 ${rulesLabel(m.rules)} \u00b7 ${m.rated ? "rated" : "casual"} \u00b7 ${formatDate(m.updated_at)}`),
      );
    }),
  );
}

export function mountPlayer(root, { playerId }) {
  const status = h("p", { class: "muted", role: "status" }, "Loading\u2026");
  replaceChildren(root, h("section", { class: "player-page" }, h("h1", { tabindex: "-1" }, "Player"), status));
  root.querySelector("h1").focus({ preventScroll: true });
  Promise.all([getProfile(playerId), getRatingHistory(playerId), loadCatalog().catch(() => null)]).then(
    ([page, history]) => {
      if (!root.isConnected) return;
      const r = page.rating;
      const points = [...history.history].reverse();
      replaceChildren(
        root,
        h(
          "section",
          { class: "player-page" },
          h("h1", { tabindex: "-1" }, page.name, page.bot ? h("span", { class: "badge ladder-bot" }, "Bot") : null),
          page.bot ? h("p", { class: "note" }, `A program, run by ${page.bot.owner}${page.bot.description ? `: ${page.bot.description}` : ""}.`) : null,
          h(
            "div",
            { class: "panel rating-card" },
            h("p", { class: "rating-big", "aria-label": r ? `Rating ${Math.round(r.rating)}, deviation ${Math.round(r.deviation)}` : "Not rated yet" }, ratingText(r?.rating, r?.deviation)),
            h("p", { class: "note" }, r ? `Glicko-2 rating after ${r.games} rated ${r.games === 1 ? "match" : "matches"}; the ± is twice the rating deviation.` : "Play a rated match against a person to get a rating."),
            r?.provisional ? h("p", { class: "note provisional" }, h("span", { class: "badge" }, "Provisional"), " Not on the leaderboard until the rating is established: more rated matches, against players with established ratings, settle it.") : null,
            points.length ? ratingGraph(points, root.clientWidth - 64) : null,
          ),
          h("div", { class: "panel" }, h("h2", {}, "Record"), statList(page.stats)),
          h("div", { class: "panel" }, h("h2", {}, "Recent matches"), recentList(page)),
        ),
      );
      root.querySelector("h1").focus({ preventScroll: true });
    },
    (e) => {
      if (!root.isConnected) return;
      status.textContent = e instanceof ApiError && e.status === 404 ? "There is no such player." : e.message;
    },
  );
  return () => {};
}
