// The lobby: quick pairing (seek.js) and open challenges anyone can accept (#/lobby), the live counts on the start page, and
// the rated/casual and public choices when inviting a friend. Accepting takes the second seat as
// an invite does; if someone else was quicker the server says challenge_taken and we say so.

import { ApiError } from "./api.js";
import { loadCatalog, rulesLabel } from "./catalog.js";
import { formatDate, h, replaceChildren } from "./dom.js";
import { ensurePlayer, nameField } from "./home.js";
import { acceptChallenge, getLobby, listChallenges, ratingText } from "./ratings-api.js";
import { quickPairing } from "./seek.js";
import { store } from "./store.js";

/** The friend form's extra choices: rated or casual, and listed publicly or not. */
export function friendChoices() {
  return h(
    "fieldset",
    { class: "friend-options" },
    h("legend", {}, "Match"),
    h("label", { class: "choice" }, h("input", { type: "radio", name: "rated", value: "casual", checked: true }), h("span", { class: "choice-text" }, h("strong", {}, "Casual"), h("span", { class: "note" }, "No rating changes."))),
    h("label", { class: "choice" }, h("input", { type: "radio", name: "rated", value: "rated" }), h("span", { class: "choice-text" }, h("strong", {}, "Rated"), h("span", { class: "note" }, "Counts for both players' ratings."))),
    h("label", { class: "choice check" }, h("input", { type: "checkbox", name: "public", value: "yes" }), h("span", { class: "choice-text" }, h("strong", {}, "List it in the lobby"), h("span", { class: "note" }, "Anyone may accept it, not only the friend with the link."))),
  );
}

/** {rated, public} from the friend form's data. */
export function friendOptions(formData) {
  return { rated: formData.get("rated") === "rated", public: formData.get("public") === "yes" };
}

/** "3 open challenges · 12 playing now", filled in from the server when it answers. */
export function liveCounts() {
  // The line is there from the start, its counts a dash until the server answers: filled in
  // later, it would push the start forms down under a finger about to tap a choice.
  const line = (waiting, playing, seeking) => [
    h("a", { href: "#/lobby" }, `${waiting} open ${waiting === 1 ? "challenge" : "challenges"}`),
    ` \u00b7 ${playing} playing now \u00b7 `,
    h("a", { href: "#/lobby" }, `${seeking} seeking`),
    " \u00b7 ",
    h("a", { href: "#/leaderboard" }, "Leaderboard"),
  ];
  const el = h("p", { class: "live-counts muted", "aria-live": "polite" }, line("\u2013", "\u2013", "\u2013"));
  getLobby().then(
    (c) => el.replaceChildren(...line(c.waiting, c.playing, c.seeking ?? 0)),
    () => el.replaceChildren(h("a", { href: "#/leaderboard" }, "Leaderboard")),
  );
  return el;
}

export function mountLobby(root) {
  const list = h("ul", { class: "challenge-list" });
  const status = h("p", { class: "muted", role: "status" }, "Loading\u2026");
  const error = h("p", { class: "form-error", role: "alert" });
  const who = store.player ? null : h("div", { class: "panel who" }, nameField(), h("p", { class: "note" }, "Type your name to seek a match or accept a challenge."));

  async function accept(challenge, button) {
    error.textContent = "";
    button.disabled = true;
    try {
      await ensurePlayer(root);
      const m = await acceptChallenge(challenge.match_id);
      store.saveMatchInfo(m.match_id, { seat: m.seat });
      store.currentMatch = m.match_id;
      location.hash = `#/play/${encodeURIComponent(m.match_id)}`;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) store.player = null;
      error.textContent = e instanceof ApiError && e.code === "challenge_taken" ? `Someone else accepted ${challenge.creator}'s challenge first.` : e.message;
      button.disabled = false;
      if (e instanceof ApiError && e.code === "challenge_taken") load();
    }
  }

  async function load() {
    let page;
    try {
      [page] = await Promise.all([listChallenges({ limit: 50 }), loadCatalog().catch(() => null)]);
    } catch (e) {
      status.textContent = e.message;
      return;
    }
    if (!root.isConnected) return;
    const me = store.player?.player_id;
    status.textContent = page.total ? `${page.total} open ${page.total === 1 ? "challenge" : "challenges"}.` : "No open challenges right now. Create one from the start page: tick \u201cList it in the lobby\u201d.";
    replaceChildren(
      list,
      page.challenges.map((c) => {
        const button = h("button", { class: "btn primary", type: "button", "aria-label": `Accept ${c.creator}'s challenge` }, "Accept");
        button.onclick = () => accept(c, button);
        return h(
          "li",
          { class: "panel challenge" },
          h("div", { class: "challenge-who" }, h("a", { href: `#/player/${encodeURIComponent(c.creator_id)}` }, c.creator), h("span", { class: "muted" }, ` ${ratingText(c.rating, c.deviation)}${c.rating !== null && c.provisional ? ", provisional" : ""}`)),
          h("div", { class: "challenge-what" }, h("span", { class: c.rated ? "tag rated" : "tag" }, c.rated ? "Rated" : "Casual"), ` ${rulesLabel(c.rules)} `, h("span", { class: "muted" }, `\u00b7 ${formatDate(c.created_at)}`)),
          c.creator_id === me ? h("span", { class: "muted" }, "Your challenge") : button,
        );
      }),
    );
  }

  const quick = quickPairing(root);
  replaceChildren(
    root,
    h("section", { class: "lobby" }, h("h1", { tabindex: "-1" }, "Lobby"), who, quick.panel, h("h2", {}, "Open challenges"), error, status, list),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  load();
  return () => quick.stop();
}
