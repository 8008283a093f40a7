// The archive's requests, over the server's HTTP API (docs/protocol.md, "HTTP API"): "My games" (the
// player's history, `GET /api/me` with this browser's player key as the Bearer token), a deal of it
// opened in the replay viewer, and the all-time board of a ruleset.

import { playerKey } from "./daily.js";
import { replayActions } from "./replay-actions.js";
import { report } from "./errors.js";
import * as update from "./store.js";

const { state } = update;

/**
 * GET an API path; resolves with the JSON answer, or throws an Error whose `code` is the API's
 * (`archive_off`, `archive_unavailable`, `unauthorized`...) or "network" when no answer came.
 */
async function apiGet(path, { key = null } = {}) {
  let response;
  try {
    response = await fetch(path, { headers: key ? { Authorization: `Bearer ${key}` } : {}, cache: "no-store" });
  } catch (error) {
    throw Object.assign(new Error(error?.message || "no answer"), { code: "network" });
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null; // not JSON: a server without the API answers its 404 page
  }
  if (!response.ok || !body) {
    throw Object.assign(new Error(body?.message || response.statusText), { code: body?.error || `http_${response.status}` });
  }
  return body;
}

/** The names of a session's seats as the replay viewer shows them. */
function seatNames(session) {
  return session.seats.map((seat) => seat.name || null);
}

export const archiveActions = {
  /** Open "My games" and fetch the history. */
  async openGames() {
    update.gamesOpened();
    try {
      update.gamesLoaded(await apiGet("/api/me", { key: playerKey() }));
    } catch (error) {
      if (error.code === "network" || error.code.startsWith("http_")) report("loading My games (the page says it failed)", error);
      update.gamesFailed(error.code);
    }
  },

  closeGames() { update.gamesClosed(); },

  /** Deal `number` of a session of the history, in the replay viewer, from the player's seat. */
  async replayDeal(sessionId, number) {
    const session = state().games?.data?.sessions?.find((item) => item.session_id === sessionId);
    const deal = session?.deals.find((item) => item.number === number);
    if (!deal) return;
    try {
      const answer = await apiGet(deal.record);
      await replayActions.show(answer.record, { names: seatNames(session), bottom: session.seat });
    } catch (error) {
      report("opening an archived deal", error);
      update.gamesFailed(error.code);
    }
  },

  /** The all-time board of `ruleset`, fetched once per visit to the lobby (again with `force`). */
  async loadBoard(ruleset, { force = false } = {}) {
    if (!ruleset || (!force && state().boards[ruleset])) return;
    update.boardLoaded(ruleset, { status: "loading", entries: [], error: null });
    try {
      const board = await apiGet(`/api/ratings/${encodeURIComponent(ruleset)}?limit=20`);
      update.boardLoaded(ruleset, { status: "loaded", entries: board.entries, error: null });
    } catch (error) {
      if (error.code === "network") report("loading the all-time board (the lobby says it failed)", error);
      update.boardLoaded(ruleset, { status: "failed", entries: [], error: error.code });
    }
  },
};
