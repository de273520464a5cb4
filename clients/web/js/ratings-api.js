// Ratings and the lobby over REST (docs/protocol.md, "Ratings and the lobby"): a player's rating,
// history and profile, the leaderboard, open challenges (list, accept) and the live counts.

import { api } from "./api.js";

const id = encodeURIComponent;

export const getProfile = (playerId) => api("GET", `/api/players/${id(playerId)}/profile`);
export const getRatingHistory = (playerId, query = { limit: 100 }) =>
  api("GET", `/api/players/${id(playerId)}/rating/history?${new URLSearchParams(query)}`);
export const getLeaderboard = (query) => api("GET", `/api/leaderboard?${new URLSearchParams(query)}`);
export const listChallenges = (query) => api("GET", `/api/challenges?${new URLSearchParams(query)}`);
export const acceptChallenge = (matchId) => api("POST", `/api/challenges/${id(matchId)}/accept`);
export const getLobby = () => api("GET", "/api/lobby");

/** "1662 ± 580": a rating and about 95% of where it truly is (twice the deviation). */
export function ratingText(rating, deviation) {
  if (rating === null || rating === undefined) return "Not rated yet";
  return `${Math.round(rating)} \u00b1 ${Math.round(2 * deviation)}`;
}
