// Beside the table: this hand's moves, the last hand's result, the watch link, resigning; and,
// before a friend has joined, the waiting panel with the invite link.

import { resignMatch } from "../api.js";
import { h, replaceChildren, toast } from "../dom.js";
import { resultSummary } from "../results.js";
import { store } from "../store.js";
import { describeEvent } from "../words.js";
import { settingsBox } from "./settingsbox.js";

export function renderSide(t) {
  const { s, el, watching, matchId } = t;
  const v = s.view;
  const history = v.hand?.history || [];
  const info = watching ? {} : store.matchInfo(matchId);
  const links = [];
  if (!watching && info.watch_token) links.push(shareBox("Watch link (read-only)", matchUrl(matchId, "watch", info.watch_token)));
  replaceChildren(
    el.side,
    watching ? h("p", { class: "panel watching-note" }, "You are watching this match: both hands stay hidden until each hand ends.") : null,
    h(
      "section",
      { class: "panel moves" },
      h("h2", {}, `Hand ${v.hand_number}: moves`),
      history.length
        ? h(
            "ol",
            // Newest first, numbered from the hand's first move: the last of 30 moves is "30.".
            { class: "move-list", reversed: true, start: history.length },
            [...history]
              .reverse()
              .slice(0, 12)
              .map((e) => h("li", { class: e.seat === v.seat ? "mine" : "theirs" }, describeEvent(v, e, { short: true }))),
          )
        : h("p", { class: "muted" }, "No moves yet."),
    ),
    v.last_result && v.status !== "finished"
      ? h(
          "section",
          { class: "panel" },
          h("h2", {}, "Last hand"),
          h("p", {}, resultSummary(v, v.last_result)),
          h(
            "button",
            { class: "btn small", type: "button", dataset: { focusKey: "last-hand" }, onclick: () => t.showResult(v.last_result, v.hand_number - 1) },
            "Show last hand",
          ),
        )
      : null,
    links,
    !watching && v.status !== "finished" ? resignBox(t) : null,
    settingsBox(t),
  );
}

export function renderWaiting({ s, el, watching, matchId }) {
  const isWaiting = s.view.status === "waiting";
  el.table.classList.toggle("is-waiting", isWaiting);
  el.waiting.hidden = !isWaiting;
  if (!isWaiting) {
    replaceChildren(el.waiting);
    return;
  }
  const info = watching ? {} : store.matchInfo(matchId);
  replaceChildren(
    el.waiting,
    h(
      "section",
      { class: "panel waiting", "aria-labelledby": "waiting-title" },
      h("h2", { id: "waiting-title" }, "Waiting for your friend"),
      h("p", {}, "Send them the invite link. The match starts as soon as they open it; this page will follow."),
      info.invite
        ? shareBox("Invite link for your friend", matchUrl(matchId, "join", info.invite.code))
        : h("p", { class: "muted" }, "The invite link was shown on the device that created this match."),
    ),
  );
}

function resignBox(t) {
  const { s } = t;
  const confirm = (on) => () => {
    s.resignConfirm = on;
    t.render();
  };
  if (!s.resignConfirm) {
    return h(
      "div",
      { class: "resign" },
      h("button", { class: "btn small subtle", type: "button", dataset: { focusKey: "resign" }, onclick: confirm(true) }, "Resign\u2026"),
    );
  }
  const resign = async () => {
    s.resignConfirm = false;
    try {
      await resignMatch(t.matchId);
    } catch (e) {
      toast(e.message, "error");
    }
  };
  return h(
    "div",
    { class: "resign confirm", role: "group", "aria-label": "Confirm resigning" },
    h("span", {}, "Resign this match?"),
    h("button", { class: "btn small danger", type: "button", dataset: { focusKey: "resign-yes" }, onclick: resign }, "Yes, resign"),
    h("button", { class: "btn small", type: "button", dataset: { focusKey: "resign" }, onclick: confirm(false) }, "Keep playing"),
  );
}

/** This page's address for the match's join (invite code) or watch (watch token) link. */
function matchUrl(matchId, route, secret) {
  return `${location.origin}${location.pathname}#/${route}/${encodeURIComponent(matchId)}/${encodeURIComponent(secret)}`;
}

function shareBox(title, url) {
  const id = `share-${title.replace(/\W+/g, "-").toLowerCase()}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      toast("Link copied.");
    } catch {
      document.getElementById(id)?.select();
      toast("Select the link and copy it.");
    }
  };
  return h(
    "section",
    { class: "panel share" },
    h("label", { for: id }, title),
    h("input", { id, type: "text", readonly: true, value: url, onfocus: (e) => e.target.select() }),
    h("button", { class: "btn small", type: "button", dataset: { focusKey: `copy:${id}` }, onclick: copy }, "Copy link"),
  );
}
