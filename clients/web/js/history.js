// The player's finished matches (GET /api/matches?status=finished), filtered by rules,
// opponent, result and date (the server filters), and one match's hands (GET /api/matches/{id})
// with a link to its replay. Both pages offer the exports (exporting.js).

import { getMatch, getRecord, listMatches } from "./api.js";
import { loadCatalog, rulesLabel } from "./catalog.js";
import { formatDate, h, replaceChildren } from "./dom.js";
import { resultBlock, resultSummary } from "./results.js";
import { store } from "./store.js";
import { dealStatus } from "./verify.js";
import { allExportButton, matchExportButtons } from "./exporting.js";

const PAGE = 20;

/** The viewer's seat in a match summary: the server's `seat` when it sends one, else the seat
 * this browser remembered on creating or joining the match, else the seat with the player's name. */
export function seatIn(summary) {
  const me = store.player;
  if (summary.seat === 0 || summary.seat === 1) return summary.seat;
  const info = store.matchInfo(summary.match_id);
  if (info.seat === 0 || info.seat === 1) return info.seat;
  const humans = (summary.players || []).filter((p) => p.name === me?.name);
  return humans.length === 1 ? humans[0].seat : 0;
}

function outcomeWords(m, seat) {
  if (m.winner === null || m.winner === undefined) return "unfinished";
  const won = m.winner === seat;
  const totals = m.outcome?.totals;
  const mine = totals ? totals[seat].total : m.scores?.[seat];
  const theirs = totals ? totals[1 - seat].total : m.scores?.[1 - seat];
  const how = m.outcome?.reason === "resign" ? (won ? " (they resigned)" : " (you resigned)") : "";
  return `${won ? "You won" : "You lost"} ${mine}\u2013${theirs}${how}`;
}

function choice(name, label, options) {
  return h(
    "div",
    { class: "field" },
    h("label", { for: `filter-${name}` }, label),
    h("select", { id: `filter-${name}`, name }, h("option", { value: "" }, "Any"), options.map(([value, text]) => h("option", { value }, text))),
  );
}

function day(name, label) {
  return h("div", { class: "field" }, h("label", { for: `filter-${name}` }, label), h("input", { id: `filter-${name}`, name, type: "date" }));
}

/** The filter form; `onChange(query)` gets the chosen filters as query parameters. */
function filterForm(onChange) {
  const rules = choice("rules", "Rules", []);
  const form = h(
    "form",
    { class: "history-filters", role: "search", "aria-label": "Filter your matches" },
    rules,
    choice("opponent", "Opponent", [["computer", "The computer"], ["human", "A person"]]),
    choice("result", "Result", [["won", "Won"], ["lost", "Lost"]]),
    day("since", "From"),
    day("until", "To"),
  );
  loadCatalog().then(
    (c) => rules.querySelector("select").append(...c.rules.map((r) => h("option", { value: r.name }, r.label || r.name))),
    () => {},
  );
  const query = () => Object.fromEntries([...new FormData(form)].filter(([, v]) => v));
  form.addEventListener("change", () => onChange(query()));
  form.addEventListener("submit", (e) => e.preventDefault());
  return form;
}

