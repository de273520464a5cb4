// The card table: draws the server's view of one match and turns taps, drags and keys into the
// actions listed in `legal_actions`. It never decides what is legal or what a hand is worth:
// melds, deadwood, the deadwood after each discard and the results all come from the view.
// (Sorting by rank or suit and the player's own drag order are presentation only.)

import { getMatch, resignMatch } from "./api.js";
import { byRank, bySuit, cardBack, cardFace, cardName, cardShort } from "./cards.js";
import { announce, h, replaceChildren, toast } from "./dom.js";
import { resultBlock, resultSummary, scoreboard } from "./results.js";
import { MatchSocket } from "./socket.js";
import { store } from "./store.js";
import { describeEvent, fallbackStatus, playerName, who } from "./words.js";

const SORT_MODES = [
  ["best", "Melds"],
  ["rank", "Rank"],
  ["suit", "Suit"],
];

export function mountPlay(root, { matchId, watchToken = null }) {
  const watching = !!watchToken;
  const player = store.player;
  const token = watchToken || player?.token;
  if (!token) {
    replaceChildren(
      root,
      h(
        "section",
        { class: "panel" },
        h("h1", { tabindex: "-1" }, "This match is not yours yet"),
        h("p", {}, "Open the invite link your friend sent you, or start a match of your own."),
        h("a", { class: "btn primary", href: "#/" }, "Start a match"),
      ),
    );
    return () => {};
  }
  if (!watching) store.currentMatch = matchId;

  const s = {
    view: null,
    prev: null,
    selected: null,
    pending: null,
    pendingVersion: null,
    mode: store.sortMode(),
    drag: null,
    renderDeferred: false,
    suppressClick: false,
    fresh: new Set(),
    conn: "connecting",
    connDetail: "",
    matchDetails: null,
    resignConfirm: false,
    staleTimer: 0,
    lostFocus: null,
  };

  // --- skeleton (built once; regions are redrawn on every state) --------------------------------
  const heading = h("h1", { class: "sr-only", tabindex: "-1" }, watching ? "Watching a match" : "Your match");
  const connBanner = h("div", { class: "conn-banner", role: "status", hidden: true });
  const scorebar = h("div", { class: "scorebar" });
  const opponent = h("div", { class: "seat-area opponent-area" });
  const piles = h("div", { class: "piles" });
  const statusLine = h("p", { class: "status-line", id: "status-line" });
  const hint = h("p", { class: "hint", id: "hand-hint" });
  const handArea = h("div", { class: "seat-area my-area" });
  const actions = h("div", { class: "actions" });
  const side = h("aside", { class: "side", "aria-label": "This hand and the match" });
  const finished = h("div", { class: "finished-area" });
  const waiting = h("div", { class: "waiting-area" });
  const dialog = h("dialog", { class: "result-dialog", "aria-labelledby": "result-title" });
  const felt = h(
    "div",
    { class: "felt", role: "region", "aria-label": "Card table" },
    opponent,
    piles,
    statusLine,
    hint,
    handArea,
    actions,
  );
  const table = h(
    "section",
    { class: "play", "aria-labelledby": "play-heading" },
    heading,
    connBanner,
    scorebar,
    h("div", { class: "play-main" }, h("div", { class: "table-col" }, waiting, felt, finished), side),
    dialog,
  );
  heading.id = "play-heading";
  replaceChildren(root, table);

  // --- helpers over the view ---------------------------------------------------------------------
  const legal = () => (s.view?.hand?.legal_actions || []);
  const can = (kind, extra = {}) =>
    legal().some((a) => a.kind === kind && Object.entries(extra).every(([k, v]) => a[k] === v));
  const myTurn = () => s.view && s.view.seat !== null && s.view.hand?.to_act === s.view.seat && s.view.status === "active";
  const discardPhase = () => myTurn() && s.view.hand.phase === "discard";
  const deadwoodAfter = (code) => s.view?.hand?.discard_deadwood?.[code];

  function orderedHand() {
    const cards = s.view?.hand?.hand || [];
    if (s.mode === "rank") return [...cards].sort(byRank);
    if (s.mode === "suit") return [...cards].sort(bySuit);
    if (s.mode === "custom") {
      const saved = store.order(matchId);
      if (saved && saved.hand === s.view.hand_number) {
        const have = new Set(cards);
        const kept = saved.custom.filter((c) => have.has(c));
        const keptSet = new Set(kept);
        return [...kept, ...cards.filter((c) => !keptSet.has(c))]; // a new card goes on the right
      }
      s.mode = "best";
    }
    return cards;
  }

  function setCustomOrder(order) {
    s.mode = "custom";
    store.saveOrder(matchId, { hand: s.view.hand_number, custom: order });
  }

  // --- sending actions -----------------------------------------------------------------------------
  function send(action) {
    if (s.pending) return;
    if (!legal().some((a) => a.kind === action.kind && a.card === action.card && a.source === action.source)) {
      toast("That move is not allowed now.", "error");
      return;
    }
    const id = socket.act(action);
    if (!id) {
      toast("Not connected: reconnecting, try again in a moment.", "error");
      return;
    }
    s.pending = id;
    s.pendingVersion = s.view.version;
    if (action.kind === "discard" || action.kind === "knock") s.selected = null;
    render();
  }

  function discardSelected(code = s.selected) {
    if (!code) return;
    if (can("discard", { card: code })) send({ kind: "discard", card: code });
    else toast(whyNotDiscard(code), "error");
  }

  function whyNotDiscard(code) {
    if (!myTurn()) return "Wait for your turn.";
    if (s.view.hand.phase !== "discard") return "Draw a card first, from the stock or the discard pile.";
    return `You just took ${cardName(code)} from the discard pile: discard a different card.`;
  }

  function knockSelected() {
    const code = s.selected;
    if (code && can("knock", { card: code })) send({ kind: "knock", card: code });
  }

  // --- events from the server ------------------------------------------------------------------------
  function onState(view) {
    const prev = s.view;
    s.prev = prev;
    s.view = view;
    if (s.pending && view.version > (s.pendingVersion ?? -1)) s.pending = null;
    clearTimeout(s.staleTimer);
    // A selection survives only while the card is still in the hand.
    if (s.selected && !(view.hand?.hand || []).includes(s.selected)) s.selected = null;
    // A new hand: the player's own drag order belonged to the last one.
    if (prev && prev.hand_number !== view.hand_number && s.mode === "custom") s.mode = store.sortMode();
    // After a reload, the player's own order of this hand comes back.
    if (!prev && !watching && store.order(matchId)?.hand === view.hand_number) s.mode = "custom";
    s.fresh = freshCards(prev, view);
    announceChanges(prev, view);
    if (view.status === "finished" && !watching) {
      if (store.currentMatch === matchId) store.currentMatch = null;
      if (!s.matchDetails) loadDetails();
    }
    if (s.drag?.active) s.renderDeferred = true;
    else render();
    maybeShowResult(view);
  }

  function freshCards(prev, view) {
    if (!prev || prev.hand_number !== view.hand_number) return new Set();
    const before = new Set(prev.hand?.hand || []);
    return new Set((view.hand?.hand || []).filter((c) => !before.has(c)));
  }

  function announceChanges(prev, view) {
    const parts = [];
    const hand = view.hand || {};
    const history = hand.history || [];
    let newEvents = [];
    if (!prev) {
      parts.push(`Hand ${view.hand_number}.`);
    } else if (prev.hand_number !== view.hand_number) {
      const r = view.last_result;
      if (r) parts.push(`Hand ${prev.hand_number} is over. ${resultSummary(view, r)}.`);
      parts.push(`Hand ${view.hand_number} is dealt.`);
      newEvents = history;
    } else if (history.length > (prev.hand?.history || []).length) {
      newEvents = history.slice((prev.hand?.history || []).length);
    }
    for (const e of newEvents) {
      if (e.seat !== view.seat) parts.push(`${describeEvent(view, e)}.`);
    }
    for (const c of s.fresh) parts.push(`You got ${cardName(c)}.`);
    if (view.outcome && (!prev || !prev.outcome)) {
      const r = hand.result || view.last_result;
      if (r && prev) parts.push(`${resultSummary(view, r)}.`);
      parts.push(view.outcome.winner === view.seat ? "You win the match!" : `${playerName(view, view.outcome.winner)} wins the match.`);
    }
    if (!prev || newEvents.length || prev.hand_number !== view.hand_number || prev.status !== view.status) {
      if (myTurn() || watching || !prev) parts.push(view.status_line || fallbackStatus(view));
    }
    announce(parts.join(" "));
  }

  function onError(msg) {
    if (msg.id && msg.id === s.pending) {
      s.pending = null;
      render();
    }
    if (msg.code === "stale_version") {
      // Our view was a move behind; a newer state is normally on its way. If none comes, resync.
      clearTimeout(s.staleTimer);
      s.staleTimer = setTimeout(() => socket.resync(), 1500);
      toast("The table changed just before your move; look again.", "info");
      return;
    }
    toast(msg.message || msg.code || "The server refused that.", "error");
  }

  function onStatus(status, detail) {
    s.conn = status;
    s.connDetail = detail || "";
    if (status === "closed" && !watching && detail && detail.includes("not valid")) {
      // Our token does not fit this match: stop trying to resume it.
      if (store.currentMatch === matchId) store.currentMatch = null;
    }
    renderConn();
  }

  async function loadDetails() {
    s.matchDetails = "loading";
    try {
      s.matchDetails = await getMatch(matchId);
    } catch {
      s.matchDetails = null;
      return;
    }
    renderFinished();
  }

  const socket = new MatchSocket({
    matchId,
    token,
    onState,
    onError,
    onStatus,
  });
  socket.connect();

  // --- drawing ---------------------------------------------------------------------------------------
  function render() {
    if (!s.view) return;
    const active = document.activeElement;
    const inTable = active && active !== document.body && table.contains(active);
    // A control that was focused but got disabled (the stock while our draw is on its way) has
    // dropped the focus; remember where it was so the next redraw can place it sensibly.
    const focusKey = inTable ? active.dataset.focusKey : active === document.body ? s.lostFocus : null;
    const focusInHand = !!(inTable && handArea.contains(active));
    s.lostFocus = null;

    renderConn();
    // Busy while an action of ours is on its way: the controls wait for the server's answer.
    if (s.pending) felt.setAttribute("aria-busy", "true");
    else felt.removeAttribute("aria-busy");
    renderScorebar();
    renderOpponent();
    renderPiles();
    renderStatus();
    renderHand();
    renderActions();
    renderSide();
    renderWaiting();
    renderFinished();

    if (focusKey) {
      // Keep keyboard focus where it was across redraws; when that control is gone or no longer
      // usable (the stock after drawing, a discarded card), move it into the hand.
      const again = table.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
      if (again && !again.disabled) again.focus({ preventScroll: true });
      else if (focusInHand || discardPhase()) {
        const fresh = [...s.fresh][0];
        const target = (fresh && handArea.querySelector(`[data-card="${fresh}"]`)) || handArea.querySelector("button.card");
        target?.focus({ preventScroll: true });
      } else s.lostFocus = focusKey;
    }
  }

  function renderConn() {
    const text =
      s.conn === "reconnecting"
        ? "Connection lost: reconnecting\u2026"
        : s.conn === "connecting"
          ? "Connecting\u2026"
          : s.conn === "closed"
            ? `Disconnected. ${s.connDetail}`
            : "";
    connBanner.hidden = !text;
    connBanner.textContent = text;
    connBanner.dataset.state = s.conn;
    const pill = document.getElementById("conn-pill");
    if (pill) {
      pill.hidden = false;
      pill.dataset.state = s.conn;
      pill.textContent = { open: "Online", connecting: "Connecting\u2026", reconnecting: "Reconnecting\u2026", closed: "Offline" }[s.conn];
    }
  }

  function renderScorebar() {
    const v = s.view;
    const seats = v.seat === 1 ? [1, 0] : [0, 1];
    const rules = v.rules || {};
    replaceChildren(
      scorebar,
      h(
        "dl",
        { class: "scores" },
        seats.map((seat) =>
          h(
            "div",
            { class: `score ${v.hand?.to_act === seat && v.status === "active" ? "to-act" : ""}` },
            h("dt", {}, who(v, seat)),
            h("dd", {}, String(v.scores?.[seat] ?? 0)),
          ),
        ),
      ),
      h(
        "p",
        { class: "match-meta" },
        `Hand ${v.hand_number} \u00b7 ${rules.name === "classic" ? "Classic" : "House"} rules \u00b7 to ${rules.target ?? 100}`,
      ),
    );
  }

  function renderOpponent() {
    const v = s.view;
    const seat = v.seat === null ? 1 : 1 - v.seat;
    const p = (v.players || []).find((x) => x.seat === seat) || {};
    const count = v.hand?.hand_counts?.[seat] ?? 0;
    const toAct = v.hand?.to_act === seat && v.status === "active";
    const theirEvents = (v.hand?.history || []).filter((e) => e.seat === seat);
    const last = theirEvents.slice(-2);
    replaceChildren(opponent, seatSummary(v, seat, count, toAct, p, last));
    if (watching) {
      // A watcher sees seat 0 at the bottom the same way.
      const bottom = 0;
      const bc = v.hand?.hand_counts?.[bottom] ?? 0;
      const bl = (v.hand?.history || []).filter((e) => e.seat === bottom).slice(-2);
      const bp = (v.players || []).find((x) => x.seat === bottom) || {};
      const toActBottom = v.hand?.to_act === bottom && v.status === "active";
      replaceChildren(handArea, seatSummary(v, bottom, bc, toActBottom, bp, bl));
    }
  }

  function seatSummary(v, seat, count, toAct, p, last) {
    return h(
      "div",
      { class: "seat-summary" },
      h(
        "div",
        { class: "seat-head" },
        h("h2", { class: "seat-name" }, playerName(v, seat)),
        h(
          "div",
          { class: "backs", role: "img", "aria-label": `${playerName(v, seat)} holds ${count} cards` },
          Array.from({ length: count }, () => cardBack("small")),
        ),
        toAct ? h("span", { class: "badge thinking" }, p.kind === "computer" ? "thinking\u2026" : "to play") : null,
        p.kind === "human" && p.connected === false ? h("span", { class: "badge away" }, "offline") : null,
      ),
      h(
        "p",
        { class: "last-move" },
        last.length
          ? last
              .map((e, i) => describeEvent(v, e, { short: true, subject: false }).replace(/^./, (c) => (i ? c.toLowerCase() : c)))
              .join(", then ")
          : "\u00a0",
      ),
    );
  }

  function renderPiles() {
    const v = s.view;
    const hand = v.hand || {};
    const pile = hand.discard_pile || [];
    const top = pile[pile.length - 1];
    const under = pile[pile.length - 2];
    const canStock = can("draw", { source: "stock" });
    const canDrawDiscard = can("draw", { source: "discard" });
    const canTake = can("take_upcard");
    const canDropHere = discardPhase() && s.selected && can("discard", { card: s.selected });
    const discardLive = !watching && (canDrawDiscard || canTake || canDropHere);
    const history = hand.history || [];
    const lastEvent = history[history.length - 1];
    const topJustDiscarded = lastEvent && (lastEvent.kind === "discard" || lastEvent.kind === "knock") && lastEvent.card === top;

    const stock = h(
      "button",
      {
        class: `pile stock ${canStock ? "live" : ""}`,
        "aria-label": `Stock, ${hand.stock_count ?? 0} cards`,
        disabled: watching || !canStock || !!s.pending,
        dataset: { focusKey: "stock" },
        onclick: () => send({ kind: "draw", source: "stock" }),
      },
      h("span", { class: "card back" }),
      h("span", { class: "pile-count", "aria-hidden": "true" }, String(hand.stock_count ?? 0)),
    );
    let discardLabel = top ? `Discard pile, top card ${cardName(top)}` : "Discard pile, empty";
    if (canDropHere) discardLabel = `Discard pile: discard ${cardName(s.selected)} here`;
    const discard = h(
      "button",
      {
        class: `pile discard ${discardLive ? "live" : ""} ${topJustDiscarded ? "just-discarded" : ""}`,
        "aria-label": discardLabel,
        disabled: !discardLive || !!s.pending,
        dataset: { focusKey: "discard" },
        onclick: () => {
          if (canDropHere) discardSelected();
          else if (canTake) send({ kind: "take_upcard" });
          else if (canDrawDiscard) send({ kind: "draw", source: "discard" });
        },
      },
      under ? h("span", { class: "card under" }, cardFace(under)) : null,
      top ? h("span", { class: "card top" }, cardFace(top)) : h("span", { class: "card empty" }),
    );
    const offer =
      canTake || (hand.phase === "upcard" && can("pass"))
        ? h(
            "div",
            { class: "offer", role: "group", "aria-label": "The upcard offer" },
            h("button", { class: "btn primary", dataset: { focusKey: "take" }, disabled: !!s.pending, onclick: () => send({ kind: "take_upcard" }) }, "Take"),
            h("button", { class: "btn", dataset: { focusKey: "pass" }, disabled: !!s.pending, onclick: () => send({ kind: "pass" }) }, "Pass"),
          )
        : null;
    replaceChildren(
      piles,
      h("div", { class: "pile-slot" }, stock, h("span", { class: "pile-caption", "aria-hidden": "true" }, "Stock")),
      h("div", { class: "pile-slot" }, discard, h("span", { class: "pile-caption", "aria-hidden": "true" }, "Discard pile")),
      offer,
    );
  }

  function renderStatus() {
    const v = s.view;
    statusLine.textContent = v.status_line || fallbackStatus(v);
    statusLine.classList.toggle("my-turn", !!myTurn());
    let text = "";
    if (discardPhase()) {
      if (s.selected) {
        const left = deadwoodAfter(s.selected);
        if (left === undefined) text = `${cardShort(s.selected)} was just taken from the discard pile: choose another card.`;
        else {
          const limit = v.rules?.knock_limit ?? 10;
          text = `Discarding ${cardShort(s.selected)} leaves ${left} deadwood` +
            (can("knock", { card: s.selected }) ? (left === 0 ? ": you can go gin!" : ": you can knock.") : ` (a knock needs ${limit} or less).`) +
            " Tap it again or drag it to the pile to discard.";
        }
      } else {
        text = "Tap a card to select it, then tap it again or drag it to the discard pile.";
      }
    } else if (myTurn() && v.hand.phase === "upcard") {
      const pile = v.hand.discard_pile || [];
      if (pile.length) text = `The upcard is ${cardShort(pile[pile.length - 1])}: take it, or pass.`;
    }
    hint.textContent = text;
  }

  function renderHand() {
    if (watching) return; // the watcher's bottom seat is drawn by renderOpponent
    const v = s.view;
    const hand = v.hand || {};
    const order = orderedHand();
    const meldOf = new Map();
    (hand.melds || []).forEach((meld, i) => meld.forEach((c) => meldOf.set(c, i)));
    const dPhase = discardPhase();
    let lastGroup = null;
    const buttons = order.map((code, index) => {
      const meld = meldOf.get(code);
      const group = meld === undefined ? "dead" : `m${meld}`;
      const groupStart = s.mode === "best" && index > 0 && group !== lastGroup;
      lastGroup = group;
      const selected = s.selected === code;
      const blocked = dPhase && deadwoodAfter(code) === undefined;
      let label = cardName(code);
      if (meld !== undefined) label += ", melded";
      if (s.fresh.has(code)) label += ", just drawn";
      if (blocked) label += ", cannot be discarded this turn";
      return h(
        "button",
        {
          class: ["card", "hand-card", meld === undefined ? "deadwood" : `melded meld-${meld % 4}`, selected ? "selected" : "", groupStart ? "group-start" : "", s.fresh.has(code) ? "fresh" : "", blocked ? "blocked" : ""].filter(Boolean).join(" "),
          type: "button",
          "aria-label": label,
          "aria-pressed": selected ? "true" : "false",
          "aria-describedby": "hand-hint",
          dataset: { card: code, focusKey: `card:${code}` },
          onclick: () => onCardClick(code),
          onkeydown: (e) => onCardKey(e, code),
          onpointerdown: (e) => onPointerDown(e, code),
        },
        cardFace(code),
      );
    });
    const sortGroup = h(
      "div",
      { class: "sort", role: "group", "aria-label": "Sort your hand" },
      h("span", { class: "sort-label", "aria-hidden": "true" }, "Sort:"),
      SORT_MODES.map(([mode, text]) =>
        h(
          "button",
          {
            class: "btn small",
            type: "button",
            "aria-pressed": s.mode === mode ? "true" : "false",
            "aria-label": mode === "best" ? "Sort by melds" : `Sort by ${text.toLowerCase()}`,
            dataset: { focusKey: `sort:${mode}` },
            onclick: () => {
              s.mode = mode;
              store.saveSortMode(mode);
              store.saveOrder(matchId, null);
              render();
            },
          },
          text,
        ),
      ),
      s.mode === "custom" ? h("span", { class: "muted small" }, "your order") : null,
    );
    replaceChildren(
      handArea,
      h(
        "div",
        { class: "seat-head" },
        h("h2", { class: "sr-only" }, "Your hand"),
        h("span", { class: "deadwood-pill" }, `Deadwood ${hand.deadwood ?? "?"}`),
        sortGroup,
      ),
      h(
        "div",
        {
          class: `hand ${dPhase ? "discarding" : ""}`,
          role: "group",
          "aria-label": `Your hand, ${order.length} cards`,
          "aria-describedby": "hand-keys",
        },
        buttons,
      ),
      h(
        "p",
        { class: "sr-only", id: "hand-keys" },
        "Arrow keys move between cards; Shift with an arrow key moves the card in your hand.",
      ),
    );
  }

  function renderActions() {
    if (watching) {
      replaceChildren(actions);
      return;
    }
    const dPhase = discardPhase();
    const sel = s.selected;
    const canDiscard = dPhase && sel && can("discard", { card: sel });
    const canKnock = dPhase && sel && can("knock", { card: sel });
    const left = sel ? deadwoodAfter(sel) : undefined;
    let knockText = "Knock / Gin";
    let knockLabel = "Knock or gin: select the card to discard first";
    if (canKnock && left === 0) {
      knockText = `Gin! (discard ${cardShort(sel)})`;
      knockLabel = `Gin, discarding ${cardName(sel)}`;
    } else if (canKnock) {
      knockText = `Knock \u2014 ${left} deadwood`;
      knockLabel = `Knock, discarding ${cardName(sel)}, ${left} deadwood left`;
    } else if (dPhase && sel && left !== undefined) {
      knockLabel = `Knock or gin: not possible discarding ${cardName(sel)}, ${left} deadwood would remain`;
    }
    replaceChildren(
      actions,
      h(
        "button",
        {
          class: "btn",
          type: "button",
          disabled: !canDiscard || !!s.pending,
          "aria-label": sel ? `Discard ${cardName(sel)}` : "Discard the selected card",
          dataset: { focusKey: "discard-btn" },
          onclick: () => discardSelected(),
        },
        sel && dPhase ? `Discard ${cardShort(sel)}` : "Discard",
      ),
      h(
        "button",
        {
          class: `btn knock ${canKnock ? "live" : ""}`,
          type: "button",
          disabled: !canKnock || !!s.pending,
          "aria-label": knockLabel,
          dataset: { focusKey: "knock" },
          onclick: knockSelected,
        },
        knockText,
      ),
    );
  }

  function renderSide() {
    const v = s.view;
    const history = v.hand?.history || [];
    const info = watching ? {} : store.matchInfo(matchId);
    const links = [];
    if (!watching && info.watch_token) links.push(shareBox("Watch link (read-only)", watchUrl(info.watch_token)));
    replaceChildren(
      side,
      watching ? h("p", { class: "panel watching-note" }, "You are watching this match: both hands stay hidden until each hand ends.") : null,
      h(
        "section",
        { class: "panel moves" },
        h("h2", {}, `Hand ${v.hand_number}: moves`),
        history.length
          ? h(
              "ol",
              { class: "move-list", reversed: true },
              [...history].reverse().slice(0, 12).map((e) =>
                h("li", { class: e.seat === v.seat ? "mine" : "theirs" }, describeEvent(v, e, { short: true })),
              ),
            )
          : h("p", { class: "muted" }, "No moves yet."),
      ),
      v.last_result && v.status !== "finished"
        ? h(
            "section",
            { class: "panel" },
            h("h2", {}, "Last hand"),
            h("p", {}, resultSummary(v, v.last_result)),
            h("button", { class: "btn small", type: "button", dataset: { focusKey: "last-hand" }, onclick: () => showResult(v.last_result, v.hand_number - 1) }, "Show last hand"),
          )
        : null,
      links,
      !watching && v.status !== "finished" ? resignBox() : null,
    );
  }

  function renderWaiting() {
    const v = s.view;
    const isWaiting = v.status === "waiting";
    table.classList.toggle("is-waiting", isWaiting);
    waiting.hidden = !isWaiting;
    if (!isWaiting) {
      replaceChildren(waiting);
      return;
    }
    const info = watching ? {} : store.matchInfo(matchId);
    replaceChildren(
      waiting,
      h(
        "section",
        { class: "panel waiting", "aria-labelledby": "waiting-title" },
        h("h2", { id: "waiting-title" }, "Waiting for your friend"),
        h("p", {}, "Send them the invite link. The match starts as soon as they open it; this page will follow."),
        info.invite ? shareBox("Invite link for your friend", inviteUrl(info.invite)) : h("p", { class: "muted" }, "The invite link was shown on the device that created this match."),
      ),
    );
  }

  function resignBox() {
    if (!s.resignConfirm) {
      return h(
        "div",
        { class: "resign" },
        h("button", { class: "btn small subtle", type: "button", dataset: { focusKey: "resign" }, onclick: () => { s.resignConfirm = true; render(); } }, "Resign\u2026"),
      );
    }
    return h(
      "div",
      { class: "resign confirm", role: "group", "aria-label": "Confirm resigning" },
      h("span", {}, "Resign this match?"),
      h("button", {
        class: "btn small danger", type: "button", dataset: { focusKey: "resign-yes" },
        onclick: async () => {
          s.resignConfirm = false;
          try {
            await resignMatch(matchId);
          } catch (e) {
            toast(e.message, "error");
          }
        },
      }, "Yes, resign"),
      h("button", { class: "btn small", type: "button", dataset: { focusKey: "resign" }, onclick: () => { s.resignConfirm = false; render(); } }, "Keep playing"),
    );
  }

  function renderFinished() {
    const v = s.view;
    if (!v || v.status !== "finished" || !v.outcome) {
      finished.hidden = true;
      replaceChildren(finished);
      table.classList.remove("is-finished");
      return;
    }
    table.classList.add("is-finished");
    finished.hidden = false;
    const result = v.hand?.result || v.last_result;
    const hands = s.matchDetails && s.matchDetails !== "loading" ? s.matchDetails.hands || [] : [];
    replaceChildren(
      finished,
      h(
        "section",
        { class: "panel match-over", "aria-labelledby": "match-over-title" },
        h("h2", { id: "match-over-title" }, "Match over"),
        scoreboard(v, v.outcome, v.rules),
        result && v.outcome.reason !== "resign" ? h("h3", {}, "The last hand") : null,
        result && v.outcome.reason !== "resign" ? resultBlock(v, result, { number: v.hand_number }) : null,
        hands.length
          ? h(
              "details",
              { class: "hand-list" },
              h("summary", {}, `All ${hands.length} hands`),
              h("ol", {}, hands.map((r) => h("li", {}, resultSummary(v, r.result || r)))),
            )
          : null,
        h(
          "div",
          { class: "button-row" },
          h("a", { class: "btn primary", href: "#/" }, "New match"),
          !watching ? h("a", { class: "btn", href: `#/replay/${encodeURIComponent(matchId)}` }, "Replay this match") : null,
          !watching ? h("a", { class: "btn", href: "#/history" }, "History") : null,
        ),
      ),
    );
  }

  // --- the end of a hand -----------------------------------------------------------------------------
  function maybeShowResult(view) {
    if (view.status === "finished" || !view.last_result) return;
    const number = view.hand_number - 1;
    const key = watching ? `watch-${matchId}` : matchId;
    if (number > store.seenResult(key) && !dialog.open) showResult(view.last_result, number);
  }

  function showResult(result, number) {
    const v = s.view;
    const key = watching ? `watch-${matchId}` : matchId;
    const close = h(
      "button",
      {
        class: "btn primary",
        type: "button",
        onclick: () => {
          store.saveSeenResult(key, Math.max(store.seenResult(key), number));
          dialog.close();
        },
      },
      "Next hand",
    );
    replaceChildren(
      dialog,
      h("h2", { id: "result-title" }, `Hand ${number} is over`),
      resultBlock(v, result),
      h(
        "p",
        { class: "running-score" },
        `Score now: ${who(v, v.seat === 1 ? 1 : 0)} ${v.scores[v.seat === 1 ? 1 : 0]}, ${who(v, v.seat === 1 ? 0 : 1)} ${v.scores[v.seat === 1 ? 0 : 1]} (first to ${v.rules?.target ?? 100}).`,
      ),
      h("div", { class: "button-row" }, close),
    );
    if (!dialog.open) dialog.showModal();
    close.focus();
  }
  dialog.addEventListener("close", () => {
    // Escape closes the dialog too; count that as seen.
    const key = watching ? `watch-${matchId}` : matchId;
    if (s.view) store.saveSeenResult(key, Math.max(store.seenResult(key), s.view.hand_number - 1));
    handArea.querySelector("button.card")?.focus({ preventScroll: true });
  });

  // --- sharing --------------------------------------------------------------------------------------
  function inviteUrl(invite) {
    return `${location.origin}${location.pathname}#/join/${encodeURIComponent(matchId)}/${encodeURIComponent(invite.code)}`;
  }
  function watchUrl(tokenValue) {
    return `${location.origin}${location.pathname}#/watch/${encodeURIComponent(matchId)}/${encodeURIComponent(tokenValue)}`;
  }
  function shareBox(title, url) {
    const id = `share-${title.replace(/\W+/g, "-").toLowerCase()}`;
    return h(
      "section",
      { class: "panel share" },
      h("label", { for: id }, title),
      h("input", { id, type: "text", readonly: true, value: url, onfocus: (e) => e.target.select() }),
      h(
        "button",
        {
          class: "btn small",
          type: "button",
          dataset: { focusKey: `copy:${id}` },
          onclick: async () => {
            try {
              await navigator.clipboard.writeText(url);
              toast("Link copied.");
            } catch {
              document.getElementById(id)?.select();
              toast("Select the link and copy it.");
            }
          },
        },
        "Copy link",
      ),
    );
  }

  // --- taps, keys and drags on cards ------------------------------------------------------------------
  function onCardClick(code) {
    if (s.suppressClick) return;
    if (s.selected === code) {
      if (discardPhase()) discardSelected(code);
      else {
        s.selected = null;
        render();
      }
      return;
    }
    s.selected = code;
    render();
    if (discardPhase()) {
      const left = deadwoodAfter(code);
      if (left !== undefined) {
        announce(`${cardName(code)} selected. Discarding it leaves ${left} deadwood${can("knock", { card: code }) ? (left === 0 ? "; you can go gin" : "; you can knock") : ""}.`);
      }
    }
  }

  function onCardKey(e, code) {
    const order = orderedHand();
    const i = order.indexOf(code);
    let target = null;
    if (e.key === "ArrowLeft" || e.key === "ArrowRight") {
      const j = e.key === "ArrowLeft" ? i - 1 : i + 1;
      if (j < 0 || j >= order.length) return;
      e.preventDefault();
      if (e.shiftKey) {
        const next = [...order];
        next.splice(i, 1);
        next.splice(j, 0, code);
        setCustomOrder(next);
        render();
        handArea.querySelector(`[data-card="${code}"]`)?.focus();
        announce(`${cardName(code)} moved to position ${j + 1} of ${order.length}.`);
        return;
      }
      target = order[j];
    } else if (e.key === "Home") target = order[0];
    else if (e.key === "End") target = order[order.length - 1];
    else if (e.key === "Escape" && s.selected) {
      s.selected = null;
      render();
      return;
    }
    if (target) {
      e.preventDefault();
      handArea.querySelector(`[data-card="${target}"]`)?.focus();
    }
  }

  function onPointerDown(e, code) {
    if (e.button !== 0 || s.drag) return;
    s.drag = { code, x: e.clientX, y: e.clientY, id: e.pointerId, el: e.currentTarget, active: false, ghost: null };
    window.addEventListener("pointermove", onPointerMove);
    window.addEventListener("pointerup", onPointerUp);
    window.addEventListener("pointercancel", onPointerCancel);
  }

  function onPointerMove(e) {
    const d = s.drag;
    if (!d || e.pointerId !== d.id) return;
    if (!d.active) {
      if (Math.hypot(e.clientX - d.x, e.clientY - d.y) < 8) return;
      d.active = true;
      const rect = d.el.getBoundingClientRect();
      d.dx = d.x - rect.left;
      d.dy = d.y - rect.top;
      d.ghost = h("span", { class: "card drag-ghost", "aria-hidden": "true" }, cardFace(d.code));
      d.ghost.style.width = `${rect.width}px`;
      d.ghost.style.height = `${rect.height}px`;
      document.body.append(d.ghost);
      d.el.classList.add("dragging");
      document.body.classList.add("is-dragging");
    }
    e.preventDefault();
    d.ghost.style.transform = `translate(${e.clientX - d.dx}px, ${e.clientY - d.dy}px) rotate(3deg)`;
    const over = dropTarget(e.clientX, e.clientY);
    piles.querySelector(".pile.discard")?.classList.toggle("drop-ok", over.kind === "discard");
    handArea.querySelectorAll(".insert-before, .insert-after").forEach((el) => el.classList.remove("insert-before", "insert-after"));
    if (over.kind === "hand" && over.card && over.card !== d.code) {
      handArea.querySelector(`[data-card="${over.card}"]`)?.classList.add(over.after ? "insert-after" : "insert-before");
    }
  }

  function dropTarget(x, y) {
    const el = document.elementFromPoint(x, y);
    if (!el) return { kind: "none" };
    if (el.closest(".pile.discard") && discardPhase() && can("discard", { card: s.drag.code })) return { kind: "discard" };
    if (el.closest(".my-area")) {
      // The nearest card in the hand and which side of it the pointer is on.
      let best = null;
      let bestDist = Infinity;
      for (const btn of handArea.querySelectorAll("button.hand-card")) {
        const r = btn.getBoundingClientRect();
        const cx = r.left + r.width / 2;
        const cy = r.top + r.height / 2;
        const dist = Math.hypot((x - cx) / r.width, (y - cy) / r.height);
        if (dist < bestDist) {
          bestDist = dist;
          best = { card: btn.dataset.card, after: x > cx };
        }
      }
      return { kind: "hand", ...best };
    }
    return { kind: "none" };
  }

  function onPointerUp(e) {
    const d = s.drag;
    if (!d || e.pointerId !== d.id) return;
    if (d.active) {
      const over = dropTarget(e.clientX, e.clientY);
      endDrag();
      // The click that follows a drag must not count as a tap.
      s.suppressClick = true;
      setTimeout(() => {
        s.suppressClick = false;
      }, 0);
      if (over.kind === "discard") {
        s.selected = d.code;
        discardSelected(d.code);
      } else if (over.kind === "hand" && over.card && over.card !== d.code) {
        const order = orderedHand().filter((c) => c !== d.code);
        let j = order.indexOf(over.card);
        if (over.after) j += 1;
        order.splice(j, 0, d.code);
        setCustomOrder(order);
        render();
        announce(`${cardName(d.code)} moved to position ${j + 1}.`);
      } else if (s.renderDeferred) {
        render();
      }
    } else {
      endDrag();
    }
  }

  function onPointerCancel(e) {
    if (s.drag && e.pointerId === s.drag.id) endDrag();
  }

  function endDrag() {
    const d = s.drag;
    window.removeEventListener("pointermove", onPointerMove);
    window.removeEventListener("pointerup", onPointerUp);
    window.removeEventListener("pointercancel", onPointerCancel);
    if (d) {
      d.ghost?.remove();
      d.el?.classList.remove("dragging");
    }
    document.body.classList.remove("is-dragging");
    piles.querySelector(".pile.discard")?.classList.remove("drop-ok");
    handArea.querySelectorAll(".insert-before, .insert-after").forEach((el) => el.classList.remove("insert-before", "insert-after"));
    s.drag = null;
    if (s.renderDeferred) {
      s.renderDeferred = false;
      render();
    }
  }

  // Focus the page heading so screen readers start from the top of the new page.
  heading.focus({ preventScroll: true });

  return () => {
    endDrag();
    clearTimeout(s.staleTimer);
    socket.close();
    if (dialog.open) dialog.close();
    const pill = document.getElementById("conn-pill");
    if (pill) pill.hidden = true;
  };
}

