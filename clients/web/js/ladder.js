// The bot ladder (#/ladder): enrolled bots and the server's references (Easy, Normal, Hard and
// the simple baseline), ranked by their ladder rating with its error bar; choosing an entrant
// shows its paired results (each pairing's mean score with a 95% interval) and recent pairs.
// Every pair is the same deals played twice with the seats swapped, so luck cancels out.

import { api } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { ratingText } from "./ratings-api.js";

const getLadder = () => api("GET", "/api/ladder");
const getPairs = (playerId) => api("GET", `/api/ladder/pairs?${new URLSearchParams({ player: playerId, limit: 10 })}`);

const pct = (x) => `${Math.round(100 * x)}%`;
const signed = (x) => (x > 0 ? `+${Math.round(x)}` : `${Math.round(x)}`);

function kindBadge(kind) {
  return h("span", { class: `badge ladder-${kind}` }, kind === "bot" ? "Bot" : "Reference");
}

function pairingRows(pairings) {
  return pairings.map((p) =>
    h(
      "tr",
      {},
      h("td", {}, p.opponent || p.opponent_id),
      h("td", { class: "num" }, String(p.pairs)),
      h("td", { class: "num" }, `${pct(p.score)} (${pct(p.score_low)}\u2013${pct(p.score_high)})`),
      h(
        "td",
        { class: "num" },
        p.points_low === null ? signed(p.points) : `${signed(p.points)} (${signed(p.points_low)} to ${signed(p.points_high)})`,
      ),
    ),
  );
}

function pairLine(pair, playerId) {
  const mine = pair.a === playerId;
  const other = mine ? pair.b_name : pair.a_name;
  if (pair.status !== "finished") return h("li", {}, `vs ${other}: playing`);
  const wins = mine ? pair.wins : 2 - pair.wins;
  const points = mine ? pair.points : -pair.points;
  return h("li", {}, `vs ${other}: ${wins} of 2 matches won, ${signed(points)} points`);
}

export function mountLadder(root) {
  const body = h("tbody");
  const status = h("p", { class: "muted", role: "status" }, "Loading\u2026");
  const detail = h("div", { class: "panel ladder-detail", hidden: true });
  let chosen = null;

  async function showPairs(entrant) {
    chosen = entrant.player_id;
    detail.hidden = false;
    replaceChildren(detail, h("h2", {}, entrant.name), h("p", { class: "muted" }, "Loading\u2026"));
    let found;
    try {
      found = await getPairs(entrant.player_id);
    } catch (e) {
      replaceChildren(detail, h("h2", {}, entrant.name), h("p", { class: "muted" }, e.message));
      return;
    }
    if (!root.isConnected || chosen !== entrant.player_id) return;
    replaceChildren(
      detail,
      h("h2", {}, entrant.name, kindBadge(entrant.kind)),
      found.pairings.length
        ? h(
            "div",
            { class: "ladder-scroll" },
            h(
              "table",
              { class: "board pairings" },
              h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Against"), h("th", { scope: "col", class: "num" }, "Pairs"), h("th", { scope: "col", class: "num" }, "Score (95%)"), h("th", { scope: "col", class: "num" }, "Points a pair"))),
              h("tbody", {}, pairingRows(found.pairings)),
            ),
          )
        : h("p", { class: "muted" }, "No pair finished yet."),
      found.pairs.length ? h("ul", { class: "ladder-pairs" }, found.pairs.map((p) => pairLine(p, entrant.player_id))) : null,
    );
  }

  async function load() {
    let ladder;
    try {
      ladder = await getLadder();
    } catch (e) {
      status.textContent = e.message;
      return;
    }
    if (!root.isConnected) return;
    const n = ladder.entrants.length;
    status.textContent = n
      ? `${n} ${n === 1 ? "entrant" : "entrants"}.${ladder.on ? "" : " This server is not scheduling ladder pairs now."}`
      : "Nobody is on the ladder yet.";
    replaceChildren(
      body,
      ladder.entrants.map((e) =>
        h(
          "tr",
          {},
          h("td", {}, String(e.rank)),
          h("td", {}, h("button", { class: "linklike", type: "button", onclick: () => showPairs(e) }, e.name), kindBadge(e.kind)),
          h("td", { class: "num" }, ratingText(e.rating, e.deviation)),
          h("td", { class: "num" }, String(e.games)),
        ),
      ),
    );
  }

  replaceChildren(
    root,
    h(
      "section",
      { class: "ladder panel" },
      h("h1", { tabindex: "-1" }, "Bot ladder"),
      h(
        "p",
        { class: "note" },
        "Programs, not people: enrolled bots and the server's own references play pairs of matches on the same deals with the seats swapped. Ratings are Glicko-2, apart from the players' ratings; the \u00b1 is twice the deviation.",
      ),
      status,
      h(
        "div",
        { class: "ladder-scroll" },
        h(
          "table",
          { class: "board" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Bot"), h("th", { scope: "col", class: "num" }, "Rating"), h("th", { scope: "col", class: "num" }, "Pairs"))),
          body,
        ),
      ),
    ),
    detail,
  );
  root.querySelector("h1").focus({ preventScroll: true });
  load();
  return () => {};
}
