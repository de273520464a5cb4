// The accounts half of the REST API (docs/protocol.md, "Accounts and sessions"): adding a
// username and password to the player this browser is, signing in (password or passkey) for a
// session of this browser's own, the player's sessions, and passkeys (WebAuthn: add, list,
// remove).

import { api, ApiError } from "./api.js";
import { store } from "./store.js";

export const getAccount = () => api("GET", "/api/account");
export const addPassword = (username, password) => api("POST", "/api/account/password", { username, password });
export const listSessions = () => api("GET", "/api/sessions");
export const revokeSession = (id) => api("DELETE", `/api/sessions/${encodeURIComponent(id)}`);
export const revokeOthers = () => api("POST", "/api/sessions/revoke-others");
export const listPasskeys = () => api("GET", "/api/passkeys");
export const removePasskey = (id) => api("DELETE", `/api/passkeys/${encodeURIComponent(id)}`);

function remember(signedIn) {
  store.player = { player_id: signedIn.player_id, name: signedIn.name, token: signedIn.token };
  store.currentMatch = null; // the other device's match, if any, is listed on the start page
  return store.player;
}

/** Sign in with a username and password; this browser becomes that player. */
export async function signIn(username, password) {
  return remember(await api("POST", "/api/sessions", { username, password }));
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
  return remember(await api("POST", "/api/passkeys/login", { challenge_id, credential: credential.toJSON() }));
}
