// Opening an invite link (#/join/ID/CODE): make sure the friend has a name, redeem the invite
// with POST /api/matches/{id}/join, then go to the table. The match's creator (this browser made
// it) and a player who already has the seat go straight to the table; a full match, a wrong or
// unknown link each get their own page in plain words, never the server's raw text.

import { ApiError, joinMatch } from "./api.js";
import { h, replaceChildren } from "./dom.js";
import { ensurePlayer, nameField } from "./home.js";
import { store } from "./store.js";

/** What to tell the friend when the server refuses the invite: [heading, sentence]. */
function refusal(e) {
  if (!(e instanceof ApiError)) return ["The invite could not be opened", "The server could not be reached. Check your connection and try again."];
  switch (e.code) {
    case "match_full":
      return ["This match already has two players", "Someone else opened this invite first. Ask for the watch link to follow the match, or start a match of your own."];
    case "not_found":
      return ["There is no such match", "This invite link does not match any game. Check that you copied the whole link."];
    case "forbidden":
      return ["This invite link is not valid", "The invite code in the link does not fit this match. Ask your friend to send the link again."];
    case "match_over":
      return ["This match is over", "The match of this invite has finished."];
    case "conflict":
      return ["This match has no seat to join", "This match is played against the computer."];
    case "too_many_matches":
      return ["You have too many matches going", "Finish or resign one of your matches, then open the invite again."];
    case "rate_limited":
      return ["Too many tries", "Wait a moment, then try again."];
    default:
      return ["The invite could not be opened", "Something went wrong on the server. Try again in a moment."];
  }
}

export function mountJoin(root, { matchId, code }) {
  const play = () => {
    store.currentMatch = matchId;
    location.replace(`#/play/${encodeURIComponent(matchId)}`);
  };
  // The creator opening their own invite link: they have the seat already.
  if (store.player && store.matchInfo(matchId).seat === 0) {
    play();
    return () => {};
  }

  const error = h("p", { class: "form-error", role: "alert" });

  function refused(e) {
    const [title, words] = refusal(e);
    replaceChildren(
      root,
      h(
        "section",
        { class: "join refused panel", "aria-labelledby": "join-refused" },
        h("h1", { id: "join-refused", tabindex: "-1" }, title),
        h("p", {}, words),
        h(
          "div",
          { class: "button-row" },
          h("a", { class: "btn primary", href: "#/" }, "Start a match"),
          h("a", { class: "btn", href: "#/history" }, "Your matches"),
          h("a", { class: "btn", href: "#/rules" }, "How to play"),
        ),
      ),
    );
    root.querySelector("h1").focus({ preventScroll: true });
  }

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
        play(); // opening the link again just goes to the table
        return;
      }
      if (e instanceof ApiError && e.status === 401) {
        store.player = null;
        error.textContent = "Your saved name was not recognised: enter a name and try again.";
        form?.querySelectorAll("button").forEach((b) => (b.disabled = false));
        return;
      }
      if (e instanceof ApiError && e.code === "bad_request" && form) {
        error.textContent = "Type your name (up to 40 characters), then join.";
        form.querySelectorAll("button").forEach((b) => (b.disabled = false));
        return;
      }
      refused(e);
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
