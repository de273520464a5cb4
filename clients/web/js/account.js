// The account page (#/account): keep this player's history on every device with a username and
// password (added to the anonymous player this browser already is), sign in (password or
// passkey), the player's passkeys (add one; list them, each removable: signing out everywhere
// leaves them), and the devices signed in, each revocable ("sign out everywhere").

import { ApiError } from "./api.js";
import {
  addPasskey,
  addPassword,
  getAccount,
  listPasskeys,
  listSessions,
  removePasskey,
  revokeOthers,
  revokeSession,
  signIn,
  signInWithPasskey,
  signOut,
} from "./account_api.js";
import { formatDate, h, replaceChildren, toast } from "./dom.js";
import { store } from "./store.js";

function field(id, label, attrs) {
  return h("div", { class: "field" }, h("label", { for: id }, label), h("input", { id, ...attrs }));
}

function errorLine() {
  return h("p", { class: "form-error", role: "alert" });
}

/** Run `work` with the form's buttons disabled; its error (if any) goes to `error`. */
async function busy(form, error, work) {
  error.textContent = "";
  form.querySelectorAll("button").forEach((b) => (b.disabled = true));
  try {
    await work();
  } catch (e) {
    error.textContent = e.message;
  } finally {
    if (form.isConnected) form.querySelectorAll("button").forEach((b) => (b.disabled = false));
  }
}

function signInPanel(root, { replacing }) {
  const error = errorLine();
  const form = h(
    "form",
    {
      class: "panel account-form",
      "aria-labelledby": "sign-in-title",
      onsubmit: (e) => {
        e.preventDefault();
        const f = new FormData(form);
        busy(form, error, async () => {
          await signIn(f.get("username"), f.get("password"));
          toast(`Signed in as ${store.player.name}.`);
          mountAccount(root);
        });
      },
    },
    h("h2", { id: "sign-in-title" }, "Sign in"),
    replacing ? h("p", { class: "note" }, "Signing in replaces the name this browser plays under now.") : null,
    field("signin-username", "Username", { name: "username", type: "text", autocomplete: "username", required: true, maxlength: "40" }),
    field("signin-password", "Password", { name: "password", type: "password", autocomplete: "current-password", required: true }),
    error,
    h(
      "div",
      { class: "button-row" },
      h("button", { class: "btn primary", type: "submit" }, "Sign in"),
      h(
        "button",
        {
          class: "btn",
          type: "button",
          onclick: () =>
            busy(form, error, async () => {
              await signInWithPasskey();
              toast(`Signed in as ${store.player.name}.`);
              mountAccount(root);
            }),
        },
        "Sign in with a passkey",
      ),
    ),
  );
  return form;
}

function signUpPanel(root) {
  const error = errorLine();
  const form = h(
    "form",
    {
      class: "panel account-form",
      "aria-labelledby": "sign-up-title",
      onsubmit: (e) => {
        e.preventDefault();
        const f = new FormData(form);
        busy(form, error, async () => {
          await addPassword(f.get("username"), f.get("password"));
          toast("Your account is ready: sign in with it on any device.");
          mountAccount(root);
        });
      },
    },
    h("h2", { id: "sign-up-title" }, "Keep your matches on every device"),
    h("p", { class: "note" }, `Choose a username and password for ${store.player.name}. Your matches and history stay yours.`),
    field("signup-username", "Username", { name: "username", type: "text", autocomplete: "username", required: true, maxlength: "40" }),
    field("signup-password", "Password (8 characters or more)", {
      name: "password",
      type: "password",
      autocomplete: "new-password",
      required: true,
      minlength: "8",
    }),
    error,
    h("button", { class: "btn primary", type: "submit" }, "Create account"),
  );
  return form;
}

const UNKNOWN_DEVICE = "unknown device";

/** One passkey: its device and date, and "Remove", which asks first (in place) and then removes it. */
function passkeyRow(p, remove) {
  const device = p.device === UNKNOWN_DEVICE ? "Unknown device" : p.device;
  const added = formatDate(p.created_at);
  const actions = h("div", { class: "passkey-actions" });
  const ask = () => {
    const keep = h("button", { class: "btn small", type: "button", onclick: () => idle(true) }, "Keep it");
    replaceChildren(
      actions,
      h(
        "div",
        {
          class: "passkey-confirm",
          role: "group",
          "aria-label": `Confirm removing the passkey from ${device}`,
          onkeydown: (e) => {
            if (e.key === "Escape") idle(true);
          },
        },
        h("span", {}, "Remove this passkey? It will no longer sign in."),
        h("button", { class: "btn small danger", type: "button", onclick: () => remove(p, device) }, "Yes, remove"),
        keep,
      ),
    );
    keep.focus();
  };
  const idle = (refocus) => {
    const button = h(
      "button",
      { class: "btn small", type: "button", "aria-label": `Remove the passkey from ${device}, added ${added}`, onclick: ask },
      "Remove",
    );
    replaceChildren(actions, button);
    if (refocus) button.focus();
  };
  idle(false);
  return h(
    "li",
    { dataset: { passkey: p.credential_id } },
    h("span", { class: "device-name" }, device),
    h("span", { class: "muted small" }, `Added ${added}`),
    actions,
  );
}

