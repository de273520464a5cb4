// The accounts half of the REST API (docs/protocol.md, "Accounts and sessions"): adding a
// username and password to the player this browser is, signing in (password or passkey) for a
// session of this browser's own, the player's sessions, and passkeys (WebAuthn: add, list,
// remove).

import { api, ApiError } from "./api.js";
import { store } from "./store.js";

export const getAccount = async () => keepDeviceKey(await api("GET", "/api/account"));
export const addPassword = (username, password) =>
  inWords(async () => keepDeviceKey(await api("POST", "/api/account/password", { username, password })));
export const listSessions = () => api("GET", "/api/sessions");
export const revokeSession = (id) => api("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
export const revokeOthers = () => api("POST", "/api/sessions/revoke-others");
export const listPasskeys = () => api("GET", "/api/passkeys");
export const removePasskey = (id) => api("DELETE", `/api/passkeys/${encodeURIComponent(id)}`);

const LIMITS = {
  login_account: "Too many sign-ins were tried for this username",
  login_device: "Too many sign-ins were tried from this browser",
  login_address: "Too many sign-ins were tried from your network",
  signup: "Too many usernames were tried from your network",
};

/** Run `work`; a sign-in or sign-up limit's 429 becomes a sentence saying when to try again. */
async function inWords(work) {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ApiError && e.code === "rate_limited" && LIMITS[e.limit]) {
      const s = Math.max(1, Math.ceil(e.resetIn ?? 60));
      const passkey = e.limit === "login_account" ? ", or sign in with a passkey" : "";
      e.message = `${LIMITS[e.limit]}. Try again in ${s} second${s === 1 ? "" : "s"}${passkey}.`;
    }
    throw e;
  }
}

// Every answer that shows an account carries this browser's device key for it: sent with the
// next sign-in to that username, it holds this browser to a limit of its own, not the
// username's, which wrong passwords tried by anyone else use up. Kept after signing out.
function keepDeviceKey(account) {
  if (account?.username && account.device_key) store.saveDeviceKey(account.username, account.device_key);
  return account;
}

function remember(signedIn) {
  keepDeviceKey(signedIn);
  store.player = { player_id: signedIn.player_id, name: signedIn.name, token: signedIn.token };
  store.currentMatch = null; // the other device's match, if any, is listed on the start page
  return store.player;
}

/** Sign in with a username and password; this browser becomes that player. */
export async function signIn(username, password) {
  const deviceKey = store.deviceKey(username);
  const body = deviceKey ? { username, password, device_key: deviceKey } : { username, password };
  return remember(await inWords(() => api("POST", "/api/sessions", body)));
}

/** Sign this browser out (its session is revoked on the server) and forget the player. */
export async function signOut(sessionId) {
  try {
    await revokeSession(sessionId);
  } finally {
    store.player = null;
    store.currentMatch = null;
  }
}

function webauthnAvailable() {
  return (
    window.PublicKeyCredential &&
    typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" &&
    typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function"
  );
}

function noPasskeys() {
  return new ApiError(0, "unsupported", "This browser cannot use passkeys.");
}

/** Register a passkey for the signed-in player (the browser asks the person). */
export async function addPasskey() {
  if (!webauthnAvailable()) throw noPasskeys();
  const { challenge_id, options } = await api("POST", "/api/passkeys/register/options");
  let credential;
  try {
    credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  } catch (e) {
    throw new ApiError(0, "cancelled", `No passkey was made (${e.name}).`);
  }
  return api("POST", "/api/passkeys", { challenge_id, credential: credential.toJSON() });
}

/** Sign in with a passkey; this browser becomes that player. */
export async function signInWithPasskey() {
  if (!webauthnAvailable()) throw noPasskeys();
  const { challenge_id, options } = await api("POST", "/api/passkeys/login/options");
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options) });
  } catch (e) {
    throw new ApiError(0, "cancelled", `No passkey was used (${e.name}).`);
  }
  return remember(await inWords(() => api("POST", "/api/passkeys/login", { challenge_id, credential: credential.toJSON() })));
}
