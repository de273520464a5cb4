// Opening an invite link (#/join/ID/CODE): make sure the friend has a name, redeem the invite
// with POST /api/matches/{id}/join, then go to the table.

import { ApiError, joinMatch } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { ensurePlayer, nameField } from "./home.js";
import { store } from "./store.js";

export function mountJoin(root, { matchId, code }) {
  const error = h("p", { class: "form-error", role: "alert" });
  const play = () => {
    store.currentMatch = matchId;
    location.replace(`#/play/${encodeURIComponent(matchId)}`);
  };

  async function join(form) {
    error.textContent = "";
    form?.querySelectorAll("button").forEach((b) => (b.disabled = true));
    try {
      await ensurePlayer(root);
      const m = await joinMatch(matchId, code);
      store.saveMatchInfo(matchId, { seat: m.seat });
      play();
    } catch (e) {
      if (e instanceof ApiError && e.code === "already_joined") {
        play(); // opening the link again (or the creator opening it) just goes to the table
        return;
      }
      if (e instanceof ApiError && e.status === 401) store.player = null;
      error.textContent =
        e instanceof ApiError && e.status === 404
          ? "This invite link does not match any game."
          : e instanceof ApiError && e.status === 409
            ? "This match already has two players."
            : e.message;
      form?.querySelectorAll("button").forEach((b) => (b.disabled = false));
    }
  }

  const player = store.player;
  const form = h(
    "form",
    {
      class: "panel start",
      onsubmit: (e) => {
        e.preventDefault();
        join(e.target);
      },
    },
    player ? h("p", {}, `You will play as ${player.name}.`) : nameField(),
    h("button", { class: "btn primary big", type: "submit" }, "Join the match"),
  );
  replaceChildren(
    root,
    h(
      "section",
      { class: "join" },
      h("h1", { tabindex: "-1" }, "You are invited to a game of Gin Rummy"),
      error,
      form,
      h("p", {}, h("a", { href: "#/rules" }, "How to play")),
    ),
  );
  root.querySelector("h1").focus({ preventScroll: true });
  return () => {};
}