export function mountHistory(root) {
  const list = h("ul", { class: "match-list history-list" });
  const more = h("button", { class: "btn", type: "button", hidden: true }, "Show more");
  const status = h("p", { class: "muted", role: "status" }, "Loading\u2026");
  let filters = {};
  let offset = 0;
  let generation = 0;
  const form = filterForm((query) => {
    if (query.since && query.until && query.since > query.until) {
      // The server would refuse it too; said here in the form's own words.
      status.textContent = "\u201cFrom\u201d is later than \u201cTo\u201d: choose a From day on or before the To day.";
      list.replaceChildren();
      more.hidden = true;
      generation++;
      return;
    }
    filters = query;
    offset = 0;
    list.replaceChildren();
    load();
  });
  replaceChildren(
    root,
    h(
      "section",
      { class: "history panel" },
      h("h1", { tabindex: "-1" }, "Your finished matches"),
      form,
      status,
      list,
      more,
      allExportButton(),
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  if (!store.player?.token) {
    status.textContent = "Play a match first: your finished matches will be listed here.";
    form.hidden = true;
    return () => {};
  }
  async function load() {
    more.disabled = true;
    const mine = ++generation;
    try {
      // The catalog only gives the presets their labels; without it the names are shown.
      const [page] = await Promise.all([listMatches({ ...filters, status: "finished", limit: PAGE, offset }), loadCatalog().catch(() => null)]);
      if (mine !== generation) return; // the filters changed meanwhile: a newer load draws the list
      const matches = page.matches || [];
      offset += matches.length;
      for (const m of matches) {
        const seat = seatIn(m);
        const other = (m.players || []).find((p) => p.seat === 1 - seat) || {};
        const id = encodeURIComponent(m.match_id);
        list.append(
          h(
            "li",
            { class: m.winner === seat ? "won" : "lost" },
            h("strong", {}, `Against ${other.name || "?"}`),
            h("span", {}, ` \u00b7 ${outcomeWords(m, seat)} \u00b7 ${rulesLabel(m.rules)} \u00b7 ${m.hand_number} hand${m.hand_number === 1 ? "" : "s"} \u00b7 ${m.status === "finished" ? "ended" : "last played"} ${formatDate(m.updated_at || m.created_at)} `),
            h(
              "span",
              { class: "row-links" },
              h("a", { href: `#/history/${id}`, "aria-label": `Hands of the match against ${other.name || "?"}, ${formatDate(m.created_at)}` }, "Hands"),
              " ",
              h("a", { href: `#/replay/${id}`, "aria-label": `Replay the match against ${other.name || "?"}, ${formatDate(m.created_at)}` }, "Replay"),
            ),
          ),
        );
      }
      const filtered = Object.keys(filters).length > 0;
      status.textContent = offset
        ? `${page.total ?? offset} finished match${(page.total ?? offset) === 1 ? "" : "es"}${filtered ? " with these filters" : ""}`
        : filtered
          ? "No finished match with these filters."
          : "No finished matches yet.";
      more.hidden = offset >= (page.total ?? 0) || !matches.length;
    } catch (e) {
      if (mine !== generation) return;
      status.textContent = `Could not load your matches: ${e.message}`;
    }
    more.disabled = false;
  }
  more.addEventListener("click", load);
  load();
  return () => {};
}

export function mountMatchDetail(root, { matchId }) {
  const body = h("div", {}, h("p", { class: "muted", role: "status" }, "Loading\u2026"));
  replaceChildren(
    root,
    h(
      "section",
      { class: "history panel" },
      h("p", {}, h("a", { href: "#/history" }, "\u2190 All finished matches")),
      h("h1", { tabindex: "-1" }, "Match hands"),
      body,
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  Promise.all([getMatch(matchId), loadCatalog().catch(() => null)]).then(
    ([m]) => {
      // The deals are checked here, in this browser, from the record (finished matches only).
      const dealLine = h("div", { class: "deal-line" });
      if (m.status === "finished") getRecord(matchId).then((rec) => dealLine.append(dealStatus(h, rec).el), () => {});
      const seat = seatIn(m);
      const ctx = { players: m.players, seat };
      const hands = m.hands || [];
      replaceChildren(
        body,
        h("p", { class: "lede" }, outcomeWords(m, seat), ` \u00b7 ${rulesLabel(m.rules)} \u00b7 started ${formatDate(m.created_at)}`),
        h("p", {}, h("a", { class: "btn primary", href: `#/replay/${encodeURIComponent(matchId)}` }, "Replay this match")),
        matchExportButtons(matchId),
        dealLine,
        h(
          "ol",
          { class: "hand-results" },
          hands.map((entry, i) => {
            const r = entry.result || entry;
            const number = entry.number || i + 1;
            return h(
              "li",
              {},
              h(
                "details",
                {},
                h("summary", {}, `Hand ${number}: ${resultSummary(ctx, r)}`),
                resultBlock(ctx, r),
              ),
            );
          }),
        ),
      );
    },
    (e) => replaceChildren(body, h("p", { class: "form-error", role: "alert" }, `Could not load the match: ${e.message}`)),
  );
  return () => {};
}
