// The page's state, in one place. It is read with `state()` (a frozen object: a renderer that tries to
// write into it throws) and changed only by the named updates below, each of which makes a new state.
// A change that shows on the page bumps the `revision` and tells the subscribers (the renderer redraws
// on the next frame); a "quiet" change (what is being typed, which card has the focus) changes nothing
// on the page and tells nobody. See docs/client.md, "The store".

import { storageGet, storageSet } from "./storage.js";
import { report } from "./errors.js";

const NAME_KEY = "whist.name";
const FOUR_COLOUR_KEY = "whist.fourcolour";

/** The create-room form as it first opens ("Play now" plays its number of deals). */
export const DEFAULT_FORM = Object.freeze({
  ruleset: null, houseRules: {}, length: "deals", deals: 8, target: 100, bots: true, bot: null, listed: true, turnSeconds: null,
});

/** The turn clock the create-room form offers first: 60 s for a listed room, none for an unlisted one (docs/protocol.md). */
export function defaultTurnSeconds(listed) { return listed === false ? 0 : 60; }

/** The table chat of the room shown: its lines (oldest first), whether the panel is open, what is typed. */
const NO_CHAT = Object.freeze({ lines: [], open: false, unread: 0, draft: "", error: null, heard: false, hidden: [], hostMuted: [] });
const HIDDEN_PREFIX = "whist.chat.hidden.";
/** The most lines kept on the page (the server keeps 50). */
const CHAT_KEEP = 50;

let current = freeze({
  name: storageGet(NAME_KEY) || "",
  // What the server said in `hello`: its rulesets (names), bots, `ruleset_info`, and its replica's name.
  server: { rulesets: [], bots: [], rulesetInfo: {}, replica: null, chatPhrases: [] },
  rooms: [],
  roomsLoaded: false,
  leaderboard: null,
  leaderboardMissing: false,
  roomId: new URLSearchParams(location.search).get("room"),
  you: null,
  room: null,
  view: null,
  notFound: false,
  // The action sent and the room version it was sent at: nothing else is offered until a state follows.
  pendingAction: null,
  pendingVersion: null,
  // The replay viewer, when open: {steps, result, record, index, list, names, bottom, draft, error}.
  replay: null,
  // "My games" when open: {status: "loading" | "loaded" | "failed", data (GET /api/me), error}.
  games: null,
  // The lobby's all-time board: the ruleset shown, and each ruleset's board as fetched this visit
  // (ruleset -> {status: "loading" | "loaded" | "failed", entries, error}).
  boardRuleset: null,
  boards: {},
  // Provably fair deals: the commitment each deal started with ("room:deal" -> hex), and the check of
  // each finished deal ("room:deal" -> {state: "checking" | "done" | "unavailable", verified, failed, late}).
  fair: { kept: {}, checks: {} },
  // The table chat (see NO_CHAT), and "Play again" at the end of the session: {asked, waitingFor}.
  chat: chatFor(new URLSearchParams(location.search).get("room")),
  playAgain: { asked: false, waitingFor: null },
  // The turn clock gave our seat to the bot (two expiries in a row) until we are back ("I'm back").
  clockTakeover: false,
  ui: {
    nameDraft: null,
    lastTrickOpen: false,
    rareOpen: false,
    helpOpen: false,
    summaryHiddenFor: null, // "room:deal" whose summary the player put aside ("Review the table")
    form: { ...DEFAULT_FORM },
    quickRuleset: null,
    flashTrick: null,
    readySent: null,
    hint: null,
    handFocus: null,
    fourColour: storageGet(FOUR_COLOUR_KEY) === "on",
  },
});

let revision = 0;
const listeners = new Set();

/** The current state (frozen: change it only through the named updates of this module). */
export function state() { return current; }

/** How many visible changes the state has had: the page says which one it has drawn (render.js). */
export function stateRevision() { return revision; }

/** Call `listener(updateName)` after every visible change; returns the function that unsubscribes. */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function freeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) freeze(value[key]);
  }
  return value;
}

/** Make the next state from `changes` (and `ui` changes); tell the subscribers unless it is quiet. */
function commit(name, changes, { ui = null, quiet = false } = {}) {
  const next = { ...current, ...changes };
  if (ui) next.ui = { ...current.ui, ...ui };
  current = freeze(next);
  if (quiet) return;
  revision += 1;
  for (const listener of listeners) listener(name);
}

/** Redraw without a change of state (the fonts have loaded, the window was resized, a moment passed). */
export function redrawn() { commit("redrawn", {}); }

// ----------------------------------------------------------------------------- server and lobby

