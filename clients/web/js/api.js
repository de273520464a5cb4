// The REST half of protocol v1 (docs/protocol.md): JSON in, JSON out, the player's token as a
// bearer token. Errors come back as ApiError carrying the server's stable error code.

import { store } from "./store.js";

export class ApiError extends Error {
  constructor(status, code, message, error = {}) {
    // Shown to people as a sentence ("Wrong username or password"); the server's messages start
    // in lower case, as the protocol's do.
    super(message ? message[0].toUpperCase() + message.slice(1) : message);
    this.status = status;
    this.code = code;
    this.limit = error.limit ?? null; // a 429's: which limit, and seconds until it lets go
    this.resetIn = error.reset_in ?? null;
  }
}

export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const player = store.player;
  if (player?.token) headers.Authorization = `Bearer ${player.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", "The server cannot be reached. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const err = data?.error || {};
    throw new ApiError(response.status, err.code || "http_" + response.status, err.message || response.statusText, err);
  }
  return data;
}

/** Create a player with this name and remember its token. */
export async function register(name) {
  const p = await api("POST", "/api/players", { name });
  store.player = { player_id: p.player_id, name: p.name, token: p.token };
  return store.player;
}

export const createMatch = (options) => api("POST", "/api/matches", options);
export const joinMatch = (id, invite) => api("POST", `/api/matches/${encodeURIComponent(id)}/join`, { invite });
export const listMatches = (query) => api("GET", `/api/matches?${new URLSearchParams(query)}`);
export const getMatch = (id) => api("GET", `/api/matches/${encodeURIComponent(id)}`);
export const getRecord = (id) => api("GET", `/api/matches/${encodeURIComponent(id)}/record`);
export const resignMatch = (id) => api("POST", `/api/matches/${encodeURIComponent(id)}/resign`);
