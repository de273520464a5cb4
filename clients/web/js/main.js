// The client's entry point: hash routing between the pages. Routes:
//   #/                 start page              #/play/ID          the table
//   #/join/ID/CODE     redeem an invite        #/watch/ID/TOKEN   watch a match (read-only)
//   #/history          finished matches        #/history/ID       one match's hands
//   #/replay/ID        replay a finished match #/rules            how to play
//   #/replay           import a match (text notation) and replay it
//   #/account          sign up, sign in, passkeys, devices
//   #/player/ID        a player's page         #/leaderboard      the leaderboard
//   #/lobby            open challenges
//   #/stats            the player's record  #/analysis/ID      Hard's analysis of your play
//   #/stats            the player's record     #/ladder           the bot ladder

import { mountAccount } from "./account.js";
import { mountAnalysis } from "./analysis.js";
import { mountHistory, mountMatchDetail } from "./history.js";
import { mountHome } from "./home.js";
import { mountJoin } from "./join.js";
import { mountLadder } from "./ladder.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountLobby } from "./lobby.js";
import { installNavMore } from "./navmore.js";
import { mountPlayer } from "./player.js";
import { mountPlay } from "./play.js";
import { mountReplay } from "./replay.js";
import { mountRules } from "./rules.js";
import { applySettings } from "./settings.js";
import { mountStats } from "./stats.js";

const routes = [
  [/^\/?$/, (root) => mountHome(root)],
  [/^\/play\/([^/]+)$/, (root, [id]) => mountPlay(root, { matchId: id })],
  [/^\/watch\/([^/]+)\/([^/]+)$/, (root, [id, token]) => mountPlay(root, { matchId: id, watchToken: token })],
  [/^\/join\/([^/]+)\/([^/]+)$/, (root, [id, code]) => mountJoin(root, { matchId: id, code })],
  [/^\/history$/, (root) => mountHistory(root)],
  [/^\/history\/([^/]+)$/, (root, [id]) => mountMatchDetail(root, { matchId: id })],
  [/^\/replay\/([^/]+)$/, (root, [id]) => mountReplay(root, { matchId: id })],
  [/^\/replay$/, (root) => mountReplay(root, {})],
  [/^\/rules$/, (root) => mountRules(root)],
  [/^\/account$/, (root) => mountAccount(root)],
  [/^\/player\/([^/]+)$/, (root, [id]) => mountPlayer(root, { playerId: id })],
  [/^\/leaderboard$/, (root) => mountLeaderboard(root)],
  [/^\/lobby$/, (root) => mountLobby(root)],
  [/^\/ladder$/, (root) => mountLadder(root)],
  [/^\/stats$/, (root) => mountStats(root)],
  [/^\/analysis\/([^/]+)$/, (root, [id]) => mountAnalysis(root, { matchId: id })],
];

let cleanup = null;

function route() {
  const root = document.getElementById("app");
  const path = location.hash.replace(/^#/, "") || "/";
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  for (const [pattern, mount] of routes) {
    const m = path.match(pattern);
    if (m) {
      const params = m.slice(1).map((p) => decodeURIComponent(p));
      cleanup = mount(root, params) || null;
      markNav(path);
      return;
    }
  }
  location.replace("#/");
}

function markNav(path) {
  for (const a of document.querySelectorAll(".site-nav a")) {
    const target = a.getAttribute("href").replace(/^#/, "");
    const current = target === "/" ? path === "/" || path.startsWith("/play/") : path.startsWith(target);
    if (current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

// Invite links of the older query form /?match=ID&invite=CODE (the server now gives
// /#/join/ID/CODE, whose code no access log sees): turn one into a route.
function adoptQueryLink() {
  const q = new URLSearchParams(location.search);
  const match = q.get("match");
  const invite = q.get("invite");
  const watch = q.get("watch");
  if (!match || !(invite || watch)) return;
  const hash = invite
    ? `#/join/${encodeURIComponent(match)}/${encodeURIComponent(invite)}`
    : `#/watch/${encodeURIComponent(match)}/${encodeURIComponent(watch)}`;
  history.replaceState(null, "", `${location.pathname}${hash}`);
}

applySettings();
installNavMore();
adoptQueryLink();
window.addEventListener("hashchange", route);
route();