/** The server's `hello` answer: its rulesets (a list of names), `ruleset_info`, bots and replica. */
export function serverDescribed(hello) {
  commit("serverDescribed", {
    server: {
      rulesets: hello.rulesets || [],
      bots: hello.bots || [],
      rulesetInfo: hello.ruleset_info || {},
      replica: hello.replica || null,
      chatPhrases: hello.chat_phrases || [],
    },
  });
}

export function nameSaved(name) { commit("nameSaved", { name }); }

/** What is typed in a name field, kept across redraws (quiet: the field shows it already). */
export function nameDrafted(text) { commit("nameDrafted", {}, { ui: { nameDraft: text }, quiet: true }); }

/** The open rooms (an answer to `list_rooms`, or a `lobby` push); drawn only while the lobby shows. */
export function roomsListed(rooms) {
  commit("roomsListed", { rooms: rooms || [], roomsLoaded: true }, { quiet: Boolean(current.roomId) });
}

export function leaderboardLoaded(board) { commit("leaderboardLoaded", { leaderboard: board, leaderboardMissing: false }); }

/** The server has no daily challenge: the lobby's panel says so. */
export function leaderboardMissing() { commit("leaderboardMissing", { leaderboardMissing: true }); }

/** The create-room form's values (quiet: the form keeps what it shows; it is read when sent). */
export function formChanged(changes) {
  commit("formChanged", {}, { ui: { form: { ...current.ui.form, ...changes } }, quiet: true });
}

export function quickRulesetChosen(ruleset) { commit("quickRulesetChosen", {}, { ui: { quickRuleset: ruleset }, quiet: true }); }

// ----------------------------------------------------------------------------- my games, all-time board

/** "My games" opens (its history is on its way). */
export function gamesOpened() { commit("gamesOpened", { games: { status: "loading", data: null, error: null } }); }

/** The player's history (`GET /api/me`). */
export function gamesLoaded(data) { commit("gamesLoaded", { games: { status: "loaded", data, error: null } }); }

/**
 * The history (or a deal of it) could not be had: `error` is the API's code (`archive_off`,
 * `archive_unavailable`...). A history already shown stays, with the error said above it.
 */
export function gamesFailed(error) {
  const data = current.games?.data ?? null;
  commit("gamesFailed", { games: { status: data ? "loaded" : "failed", data, error } });
}

export function gamesClosed() { commit("gamesClosed", { games: null }); }

/** The ruleset of the all-time board the lobby shows. */
export function boardChosen(ruleset) { commit("boardChosen", { boardRuleset: ruleset }); }

/** A ruleset's all-time board: `{status, entries, error}` (loading, loaded, or failed with the API's code). */
export function boardLoaded(ruleset, board) {
  commit("boardLoaded", { boards: { ...current.boards, [ruleset]: board } }, { quiet: Boolean(current.roomId) });
}

// ----------------------------------------------------------------------------- rooms

/** The page shows `roomId` (its state follows in a push); `created`: we have just created it. */
export function roomEntered(roomId, { created = false } = {}) {
  const fresh = roomId !== current.roomId;
  // A room just created has no chat to replay (and its replay may have come before its id was known).
  const chat = { ...chatFor(roomId), heard: created };
  commit("roomEntered", { roomId, notFound: false,
    ...(fresh ? { chat, playAgain: { asked: false, waitingFor: null }, clockTakeover: false } : {}) });
}

/** The room asked for does not exist. */
export function roomMissing() { commit("roomMissing", { notFound: true }); }

/** Back to the lobby: the room's state is dropped. */
export function lobbyEntered() {
  commit("lobbyEntered", { boards: {}, roomId: null, you: null, room: null, view: null, notFound: false, chat: chatFor(null), clockTakeover: false,
    playAgain: { asked: false, waitingFor: null } });
}

/**
 * A `state` push: `you`, `room` and `view` as the server sent them. It settles the action on its way
 * (a new room version answers it) and "Next deal" once the next deal has started.
 */
export function stateReceived({ you, room, view }) {
  const ui = {};
  if (room && current.ui.readySent !== null && room.deal_number !== current.ui.readySent) ui.readySent = null;
  const answered = current.pendingAction && room?.version !== current.pendingVersion;
  commit("stateReceived", { you, room, view, clockTakeover: takeoverAfter(you, room), ...(answered ? { pendingAction: null } : {}) }, { ui });
}

/**
 * Whether the clock's bot keeps our seat after this state: until the seat shows no bot. The events say
 * when it starts (`seatTakenOver`); on entering a room (a reload) a seat the bot plays although we are
 * here can only be one the clock gave it (a one-off action for an expired turn lasts a moment).
 */
