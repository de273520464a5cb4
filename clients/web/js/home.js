// The start page: who you are, a match against the computer and a match against a friend (with
// the difficulties and rule presets the server lists), and matches still in progress.

import { ApiError, createMatch, listMatches, register } from "./api.js";
import { chosenTimeControl, clockFieldset } from "./timecontrols.js";
import { loadCatalog, rulesLabel } from "./catalog.js";
import { miniCard } from "./cards.js";
import { formatDate, h, replaceChildren } from "./dom.js";
import { friendChoices, friendOptions, liveCounts } from "./lobby.js";
import { store } from "./store.js";

// Checked at first when the server offers them; otherwise its first entry is.
const PREFERRED = { difficulty: "normal", rules: "house" };

function radios(name, options, preferred) {
  const checked = options.some((o) => o.name === preferred) ? preferred : options[0]?.name;
  return options.map((o) =>
    h(
      "label",
      { class: "choice" },
      h("input", { type: "radio", name, value: o.name, checked: o.name === checked, required: true }),
      h("span", { class: "choice-text" }, h("span", { class: "choice-head" }, h("strong", {}, o.label || o.name), o.rating ? h("span", { class: "rating-tag" }, `rating ${Math.round(o.rating)}`) : null), o.description ? h("span", { class: "note" }, o.description) : null),
    ),
  );
}

/** A fieldset whose choices arrive from the server; "Loading…" until they do. */
function choices(legend, name) {
  return h("fieldset", { dataset: { choices: name } }, h("legend", {}, legend), h("p", { class: "muted" }, "Loading\u2026"));
}

/** Fill the start forms' choices from the server's catalog; a form stays unusable without them. */
async function fillChoices(root, error) {
  const submits = [...root.querySelectorAll("form.start button[type=submit]")];
  submits.forEach((b) => (b.disabled = true));
  let catalog;
  try {
    catalog = await loadCatalog();
  } catch (e) {
    if (!root.isConnected) return;
    error.textContent = `Could not load the rules and difficulties from the server: ${e.message} Reload the page to try again.`;
    root.querySelectorAll("fieldset[data-choices] > p").forEach((p) => (p.textContent = "Not available."));
    return;
  }
  const lists = {
    difficulty: [catalog.difficulties, PREFERRED.difficulty],
    rules: [catalog.rules, PREFERRED.rules],
    "friend-rules": [catalog.rules, PREFERRED.rules],
  };
  for (const fieldset of root.querySelectorAll("fieldset[data-choices]")) {
    const name = fieldset.dataset.choices;
    const [options, preferred] = lists[name];
    replaceChildren(fieldset, fieldset.querySelector("legend"), radios(name, options, preferred));
  }
  submits.forEach((b) => (b.disabled = false));
}

/** The player's identity, creating it from the name field when there is none yet. */
export async function ensurePlayer(form) {
  const existing = store.player;
  if (existing?.token) return existing;
  const input = form.querySelector("input[name=name]") || document.getElementById("player-name");
  const name = (input?.value || "").trim();
  if (!name) {
    input?.focus();
    throw new ApiError(400, "bad_request", "Please type your name first.");
  }
  return register(name);
}

export function nameField() {
  return h(
    "div",
    { class: "field" },
    h("label", { for: "player-name" }, "Your name"),
    h("input", { id: "player-name", name: "name", type: "text", autocomplete: "nickname", maxlength: "40", required: true }),
  );
}

