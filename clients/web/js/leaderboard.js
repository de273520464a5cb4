// The leaderboard (#/leaderboard): players with an established rating, best first, a page
// at a time, with the computer levels' published ratings beside it for comparison.

import { loadCatalog } from "./catalog.js";
import { h, replaceChildren } from "./dom.js";
import { getLeaderboard, ratingText } from "./ratings-api.js";

const PAGE = 20;

export function mountLeaderboard(root) {
  const body = h("tbody");
  const status = h("p", { class: "muted", role: "status" }, "Loading\u2026");
  const prev = h("button", { class: "btn", type: "button", disabled: true }, "Previous");
  const next = h("button", { class: "btn", type: "button", disabled: true }, "Next");
  const levels = h("p", { class: "note levels" });
  const table = h(
    "table",
    { class: "board" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col", class: "num" }, "Rating"), h("th", { scope: "col", class: "num" }, "Games"))),
    body,
  );
  const pager = h("div", { class: "pager" }, prev, next);
  let offset = 0;

  async function load() {
    prev.disabled = next.disabled = true;
    let board;
    try {
      board = await getLeaderboard({ limit: PAGE, offset });
    } catch (e) {
      status.textContent = e.message;
      return;
    }
    if (!root.isConnected) return;
    const rule = `at least ${board.min_games} rated matches and a rating deviation of ${Math.round(board.max_deviation)} or less`;
    status.textContent = board.total
      ? `${board.total} ${board.total === 1 ? "player" : "players"} with an established rating: ${rule}.`
      : `Nobody has an established rating yet: it takes ${rule} (about 15 matches against players who play each other).`;
    // An empty board is the sentence alone, not a header over nothing.
    table.hidden = pager.hidden = !board.total;
    replaceChildren(
      body,
      board.players.map((p) =>
        h(
          "tr",
          {},
          h("td", {}, String(p.rank)),
          h("td", {}, h("a", { href: `#/player/${encodeURIComponent(p.player_id)}` }, p.name), p.bot ? [" ", h("span", { class: "badge ladder-bot" }, "Bot")] : null),
          h("td", { class: "num" }, ratingText(p.rating, p.deviation)),
          h("td", { class: "num" }, String(p.games)),
        ),
      ),
    );
    prev.disabled = offset === 0;
    next.disabled = offset + PAGE >= board.total;
  }
  prev.onclick = () => {
    offset = Math.max(0, offset - PAGE);
    load();
  };
  next.onclick = () => {
    offset += PAGE;
    load();
  };

  replaceChildren(
    root,
    h(
      "section",
      { class: "leaderboard panel" },
      h("h1", { tabindex: "-1" }, "Leaderboard"),
      status,
      table,
      pager,
      levels,
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  load();
  loadCatalog().then(
    (c) => {
      const rated = c.difficulties.filter((d) => d.rating !== null && d.rating !== undefined);
      if (rated.length) levels.textContent = `For comparison, the computer: ${rated.map((d) => `${d.label} ${Math.round(d.rating)}`).join(", ")}.`;
    },
    () => {},
  );
  return () => {};
}