function takeoverAfter(you, room) {
  const info = you?.seat === null || you?.seat === undefined ? null : room?.seats?.[you.seat];
  if (!info || !info.bot_playing || info.kind !== "human") return false;
  return current.clockTakeover || (current.room === null && info.connected);
}

/** The clock's bot took our seat over (true: `bot_took_over` with reason "clock") or gave it back. */
export function seatTakenOver(taken) { commit("seatTakenOver", { clockTakeover: taken }); }

/** An action is on its way (the calls and cards wait for the state that follows). */
export function actionSent(action) {
  commit("actionSent", { pendingAction: action, pendingVersion: current.room?.version ?? null }, { ui: { rareOpen: false } });
}

/** The server answered the action: refused (the same view stays playable) or accepted and already followed. */
export function actionSettled({ refused }) {
  if (refused || current.room?.version !== current.pendingVersion) commit("actionSettled", { pendingAction: null });
  else commit("actionSettled", {});
}

/** "Next deal" pressed for deal `dealNumber` (null: the request failed, the button is offered again). */
export function readySent(dealNumber) { commit("readySent", {}, { ui: { readySent: dealNumber } }); }

/** A just-completed trick that stays on the table for a moment: {trick, until, count}. */
export function trickFlashed(flash) { commit("trickFlashed", {}, { ui: { flashTrick: flash } }); }

/** The hint for one moment of the deal: {moment, action, bot} or {moment, error}. */
export function hintShown(hint) { commit("hintShown", {}, { ui: { hint } }); }

/** Which card of the hand has the focus (quiet: the focus is already there). */
export function handFocused(card) { commit("handFocused", {}, { ui: { handFocus: card }, quiet: true }); }

// ----------------------------------------------------------------------------- dialogs and settings

const DIALOGS = { lastTrick: "lastTrickOpen", rare: "rareOpen", help: "helpOpen" };

/** Open a dialog over the table: "lastTrick", "rare" (the rare calls' sheet) or "help". */
export function dialogOpened(name) { commit("dialogOpened", {}, { ui: { [DIALOGS[name]]: true } }); }

/**
 * Close a dialog. `quiet`: the renderer found it has nothing to show any more (the rare calls are
 * gone, no trick was played) and closes it as it draws.
 */
export function dialogClosed(name, { quiet = false } = {}) {
  if (!current.ui[DIALOGS[name]]) return;
  commit("dialogClosed", {}, { ui: { [DIALOGS[name]]: false }, quiet });
}

/** Close every dialog (Escape). */
export function dialogsClosed() {
  commit("dialogsClosed", {}, { ui: { lastTrickOpen: false, rareOpen: false, helpOpen: false } });
}

/** Whether the summary of the deal shown is put aside ("Review the table"). */
export function summaryHidden(shown = current) {
  const room = shown.room;
  return Boolean(room) && shown.ui.summaryHiddenFor === `${room.room_id}:${room.deal_number}`;
}

/** Put the summary of this deal aside, or bring it back. */
export function summaryToggled(hidden) {
  const room = current.room;
  commit("summaryToggled", {}, { ui: { summaryHiddenFor: hidden && room ? `${room.room_id}:${room.deal_number}` : null } });
}

export function fourColourChosen(on) { commit("fourColourChosen", {}, { ui: { fourColour: on } }); }

// ----------------------------------------------------------------------------- fairness

/** The seed commitment deal `key` ("room:deal") started with. */
export function commitmentKept(key, commitment) {
  commit("commitmentKept", { fair: { ...current.fair, kept: { ...current.fair.kept, [key]: commitment } } }, { quiet: true });
}

/** Where the check of deal `key` stands: {state, late, verified, failed, ...}. */
export function fairnessChecked(key, check) {
  commit("fairnessChecked", { fair: { ...current.fair, checks: { ...current.fair.checks, [key]: check } } });
}

// ----------------------------------------------------------------------------- replay viewer

/** Open the viewer (or its picker) with `replay`: {steps, result, record, index, list, names, bottom, draft, error}. */
export function replayOpened(replay) { commit("replayOpened", { replay }); }

/** Change what the open viewer shows: its step, list or error. */
export function replayChanged(changes) {
  if (current.replay) commit("replayChanged", { replay: { ...current.replay, ...changes } });
}

/** The record being pasted into the picker (quiet: the field shows it already). */
export function replayDrafted(text) {
  if (current.replay) commit("replayDrafted", { replay: { ...current.replay, draft: text } }, { quiet: true });
}