export function mountHome(root, { message = "" } = {}) {
  const player = store.player;
  const error = h("p", { class: "form-error", role: "alert" }, message);
  const busy = (form, on) => form.querySelectorAll("button").forEach((b) => (b.disabled = on));

  async function start(form, options) {
    error.textContent = "";
    busy(form, true);
    try {
      await ensurePlayer(root);
      const m = await createMatch(options);
      store.saveMatchInfo(m.match_id, { watch_token: m.watch_token, invite: m.invite, seat: m.seat });
      store.currentMatch = m.match_id;
      location.hash = `#/play/${encodeURIComponent(m.match_id)}`;
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        // The server no longer knows this token (a new server, say): ask for a name again.
        store.player = null;
        mountHome(root, { message: "The server did not recognise you: type your name and try again." });
        return;
      }
      error.textContent = e.message;
      busy(form, false);
    }
  }

  const computerForm = h(
    "form",
    {
      class: "panel start",
      "aria-labelledby": "vs-computer",
      onsubmit: (e) => {
        e.preventDefault();
        const f = new FormData(e.target);
        start(e.target, { opponent: "computer", difficulty: f.get("difficulty"), rules: f.get("rules") });
      },
    },
    h("h2", { id: "vs-computer" }, "Play the computer"),
    choices("Difficulty", "difficulty"),
    choices("Rules", "rules"),
    h("button", { class: "btn primary big", type: "submit" }, "Play the computer"),
  );

  const friendForm = h(
    "form",
    {
      class: "panel start",
      "aria-labelledby": "vs-friend",
      onsubmit: (e) => {
        e.preventDefault();
        const f = new FormData(e.target);
        const timeControl = chosenTimeControl(f.get("friend-clock"));
        start(e.target, {
          opponent: "human",
          rules: f.get("friend-rules"),
          ...(timeControl ? { time_control: timeControl } : {}),
          ...friendOptions(f),
        });
      },
    },
    h("h2", { id: "vs-friend" }, "Play a friend"),
    h("p", {}, "Create a match and send your friend the invite link. It starts when they open it."),
    choices("Rules", "friend-rules"),
    clockFieldset("friend-clock"),
    friendChoices(),
    h("button", { class: "btn big", type: "submit" }, "Create an invite link"),
  );

  const who = player
    ? h(
        "p",
        { class: "whoami" },
        "Playing as ",
        player.player_id ? h("a", { href: `#/player/${encodeURIComponent(player.player_id)}` }, player.name) : player.name,
        ". ",
        h(
          "button",
          {
            class: "btn small subtle",
            type: "button",
            onclick: () => {
              store.player = null;
              store.currentMatch = null;
              mountHome(root);
            },
          },
          "Play under another name",
        ),
      )
    : h(
        "div",
        { class: "panel who" },
        nameField(),
        h("p", { class: "note" }, "Your name is shown to your opponent. This browser remembers you."),
        h("p", { class: "note" }, "Played before on another device? ", h("a", { href: "#/account" }, "Sign in")),
      );

  const ongoing = h("section", { class: "panel ongoing", "aria-labelledby": "ongoing-title", hidden: true });

  replaceChildren(
    root,
    h(
      "section",
      { class: "home" },
      h(
        "div",
        { class: "home-title" },
        h("h1", { tabindex: "-1" }, "Gin Rummy"),
        h("span", { class: "fan", "aria-hidden": "true" }, ["As", "Kh", "Qc", "Jd"].map((c) => miniCard(c, "large"))),
      ),
      h("p", { class: "lede" }, "Build melds, shed your deadwood, knock or go gin. First to 100 wins."),
      liveCounts(),
      who,
      store.currentMatch
        ? h("p", {}, h("a", { class: "btn primary big", href: `#/play/${encodeURIComponent(store.currentMatch)}` }, "Back to your match"))
        : null,
      error,
      h("div", { class: "start-grid" }, computerForm, friendForm),
      ongoing,
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });

  fillChoices(root, error);
  if (player?.token) loadOngoing(ongoing);
  return () => {};
}

async function loadOngoing(section) {
  let matches = [];
  try {
    const [active, waiting] = await Promise.all([
      listMatches({ status: "active", limit: 10 }),
      listMatches({ status: "waiting", limit: 10 }),
      loadCatalog().catch(() => null), // for the presets' labels; without it, their names
    ]);
    matches = [...(waiting.matches || []), ...(active.matches || [])];
  } catch {
    return; // the list is a convenience; the start forms still work
  }
  if (!section.isConnected || !matches.length) return;
  const me = store.player;
  section.hidden = false;
  replaceChildren(
    section,
    h("h2", { id: "ongoing-title" }, "Continue a match"),
    h(
      "ul",
      { class: "match-list" },
      matches.map((m) => {
        const other = (m.players || []).find((p) => p.name !== me?.name) || (m.players || [])[1] || {};
        return h(
          "li",
          {},
          h(
            "a",
            { href: `#/play/${encodeURIComponent(m.match_id)}` },
            m.status === "waiting" ? "Waiting for your friend" : `Against ${other.name || "?"}`,
          ),
          h("span", { class: "muted" }, ` \u00b7 ${rulesLabel(m.rules)} \u00b7 ${(m.scores || []).join("\u2013")} \u00b7 ${formatDate(m.updated_at || m.created_at)}`),
        );
      }),
    ),
  );
}
