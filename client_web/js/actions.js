// What the player can do on the page: the requests to the server (docs/protocol.md) and the moves
// between the lobby and a room. Each reads the state from the store and changes it only through the
// store's named updates. A refused request is shown in words (`send` → showError) and resolves to null.

import { t } from "./i18n.js";
import { Connection } from "./net.js";
import { storageGet, storageSet } from "./storage.js";
import { showError, report } from "./errors.js";
import { toast } from "./news.js";
import { dealMoment } from "./common.js";
import { playerKey } from "./daily.js";
import { deliver } from "./inbox.js";
import { showStatus } from "./status.js";
import * as update from "./store.js";

const { state } = update;
const NAME_KEY = "whist.name";
const TOKEN_PREFIX = "whist.token.";

// An "I'm back" on its way (see actions.backToSeat).
let backing = false;

// Resolved once the server has said hello (rulesets known): a button pressed before that waits for it.
let serverKnown;
const serverReady = new Promise((resolve) => { serverKnown = resolve; });

/** The connection to the server; every new one says hello, then resumes the room shown (or lists rooms). */
export const conn = new Connection({ onPush: deliver, onStatus: showStatus, onOpen: greet, roomOf: () => state().roomId });

/**
 * Send a request; resolves with its result, or with null once a refusal has been shown in words (a
 * request that expects a code of its own calls `conn.request` and handles it).
 */
export async function send(type, fields = {}) {
  try {
    return await conn.request(type, fields);
  } catch (error) {
    showError(error);
    return null;
  }
}

// Refusals that say "nothing was applied: retry" (docs/protocol.md, "`ok` and `error`"): the store
// was busy or changing hands. Opening a room asks again after these pauses before showing the refusal.
const RETRY_CODES = new Set(["conflict", "store_unavailable"]);
const RETRY_DELAYS_MS = [500, 1000, 2000, 4000];

/**
 * `conn.request`, asked again after a pause when the server says to retry, while the page still shows
 * `roomId`; resolves to null (nothing shown) once the page has moved on.
 */
async function requestForRoom(roomId, type, fields) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await conn.request(type, fields);
    } catch (error) {
      if (!RETRY_CODES.has(error.code) || attempt >= RETRY_DELAYS_MS.length) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      if (state().roomId !== roomId) return null;
    }
  }
}

function tokenFor(roomId) { return storageGet(TOKEN_PREFIX + roomId); }
function keepToken(roomId, token) { if (token) storageSet(TOKEN_PREFIX + roomId, token); }
function forgetToken(roomId) { storageSet(TOKEN_PREFIX + roomId, null); }

/**
 * What every `hello` says: our name (if chosen) and this browser's player key, to which the server
 * credits every seat this connection takes ("My games" and the ratings; the server keeps only its hash).
 */
function helloFields(name = state().name) {
  return { ...(name ? { name } : {}), player_key: playerKey() };
}

/** Say our name before taking a seat (a refusal is shown; the seat is asked for all the same). */
async function sayName() {
  if (state().name) await send("hello", helloFields());
}

function showInAddress(roomId) {
  const url = new URL(location.href);
  if (roomId) url.searchParams.set("room", roomId);
  else url.searchParams.delete("room");
  history.replaceState(null, "", url);
}

/** After every (re)connection: hello (the rulesets, bots, replica), then back to the room or the lobby. */
async function greet() {
  const hello = await send("hello", helloFields());
  if (hello) {
    update.serverDescribed(hello);
    serverKnown();
  }
  if (state().roomId) await actions.reattach();
  else await Promise.all([actions.refreshRooms(), actions.refreshLeaderboard()]);
}