export function replayClosed() { commit("replayClosed", { replay: null }); }

// ----------------------------------------------------------------------------- table chat

/** The chat of a room as it first shows: no line yet, and the people this browser hides there. */
function chatFor(roomId) {
  return { ...NO_CHAT, hidden: roomId ? hiddenPeople(roomId) : [] };
}

function hiddenPeople(roomId) {
  const kept = storageGet(HIDDEN_PREFIX + roomId);
  if (!kept) return [];
  try {
    const people = JSON.parse(kept);
    return Array.isArray(people) ? people.map(String) : [];
  } catch (error) {
    report("reading the people hidden in the chat (none hidden)", error);
    return [];
  }
}

/** Who said a line, as a key: the seat and the name (a spectator has no seat). */
export function chatPerson(from) { return `${from?.seat ?? "-"}|${from?.name ?? ""}`; }

function lineKey(line) {
  return `${line.at}|${chatPerson(line.from)}|${line.phrase ?? ""}|${line.text ?? ""}`;
}

/**
 * Lines of a `chat` push, added to those shown, none twice (the lines replayed on entering a room and a
 * line pushed as it is said may cross). `mine(line)` tells our own lines (never unread); lines of the
 * first push after entering the room are history, not unread. Returns the lines that are new.
 */
export function chatReceived(lines, mine) {
  const chat = current.chat;
  const known = new Set(chat.lines.map(lineKey));
  const fresh = (lines || []).filter((line) => !known.has(lineKey(line)));
  const all = [...chat.lines, ...fresh].sort((a, b) => (a.at ?? 0) - (b.at ?? 0)).slice(-CHAT_KEEP);
  const hidden = new Set(chat.hidden);
  const unseen = chat.open || !chat.heard ? 0
    : fresh.filter((line) => !mine(line) && !hidden.has(chatPerson(line.from)) && !chat.hostMuted.includes(line.from?.seat)).length;
  // No new line (the kept lines on entering an empty room, or lines the page already holds): nothing
  // to draw, and a redraw now would replace the buttons under a click that is under way.
  commit("chatReceived", { chat: { ...chat, lines: all, heard: true, unread: chat.unread + unseen } },
    { quiet: fresh.length === 0 });
  return chat.heard ? fresh : [];
}

/** Open or close the chat panel (opening it reads every line). */
export function chatOpened(open) {
  commit("chatOpened", { chat: { ...current.chat, open, unread: open ? 0 : current.chat.unread, error: open ? current.chat.error : null } });
}

/** What is typed in the chat (quiet: the field shows it already). */
export function chatDrafted(text) { commit("chatDrafted", { chat: { ...current.chat, draft: text } }, { quiet: true }); }

/** A line was said: the field is emptied. */
export function chatSent() { commit("chatSent", { chat: { ...current.chat, draft: "", error: null } }); }

/** The server refused a line: `error` ({code, message}) is shown in the panel, the text stays. */
export function chatFailed(error) {
  commit("chatFailed", { chat: { ...current.chat, error: error ? { code: error.code ?? null, message: error.message ?? "" } : null } });
}

/** Hide (or show again) a person's lines on this screen; remembered for the room. */
export function chatPersonHidden(person, hidden) {
  const now = new Set(current.chat.hidden);
  if (hidden) now.add(person);
  else now.delete(person);
  if (current.roomId) storageSet(HIDDEN_PREFIX + current.roomId, now.size ? JSON.stringify([...now]) : null);
  commit("chatPersonHidden", { chat: { ...current.chat, hidden: [...now] } });
}

/** The host muted (or unmuted) a seat's chat for everyone (the `chat_muted` event). */
export function chatSeatMuted(seat, muted) {
  const others = current.chat.hostMuted.filter((s) => s !== seat);
  commit("chatSeatMuted", { chat: { ...current.chat, hostMuted: muted ? [...others, seat] : others } });
}

// ----------------------------------------------------------------------------- play again

/** "Play again" pressed (true) or refused (false). */
export function playAgainAsked(asked) { commit("playAgainAsked", { playAgain: { ...current.playAgain, asked } }); }

/** Who the new session still waits for (a `play_again` event or answer): a list of seats. */
export function playAgainWaiting(waitingFor) {
  commit("playAgainWaiting", { playAgain: { ...current.playAgain, waitingFor: [...(waitingFor || [])] } });
}

/** The new session started: the table goes on. */
export function sessionStarted() { commit("sessionStarted", { playAgain: { asked: false, waitingFor: null } }); }