function passkeyPanel(root, passkeys) {
  const error = errorLine();
  const remove = (p, device) =>
    busy(panel, error, async () => {
      await removePasskey(p.credential_id);
      toast(`Removed the passkey from ${device}.`);
      mountAccount(root);
    });
  const count = passkeys.length;
  const panel = h(
    "section",
    { class: "panel", "aria-labelledby": "passkeys-title" },
    h("h2", { id: "passkeys-title" }, "Passkeys"),
    h(
      "p",
      { class: "note", "data-passkeys": String(count) },
      count === 0 ? "No passkeys yet: add one to sign in without a password." : `${count} passkey${count === 1 ? "" : "s"}.`,
    ),
    count === 0
      ? null
      : [
          h("ul", { class: "passkey-list", "aria-label": "Your passkeys" }, passkeys.map((p) => passkeyRow(p, remove))),
          h("p", { class: "note" }, "Signing out everywhere does not remove passkeys. Remove any you do not recognise."),
        ],
    error,
    h(
      "button",
      {
        class: "btn",
        type: "button",
        onclick: () =>
          busy(panel, error, async () => {
            await addPasskey();
            toast("Passkey added.");
            mountAccount(root);
          }),
      },
      "Add a passkey",
    ),
  );
  return panel;
}

function devicesPanel(root, sessions, canSignInAgain) {
  const error = errorLine();
  const current = sessions.find((s) => s.current);
  const others = sessions.filter((s) => !s.current);
  const panel = h(
    "section",
    { class: "panel", "aria-labelledby": "devices-title" },
    h("h2", { id: "devices-title" }, "Devices signed in"),
    h(
      "ul",
      { class: "device-list" },
      sessions.map((s) =>
        h(
          "li",
          { dataset: { session: s.session_id } },
          h("span", { class: "device-name" }, s.device, s.current ? h("strong", { class: "this-device" }, " (this device)") : null),
          h("span", { class: "muted small" }, `Last seen ${formatDate(s.last_seen_at)}`),
          s.current
            ? null
            : h(
                "button",
                {
                  class: "btn small",
                  type: "button",
                  "aria-label": `Sign out ${s.device}`,
                  onclick: () =>
                    busy(panel, error, async () => {
                      await revokeSession(s.session_id);
                      toast(`Signed out ${s.device}.`);
                      mountAccount(root);
                    }),
                },
                "Sign out",
              ),
        ),
      ),
    ),
    error,
    h(
      "div",
      { class: "button-row" },
      h(
        "button",
        {
          class: "btn danger",
          type: "button",
          disabled: others.length === 0,
          onclick: () =>
            busy(panel, error, async () => {
              const { revoked } = await revokeOthers();
              toast(`Signed out ${revoked} other device${revoked === 1 ? "" : "s"}.`);
              mountAccount(root);
            }),
        },
        "Sign out everywhere else",
      ),
      // Without a password or passkey, signing out would lose this player for good.
      canSignInAgain
        ? h(
            "button",
            {
              class: "btn subtle",
              type: "button",
              onclick: () =>
                busy(panel, error, async () => {
                  await signOut(current.session_id);
                  toast("Signed out.");
                  mountAccount(root);
                }),
            },
            "Sign out",
          )
        : null,
    ),
  );
  return panel;
}

export function mountAccount(root) {
  const player = store.player;
  const title = h("h1", { tabindex: "-1" }, "Account");
  const body = h("div", { class: "account-body" }, h("p", { class: "muted" }, "Loading\u2026"));
  replaceChildren(root, h("section", { class: "account" }, title, body));
  title.focus({ preventScroll: true });
  if (!player?.token) {
    replaceChildren(
      body,
      h("p", { class: "lede" }, "Sign in to play as yourself from this device, with your history and matches."),
      signInPanel(root, { replacing: false }),
      h("p", {}, "New here? ", h("a", { href: "#/" }, "Just play"), ": you can add a username and password afterwards."),
    );
    return () => {};
  }
  (async () => {
    let account, sessions, passkeys;
    try {
      [account, { sessions }, { passkeys }] = await Promise.all([getAccount(), listSessions(), listPasskeys()]);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        // This browser's session was revoked (signed out elsewhere): forget it.
        store.player = null;
        store.currentMatch = null;
        toast("This device was signed out.");
        mountAccount(root);
        return;
      }
      replaceChildren(body, h("p", { class: "form-error", role: "alert" }, e.message));
      return;
    }
    if (!root.isConnected) return;
    replaceChildren(
      body,
      h(
        "p",
        { class: "whoami" },
        account.username ? `Signed in as ${account.username} (playing as ${account.name}).` : `Playing as ${account.name}, without an account.`,
      ),
      account.username ? null : signUpPanel(root),
      passkeyPanel(root, passkeys),
      devicesPanel(root, sessions, Boolean(account.username) || passkeys.length > 0),
      account.username ? null : signInPanel(root, { replacing: true }),
    );
  })();
  return () => {};
}
