// Exports in the browser: buttons that download a match as JSON or in the text notation
// (GET /api/matches/{id}/export), all finished matches as NDJSON (GET /api/players/me/export),
// and the form that imports a notation file (pasted or chosen) for the replay page.

import { ApiError } from "./api.js";
import { h } from "./dom.js";
import { asRecord, parseMatch } from "./notation.js";
import { store } from "./store.js";

async function download(path, filename) {
  const headers = {};
  if (store.player?.token) headers.Authorization = `Bearer ${store.player.token}`;
  const response = await fetch(path, { headers });
  if (!response.ok) {
    const err = (await response.json().catch(() => null))?.error || {};
    throw new ApiError(response.status, err.code || `http_${response.status}`, err.message || response.statusText);
  }
  const url = URL.createObjectURL(await response.blob());
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function exportButton(text, label, path, filename, status) {
  return h(
    "button",
    {
      class: "btn",
      type: "button",
      "aria-label": label,
      onclick: async (e) => {
        e.currentTarget.disabled = true;
        const button = e.currentTarget;
        try {
          await download(path, filename);
          status.textContent = `Saved ${filename}.`;
        } catch (err) {
          status.textContent = `Could not export: ${err.message}`;
        }
        button.disabled = false;
      },
    },
    text,
  );
}

/** "Export JSON" and "Export text" for one match. */
export function matchExportButtons(matchId) {
  const id = encodeURIComponent(matchId);
  const status = h("span", { class: "muted export-status", role: "status" });
  return h(
    "div",
    { class: "export-buttons", role: "group", "aria-label": "Export this match" },
    exportButton("Export JSON", "Export this match as JSON", `/api/matches/${id}/export?format=json`, `${matchId}.json`, status),
    exportButton("Export text", "Export this match in the text notation", `/api/matches/${id}/export?format=text`, `${matchId}.txt`, status),
    status,
  );
}

/** "Export all (NDJSON)": every finished match of this player, one per line. */
export function allExportButton() {
  const status = h("span", { class: "muted export-status", role: "status" });
  return h(
    "div",
    { class: "export-buttons" },
    exportButton("Export all (NDJSON)", "Export all your finished matches as NDJSON", "/api/players/me/export", "ginrummy-matches.ndjson", status),
    h("a", { class: "btn", href: "#/replay" }, "Import a match"),
    status,
  );
}

/** The import form: paste the notation or choose a file; `onRecord(record, exported)` gets the
 * parsed match as the replay plays it. */
export function importForm(onRecord) {
  const area = h("textarea", { id: "notation-text", name: "notation", rows: "8", spellcheck: "false", placeholder: '[game "Gin Rummy"]\n…' });
  const file = h("input", { id: "notation-file", type: "file", accept: ".txt,text/plain" });
  const error = h("p", { class: "form-error", role: "alert" });
  function load(text) {
    error.textContent = "";
    try {
      const exported = parseMatch(text);
      const record = asRecord(exported);
      if (!record.hands.length) throw new Error("this match has no hand whose every card is shown, so nothing to replay");
      onRecord(record, exported);
    } catch (e) {
      error.textContent = `Could not read this match: ${e.message}`;
    }
  }
  area.addEventListener("input", () => {
    error.textContent = "";
  });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen) {
      area.value = await chosen.text();
      load(area.value);
    }
  });
  return h(
    "form",
    {
      class: "import-form",
      onsubmit: (e) => {
        e.preventDefault();
        load(area.value);
      },
    },
    h("p", {}, "Paste a match in the text notation (an exported ", h("code", {}, ".txt"), "), or choose the file."),
    h("div", { class: "field" }, h("label", { for: "notation-text" }, "Match notation"), area),
    h("div", { class: "field" }, h("label", { for: "notation-file" }, "Or a file"), file),
    error,
    h("button", { class: "btn primary", type: "submit" }, "Replay it"),
  );
}
