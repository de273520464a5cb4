// Quick pairing in the lobby (#/lobby): choose rules, clock and rated or casual, seek, and the
// server pairs you with the next stranger who seeks the same (docs/protocol.md, "Quick
// pairing"). The seek lives on its own socket (/ws/lobby): cancelling, leaving the page or
// closing the tab withdraws it. When paired, we go to the table.

import { loadCatalog } from "./catalog.js";
import { h, replaceChildren } from "./dom.js";
import { ensurePlayer } from "./home.js";
import { store } from "./store.js";
import { chosenTimeControl, clockFieldset } from "./timecontrols.js";

const COMPUTER_AFTER = 30;

function lobbyUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws/lobby`;
}

function elapsedText(seconds) {
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return `${m}:${s}`;
}

/** The quick pairing panel; `stop()` withdraws a seek under way (the page is leaving). */
export function quickPairing(root) {
  let ws = null;
  let timer = 0;
  const error = h("p", { class: "form-error", role: "alert" });
  const rules = h("select", { id: "seek-rules", name: "rules" }, h("option", { value: "house" }, "House rules"));
  loadCatalog().then(
    (c) => replaceChildren(rules, c.rules.map((r) => h("option", { value: r.name, selected: r.name === "house" }, r.label))),
    () => {},
  );
  const form = h(
    "form",
    { class: "panel seek-form", "aria-labelledby": "quick-pairing", onsubmit: (e) => (e.preventDefault(), start()) },
    h("h2", { id: "quick-pairing" }, "Quick pairing"),
    h("p", { class: "note" }, "Play the next person who seeks the same match."),
    h("div", { class: "field" }, h("label", { for: "seek-rules" }, "Rules"), rules),
    clockFieldset("seek-clock"),
    h(
      "fieldset",
      {},
      h("legend", {}, "Match"),
      h("label", { class: "choice" }, h("input", { type: "radio", name: "seek-rated", value: "casual", checked: true }), h("span", { class: "choice-text" }, h("strong", {}, "Casual"))),
      h("label", { class: "choice" }, h("input", { type: "radio", name: "seek-rated", value: "rated" }), h("span", { class: "choice-text" }, h("strong", {}, "Rated"))),
      h("label", { class: "choice check" }, h("input", { type: "checkbox", name: "seek-computer", value: "yes" }), h("span", { class: "choice-text" }, h("strong", {}, `Play the computer if nobody comes within ${COMPUTER_AFTER} s`), h("span", { class: "note" }, "Untimed and casual."))),
    ),
    error,
    h("button", { class: "btn primary big", type: "submit" }, "Seek a match"),
  );
  const elapsed = h("span", { class: "seek-elapsed", "aria-hidden": "true" }, "0:00");
  const cancel = h("button", { class: "btn", type: "button", onclick: () => withdraw() }, "Cancel");
  const seekingText = h("p", { class: "seek-status", role: "status" }, "Seeking a match\u2026");
  const seeking = h(
    "div",
    { class: "panel seeking", hidden: true },
    h("div", { class: "seek-spinner", "aria-hidden": "true" }),
    h("div", { class: "seek-words" }, seekingText, h("p", { class: "muted" }, "Waiting ", elapsed, " \u00b7 keep this page open")),
    cancel,
  );
  const panel = h("div", { class: "quick-pairing" }, form, seeking);

  function show(isSeeking) {
    form.hidden = isSeeking;
    seeking.hidden = !isSeeking;
    if (!isSeeking) clearInterval(timer);
  }

  async function start() {
    error.textContent = "";
    const f = new FormData(form);
    let player;
    try {
      player = await ensurePlayer(root);
    } catch (e) {
      error.textContent = e.message;
      return;
    }
    const timeControl = chosenTimeControl(f.get("seek-clock"));
    const message = { type: "seek", token: player.token, rules: f.get("rules") || "house", rated: f.get("seek-rated") === "rated" };
    if (timeControl) message.time_control = timeControl;
    if (f.get("seek-computer") === "yes") message.computer_after = COMPUTER_AFTER;
    const socket = new WebSocket(lobbyUrl());
    ws = socket;
    socket.addEventListener("open", () => socket.send(JSON.stringify(message)));
    socket.addEventListener("message", (event) => receive(socket, JSON.parse(event.data)));
    socket.addEventListener("close", () => {
      if (ws === socket) {
        ws = null;
        show(false);
        error.textContent = "The connection to the server was lost: seek again.";
      }
    });
    const began = Date.now();
    elapsed.textContent = "0:00";
    seekingText.textContent = "Seeking a match\u2026";
    show(true);
    timer = setInterval(() => (elapsed.textContent = elapsedText(Math.floor((Date.now() - began) / 1000))), 1000);
    cancel.focus({ preventScroll: true });
  }

  function receive(socket, m) {
    if (m.type === "seeking") {
      seekingText.textContent = m.computer_at ? "Seeking a match\u2026 the computer comes if nobody does." : "Seeking a match\u2026";
    } else if (m.type === "paired") {
      ws = null;
      socket.close();
      clearInterval(timer);
      store.saveMatchInfo(m.match_id, { seat: m.seat });
      store.currentMatch = m.match_id;
      location.hash = `#/play/${encodeURIComponent(m.match_id)}`;
    } else if (m.type === "cancelled") {
      stop("Seek cancelled.");
    } else if (m.type === "error") {
      ws = null;
      socket.close();
      show(false);
      if (m.code === "unauthorized") store.player = null;
      error.textContent =
        m.code === "conflict" ? "You are already seeking a match (in another tab?)." : m.code === "unauthorized" ? "The server did not recognise you: reload the page and type your name." : m.message[0].toUpperCase() + m.message.slice(1);
    }
  }

  /** Ask the server to withdraw the seek: it answers cancelled, or paired if it was paired first. */
  function withdraw() {
    if (ws && ws.readyState === WebSocket.OPEN) {
      cancel.disabled = true;
      ws.send(JSON.stringify({ type: "cancel" }));
    } else {
      stop("Seek cancelled.");
    }
  }

  function stop(words = "") {
    cancel.disabled = false;
    const socket = ws;
    ws = null;
    if (socket) socket.close(); // the server withdraws the seek with its socket
    show(false);
    if (words) error.textContent = words;
  }

  return { panel, stop };
}