export const actions = {
  /** Whether this browser holds a seat token for `roomId` (the lobby's "Join" then means "back to my seat"). */
  holdsSeat(roomId) { return Boolean(tokenFor(roomId)); },

  async saveName(name) {
    const clean = name.trim().slice(0, 32);
    if (!clean) return;
    storageSet(NAME_KEY, clean);
    update.nameSaved(clean);
    await send("hello", helloFields(clean));
  },

  async refreshRooms() {
    const result = await send("list_rooms", { subscribe: true });
    if (result) update.roomsListed(result.rooms);
  },

  /** Today's daily challenge: the server creates our own room, deals, and we sit at seat 0. */
  async startDaily() {
    await serverReady;
    await sayName();
    const result = await send("daily", { player_key: playerKey() });
    if (!result) return;
    keepToken(result.room_id, result.token);
    actions.enterRoom(result.room_id, { created: true });
    actions.settleConnection();
  },

  /** The day's leaderboard (today's by default); a server without the challenge hides it. */
  async refreshLeaderboard() {
    try {
      update.leaderboardLoaded(await conn.request("leaderboard", { limit: 20 }));
    } catch (error) {
      if (error.code === "unknown_type" || error.code === "invalid_message") update.leaderboardMissing();
      else showError(error); // "disconnected" is said by the banner
    }
  },

  /** Create a room (`turnSeconds`: the turn clock; left out, the server's default, as for "Play now"). */
  async createRoom({ ruleset, houseRules, session, bots, sit, bot = null, turnSeconds = null }) {
    await serverReady;
    const rulesets = state().server.rulesets;
    ruleset = ruleset || state().ui.form.ruleset || (rulesets.includes("couleur") ? "couleur" : rulesets[0]);
    await sayName();
    const result = await send("create_room", {
      ruleset, house_rules: houseRules, session, seat: sit ? "any" : null, ...(bot ? { bot } : {}),
      ...(turnSeconds !== null && turnSeconds !== undefined ? { turn_seconds: turnSeconds } : {}),
    });
    if (!result) return;
    keepToken(result.room_id, result.token);
    actions.enterRoom(result.room_id, { created: true });
    if (bots) await send("start");
    actions.settleConnection();
  },

  /**
   * Behind a balancer with room affinity (the server names its replica in `hello`), a connection
   * opened in the lobby reaches any process: unless it already is on the room's process (`/health?room=`
   * answers from there), move to a connection that names the room, so that the whole table is served
   * by one process (docs/scaling.md). Invisible to the player (see net.js).
   */
  async settleConnection() {
    const roomId = state().roomId;
    if (!state().server.replica || !roomId || conn.openedFor === roomId) return;
    try {
      const answer = await fetch(`/health?room=${encodeURIComponent(roomId)}`, { cache: "no-store" });
      if ((await answer.json()).replica === state().server.replica) {
        conn.openedFor = roomId; // already there: nothing to move
        return;
      }
    } catch (error) {
      report("asking which process serves the room (moving anyway)", error);
    }
    try {
      await conn.moveToRoom();
    } catch (error) {
      report("moving to the room's process (the page stays on its connection)", error);
    }
  },

  /** Show a room: come back to our seat with the kept token, else watch it. */
  async openRoom(roomId) {
    actions.enterRoom(roomId);
    await actions.reattach();
  },

  /** The lobby's "Join": back to our seat if we hold one here, else the first free seat, else watch. */
  async joinFromLobby(roomId) {
    actions.enterRoom(roomId);
    if (tokenFor(roomId)) return actions.reattach();
    await sayName();
    try {
      const result = await conn.request("join", { room_id: roomId, seat: null });
      keepToken(result.room_id, result.token);
    } catch (error) {
      if (error.code === "no_such_room") return actions.roomMissing();
      if (error.code !== "room_full") showError(error);
      await send("watch", { room_id: roomId });
    }
    actions.settleConnection();
  },

  enterRoom(roomId, { created = false } = {}) {
    showInAddress(roomId);
    update.roomEntered(roomId, { created });
  },

  /** After a (re)connection or on opening a link: resume with the token, or watch. */
  async reattach() {
    const roomId = state().roomId;
    if (!roomId) return;
    actions.settleConnection();
    const token = tokenFor(roomId);
    if (token) {
      try {
        await requestForRoom(roomId, "resume", { room_id: roomId, token });
        return;
      } catch (error) {
        // No such live room: it may be over and archived, which watching tells.
        if (error.code === "bad_token" || error.code === "no_such_room") forgetToken(roomId);
        else { showError(error); return; }
      }
    }
    try {
      const answer = await requestForRoom(roomId, "watch", { room_id: roomId });
      if (answer?.archived) actions.showArchived(answer);
    } catch (error) {
      if (error.code === "no_such_room") actions.roomMissing();
      else showError(error);
    }
  },

  roomMissing() {
    forgetToken(state().roomId);
    update.roomMissing();
  },

  async join(seat = null) {
    await sayName();
    const result = await send("join", { room_id: state().roomId, seat });
    if (result) keepToken(result.room_id, result.token);
  },

  async watch(roomId) {
    actions.enterRoom(roomId);
    const answer = await send("watch", { room_id: roomId });
    if (answer?.archived) return actions.showArchived(answer);
    actions.settleConnection();
  },

  /**
   * A room whose game is over and archived (a link to it, kept or shared): the lobby, with the room's
   * deals in the replay viewer's list, one click each.
   */
  showArchived({ room_id: roomId, records }) {
    forgetToken(roomId);
    actions.toLobby();
    update.replayOpened({ steps: null, list: records, names: null, bottom: 0, draft: "",
      error: records.length ? "" : t("replay.none") });
  },

  async leave() {
    const roomId = state().roomId;
    if (roomId && conn.status === "open") await send("leave");
    if (roomId) forgetToken(roomId);
    actions.toLobby();
  },

  toLobby() {
    showInAddress(null);
    update.lobbyEntered();
    actions.refreshRooms();
    actions.refreshLeaderboard();
  },

  /** Send an action. Until the state that follows it arrives, the page offers nothing else (no double tap). */
  async act(action) {
    if (state().pendingAction) return;
    update.actionSent(action);
    const answer = await send("act", { action });
    update.actionSettled({ refused: answer === null }); // a refusal is shown; the same view stays playable
  },

  async ready() {
    update.readySent(state().room?.deal_number ?? null);
    // A player the turn clock replaced by the bot who says "Next deal" is back: the seat first.
    if (actions.takenOver()) await actions.backToSeat();
    if (!(await send("ready"))) update.readySent(null);
  },

  /**
   * "End the game": the host ends the session for the whole table (final balances for everyone);
   * any other player ends their own game: they leave, and a bot takes the seat.
   */
  async endGame() {
    if (state().you?.host) return send("end_game");
    await actions.leave();
    toast(t("end.left"));
  },
  start() { return send("start"); },

  /** Whether the turn clock gave our seat to the bot (we are here, yet the bot plays for us). */
  takenOver() {
    return state().clockTakeover && !["waiting", "over"].includes(state().room?.status);
  },

  /** "I'm back": take our seat back from the bot with the kept token (`resume`). */
  async backToSeat() {
    const roomId = state().roomId;
    const token = tokenFor(roomId);
    if (!roomId || !token || backing) return null;
    backing = true; // one "I'm back" at a time (a press is both a pointerdown and a click)
    try {
      return await send("resume", { room_id: roomId, token });
    } finally {
      backing = false;
    }
  },

  /** A line to the table: free `text` or a quick `phrase`. A refusal is said in the chat panel. */
  async sendChat({ text = null, phrase = null }) {
    try {
      await conn.request("chat", phrase ? { phrase } : { text });
      if (!phrase) update.chatSent();
      else update.chatFailed(null);
    } catch (error) {
      if (error.code === "disconnected") return; // the banner says it
      update.chatFailed(error);
    }
  },

  /** Host: mute (or unmute) a seat's chat for everyone. */
  async muteForEveryone(seat, muted) {
    const result = await send("mute_chat", { seat, muted });
    if (result) update.chatSeatMuted(result.seat, result.muted);
  },

  /** "Play again": ask for a new session at this table; it starts once every seated human has asked. */
  async playAgain() {
    update.playAgainAsked(true);
    const result = await send("play_again");
    if (!result) return update.playAgainAsked(false);
    if (!result.started) update.playAgainWaiting(result.waiting_for);
  },
  addBot(seat) { return send("add_bot", { seat }); },

  /** "Hint": what the bot would do in our seat, computed by the server from our own view. */
  async askHint() {
    const moment = dealMoment(state());
    try {
      const result = await conn.request("hint");
      update.hintShown({ moment, action: result.action, bot: result.bot });
    } catch (error) {
      const known = ["hints_off", "not_your_turn", "spectator_cannot_act", "unknown_type", "invalid_message"];
      update.hintShown({ moment, error: known.includes(error.code) ? error.code : "other" });
    }
  },
};
