// The page: one state object, the requests the player can make, and a render that draws the lobby or
// the table from that state. Everything the table shows comes from the server's `state` pushes
// (docs/protocol.md); the page never decides what is legal or when the next deal starts.

import { t, own, setLang, lang, roomName, LANGUAGES, LANGUAGE_NAMES } from "./i18n.js";
import { Connection } from "./net.js";
import { renderLobby } from "./lobby.js";
import { renderRoom, announceEvents, toast, sweepTrick } from "./table.js";
import { renderReplay } from "./replay.js";
import { installLongPress } from "./legend.js";
import { soundOn, setSound } from "./sound.js";
import { h, replace } from "./dom.js";
import { dealMoment } from "./common.js";
import { canVerify, verifyDeal } from "./fair.js";
import { playerKey } from "./daily.js";

const NAME_KEY = "whist.name";

// Resolved once the server has said hello (rulesets known): a button pressed before that waits for it.
let serverKnown;
const serverReady = new Promise((resolve) => { serverKnown = resolve; });
const TOKEN_PREFIX = "whist.token.";

function storageGet(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}
function storageSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch { /* private mode: the seat survives until the tab closes */ }
}

export const app = {
  conn: null,
  name: storageGet(NAME_KEY) || "",
  server: { rulesets: [], bots: [], rulesetInfo: {}, replica: null },
  replay: null, // the replay viewer, when open: {steps, result, record, index, list, names, bottom}
  // Provably fair deals: the commitment each deal started with ("room:deal" -> hex), and the check of
  // each finished deal ("room:deal" -> {state: "checking" | "done" | "unavailable", verified, failed, late}).
  fair: { kept: new Map(), checks: new Map() },
  rooms: [],
  roomsLoaded: false,
  leaderboard: null,
  leaderboardMissing: false,
  roomId: new URLSearchParams(location.search).get("room"),
  you: null,
  room: null,
  view: null,
  notFound: false,
  pendingAction: null,
  ui: {
    nameDraft: null,
    lastTrickOpen: false,
    summaryHidden: false,
    summaryDealNumber: null,
    form: null,
    flashTrick: null,
    readySent: null,
    rareOpen: false,
    helpOpen: false,
    hint: null,
    fourColour: storageGet("whist.fourcolour") === "on",
  },

  /** Redraw the page (the renderers call it after a purely local change). */
  rerender() { render(); },

  // ----------------------------------------------------------------------------- tokens

  tokenFor(roomId) { return storageGet(TOKEN_PREFIX + roomId); },
  keepToken(roomId, token) { if (token) storageSet(TOKEN_PREFIX + roomId, token); },
  forgetToken(roomId) { storageSet(TOKEN_PREFIX + roomId, null); },

  // ----------------------------------------------------------------------------- requests

  /** Send a request and show any error in words; resolves with the result or null. */
  async request(type, fields = {}, { quiet = [] } = {}) {
    try {
      return await this.conn.request(type, fields);
    } catch (error) {
      if (!quiet.includes(error.code)) showError(error);
      throw error;
    }
  },

  async saveName(name) {
    const clean = name.trim().slice(0, 32);
    if (!clean) return;
    this.name = clean;
    storageSet(NAME_KEY, clean);
    await this.request("hello", { name: clean }).catch(() => {});
    render();
  },

  async refreshRooms() {
    const result = await this.request("list_rooms", { subscribe: true }).catch(() => null);
    if (result) {
      this.rooms = result.rooms || [];
      this.roomsLoaded = true;
      render();
    }
  },

  /** Today's daily challenge: the server creates our own room, deals, and we sit at seat 0. */
  async startDaily() {
    await serverReady;
    if (this.name) await this.request("hello", { name: this.name }).catch(() => {});
    const result = await this.request("daily", { player_key: playerKey() }).catch(() => null);
    if (!result) return;
    this.keepToken(result.room_id, result.token);
    this.enterRoom(result.room_id);
    this.settleConnection();
  },

  /** The day's leaderboard (today's by default); a server without the challenge hides it. */
  async refreshLeaderboard() {
    try {
      this.leaderboard = await this.conn.request("leaderboard", { limit: 20 });
      this.leaderboardMissing = false;
    } catch (error) {
      if (error.code === "unknown_type" || error.code === "invalid_message") this.leaderboardMissing = true;
      else if (error.code !== "disconnected") showError(error);
    }
    render();
  },

  async createRoom({ ruleset, houseRules, session, bots, sit, bot = null }) {
    await serverReady;
    const rulesets = this.server.rulesets;
    ruleset = ruleset || this.ui.form?.ruleset || (rulesets.includes("couleur") ? "couleur" : rulesets[0]);
    if (this.name) await this.request("hello", { name: this.name }).catch(() => {});
    const result = await this.request("create_room", {
      ruleset, house_rules: houseRules, session, seat: sit ? "any" : null, ...(bot ? { bot } : {}),
    }).catch(() => null);
    if (!result) return;
    this.keepToken(result.room_id, result.token);
    this.enterRoom(result.room_id);
    if (bots) await this.request("start").catch(() => {});
    this.settleConnection();
  },

  /**
   * Behind a balancer with room affinity (the server names its replica in `hello`), a connection
   * opened in the lobby reaches any process: unless it already is on the room's process (`/health?room=`
   * answers from there), move to a connection that names the room, so that the whole table is served
   * by one process (docs/scaling.md). Invisible to the player (see net.js).
   */
  async settleConnection() {
    const roomId = this.roomId;
    if (!this.server.replica || !roomId || this.conn.openedFor === roomId) return;
    try {
      const answer = await fetch(`/health?room=${encodeURIComponent(roomId)}`, { cache: "no-store" });
      if ((await answer.json()).replica === this.server.replica) {
        this.conn.openedFor = roomId; // already there: nothing to move
        return;
      }
    } catch { /* no answer: move anyway */ }
    await this.conn.moveToRoom().catch(() => {});
  },

  /** Show a room: come back to our seat with the kept token, else watch it. */
  async openRoom(roomId) {
    this.enterRoom(roomId);
    await this.reattach();
  },

  /** The lobby's "Join": back to our seat if we hold one here, else the first free seat, else watch. */
  async joinFromLobby(roomId) {
    this.enterRoom(roomId);
    if (this.tokenFor(roomId)) return this.reattach();
    if (this.name) await this.request("hello", { name: this.name }).catch(() => {});
    try {
      const result = await this.conn.request("join", { room_id: roomId, seat: null });
      this.keepToken(result.room_id, result.token);
    } catch (error) {
      if (error.code === "no_such_room") return this.roomMissing();
      if (error.code !== "room_full") showError(error);
      await this.request("watch", { room_id: roomId }).catch(() => {});
    }
    this.settleConnection();
  },

  enterRoom(roomId) {
    this.roomId = roomId;
    this.notFound = false;
    const url = new URL(location.href);
    url.searchParams.set("room", roomId);
    history.replaceState(null, "", url);
    render();
  },

  /** After a (re)connection or on opening a link: resume with the token, or watch. */
  async reattach() {
    const roomId = this.roomId;
    if (!roomId) return;
    this.settleConnection();
    const token = this.tokenFor(roomId);
    if (token) {
      try {
        await this.conn.request("resume", { room_id: roomId, token });
        return;
      } catch (error) {
        if (error.code === "bad_token") this.forgetToken(roomId);
        else if (error.code === "no_such_room") return this.roomMissing();
        else if (error.code !== "bad_token") { showError(error); return; }
      }
    }
    try {
      await this.conn.request("watch", { room_id: roomId });
    } catch (error) {
      if (error.code === "no_such_room") this.roomMissing();
      else showError(error);
    }
  },

  roomMissing() {
    this.notFound = true;
    this.forgetToken(this.roomId);
    render();
  },

  async join(seat = null) {
    if (this.name) await this.request("hello", { name: this.name }).catch(() => {});
    const result = await this.request("join", { room_id: this.roomId, seat }).catch(() => null);
    if (result) this.keepToken(result.room_id, result.token);
  },

  async watch(roomId) {
    this.enterRoom(roomId);
    await this.request("watch", { room_id: roomId }).catch(() => {});
    this.settleConnection();
  },

  async leave() {
    const roomId = this.roomId;
    if (roomId && this.conn.status === "open") await this.request("leave").catch(() => {});
    if (roomId) this.forgetToken(roomId);
    this.toLobby();
  },

  toLobby() {
    this.roomId = null;
    this.you = this.room = this.view = null;
    this.notFound = false;
    const url = new URL(location.href);
    url.searchParams.delete("room");
    history.replaceState(null, "", url);
    render();
    this.refreshRooms();
    this.refreshLeaderboard();
  },

  /** Send an action. Until the state that follows it arrives, the page offers nothing else (no double tap). */
  async act(action) {
    if (this.pendingAction) return;
    this.pendingAction = action;
    this.ui.rareOpen = false;
    this.pendingVersion = this.room?.version ?? null;
    render();
    try {
      await this.request("act", { action });
      if (this.room?.version !== this.pendingVersion) this.pendingAction = null;
    } catch {
      this.pendingAction = null; // the error is shown by request(); the same view stays playable
    }
    render();
  },

  async ready() {
    this.ui.readySent = this.room?.deal_number ?? null;
    render();
    await this.request("ready").catch(() => { this.ui.readySent = null; render(); });
  },

  /**
   * "End the game": the host ends the session for the whole table (final balances for everyone);
   * any other player ends their own game: they leave, and a bot takes the seat.
   */
  async endGame() {
    if (this.you?.host) return this.request("end_game").catch(() => {});
    await this.leave();
    toast(t("end.left"));
  },
  start() { return this.request("start").catch(() => {}); },
  addBot(seat) { return this.request("add_bot", { seat }).catch(() => {}); },

  /** "Hint": what the bot would do in our seat, computed by the server from our own view. */
  async askHint() {
    const moment = dealMoment(this);
    try {
      const result = await this.conn.request("hint");
      this.ui.hint = { moment, action: result.action, bot: result.bot };
    } catch (error) {
      const known = ["hints_off", "not_your_turn", "spectator_cannot_act", "unknown_type", "invalid_message"];
      this.ui.hint = { moment, error: known.includes(error.code) ? error.code : "other" };
    }
    render();
  },

  // ----------------------------------------------------------------------------- replay viewer

  /** Open the viewer's picker (paste or open a record). */
  openReplayPicker() {
    this.replay = { steps: null, list: null, names: null, draft: "", error: "" };
    render();
  },

  /** A finished deal of this session: the last one ("last"), or a list to pick from ("pick"). */
  async openSessionReplay(which) {
    const result = await this.request("get_records").catch(() => null);
    if (!result) return;
    const names = [0, 1, 2, 3].map((seat) => {
      const info = this.room?.seats?.[seat];
      return info?.kind === "bot" ? `${t("room.seat.botname")} ${seat + 1}` : info?.name || null;
    });
    const records = result.records || [];
    const bottom = this.you?.seat ?? 0;
    if (which === "last" && records.length) return this.showReplay(records[records.length - 1], { list: records, names, bottom });
    this.replay = { steps: null, list: records, names, bottom, draft: "", error: records.length ? "" : t("replay.none") };
    render();
  },

  /** Ask the server for the frames of `record` and show them from the start. */
  async showReplay(record, { list = null, names = null, bottom = null } = {}) {
    const previous = this.replay || {};
    try {
      const answer = await this.conn.request("replay", { record });
      this.replay = { steps: answer.steps, result: answer.result, record, index: 0, list: list ?? previous.list, names: names ?? previous.names, bottom: bottom ?? previous.bottom ?? 0 };
    } catch (error) {
      const message = error.code === "unknown_type" ? t("replay.unavailable") : `${t("replay.bad")} ${error.message || ""}`;
      this.replay = { ...previous, steps: null, error: message };
    }
    render();
    requestAnimationFrame(() => document.querySelector("[data-key=replay-forward]")?.focus());
  },

  closeReplay() {
    this.replay = null;
    render();
    if (!this.roomId) this.refreshRooms();
  },

  async downloadRecords() {
    const result = await this.request("get_records").catch(() => null);
    if (!result) return;
    const blob = new Blob([JSON.stringify(result.records, null, 2)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(blob), download: `whist-${result.room_id}.json` });
    document.body.append(link);
    link.click();
    setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
  },
};

// ------------------------------------------------------------------------------- pushes

function onPush(message) {
  if (message.type === "state") {
    if (app.roomId && message.room_id !== app.roomId) return;
    const before = app.view;
    app.you = message.you;
    app.room = message.room;
    app.view = message.view;
    if (app.pendingAction && message.room.version !== app.pendingVersion) app.pendingAction = null;
    noteTrickCompletion(before, app.view);
    noteFairness(message.room, message.view);
    if (app.room && app.ui.readySent !== null && app.room.deal_number !== app.ui.readySent) app.ui.readySent = null;
    render();
  } else if (message.type === "events") {
    if (message.room_id === app.roomId) announceEvents(app, message.events);
  } else if (message.type === "lobby") {
    app.rooms = message.rooms || [];
    app.roomsLoaded = true;
    if (!app.roomId) render();
  }
}

/**
 * Keep the seed commitment a deal starts with (never the one shown at its end), and check the deal once
 * it has ended and its seed is shown (docs/deal-record.md, "Checking a deal by hand").
 */
function noteFairness(room, view) {
  if (!room || !view || !view.seed_commitment) return;
  const key = `${room.room_id}:${room.deal_number}`;
  if (view.phase !== "end") {
    if (!app.fair.kept.has(key)) app.fair.kept.set(key, view.seed_commitment);
    return;
  }
  if (app.fair.checks.has(key) || typeof view.seed !== "string") return;
  // A page that first sees a deal at its end (a late spectator) checks against the commitment shown then.
  const late = !app.fair.kept.has(key);
  const commitment = late ? view.seed_commitment : app.fair.kept.get(key);
  if (!canVerify()) {
    app.fair.checks.set(key, { state: "unavailable", late });
    return;
  }
  app.fair.checks.set(key, { state: "checking", late });
  const packets = app.server.rulesetInfo?.[room.ruleset]?.packets;
  verifyDeal({ commitment, seed: view.seed, dealt: view.dealt, dealer: view.dealer, turnUp: view.turn_up, packets })
    .catch(() => ({ verified: false, failed: "missing" }))
    .then((outcome) => {
      app.fair.checks.set(key, { state: "done", late, commitment, seed: view.seed, ...outcome });
      render();
    });
}

/** Keep a just-completed trick on the table for a moment, so that its last card can be seen. */
function noteTrickCompletion(before, after) {
  if (!after || !before) return;
  const done = after.tricks?.length ?? 0;
  if (done > (before.tricks?.length ?? 0)) {
    const trick = after.tricks[done - 1];
    app.ui.flashTrick = { trick, until: performance.now() + 1100, count: done };
    // Near the end of its moment on the table the trick slides to its winner, then the table is redrawn.
    setTimeout(() => sweepTrick(trick), 800);
    setTimeout(render, 1150);
  }
}

// ------------------------------------------------------------------------------- connection state

let bannerTimer = null;

function onStatus(status, info) {
  const banner = document.getElementById("banner");
  clearTimeout(bannerTimer);
  if (status === "open") {
    if (info.wasDown) {
      banner.textContent = t("conn.back");
      banner.className = "banner ok";
      banner.hidden = false;
      bannerTimer = setTimeout(() => { banner.hidden = true; }, 1500);
    } else {
      banner.hidden = true;
    }
  } else if (status === "connecting") {
    banner.textContent = t("conn.connecting");
    banner.className = "banner";
    banner.hidden = false;
  } else {
    banner.textContent = status === "down" && info.delay >= 1000
      ? t("conn.retry", { s: Math.round(info.delay / 1000) })
      : t("conn.down");
    banner.className = "banner down";
    banner.hidden = false;
  }
  document.body.dataset.connection = status;
}

async function onOpen() {
  const hello = await app.conn.request("hello", app.name ? { name: app.name } : {}).catch(() => null);
  if (hello) {
    // `rulesets` lists names, or (servers that send the ruleset metadata) objects with a `name`.
    const listed = hello.rulesets || [];
    app.server.rulesets = listed.map((item) => (typeof item === "string" ? item : item?.name)).filter(Boolean);
    app.server.bots = hello.bots || [];
    const described = Object.fromEntries(listed.filter((item) => item && typeof item === "object").map((item) => [item.name, item]));
    const metadata = hello.ruleset_info || (Object.keys(described).length ? described : null);
    if (metadata) app.server.rulesetInfo = metadata;
    app.server.replica = hello.replica || null;
  }
  if (hello) serverKnown();
  if (app.roomId) await app.reattach();
  else await Promise.all([app.refreshRooms(), app.refreshLeaderboard()]);
  render();
}

// ------------------------------------------------------------------------------- errors

/** Show a server error as a sentence; it stays until dismissed or replaced (8 s at most). */
export function showError(error) {
  if (error?.code === "disconnected") return; // the banner says it
  const box = document.getElementById("errors");
  // Known codes read as a sentence in the page's language; the server's own words otherwise (English).
  const known = error?.code ? own(`error.code.${error.code}`, { message: error.message || "" }) : null;
  const text = known || error?.message ? `${t("error.prefix")} ${known || error.message}` : t("error.generic");
  const item = h("div", { class: "error", dataset: { code: error?.code || "" } },
    h("span", {}, text),
    h("button", { type: "button", class: "ghost small", onclick: () => item.remove() }, t("error.dismiss")));
  while (box.children.length >= 2) box.firstElementChild.remove();
  box.append(item);
  setTimeout(() => item.remove(), 8000);
}

// ------------------------------------------------------------------------------- render

let renderQueued = false;

/** Redraw on the next frame (several pushes in one frame draw once). */
export function render() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    renderNow();
  });
}

let lastScreen = null;

function renderNow() {
  const root = document.getElementById("app");
  const screen = app.replay ? "replay" : app.roomId ? `room:${app.roomId}` : "lobby";
  if (screen !== lastScreen) {
    lastScreen = screen;
    window.scrollTo(0, 0);
  }
  const focusKey = document.activeElement?.dataset?.key;
  document.documentElement.lang = lang();
  document.body.classList.toggle("four-colour", app.ui.fourColour);
  renderTopBar();
  const title = document.getElementById("room-title");
  if (app.replay) {
    replace(document.getElementById("modal-root"));
    document.body.classList.remove("modal-open");
    root.inert = false;
    renderReplay(app, root);
    title.textContent = t("replay.title");
  } else if (app.roomId) {
    renderRoom(app, root, document.getElementById("modal-root"));
    title.textContent = app.room ? `${roomName(app.room)} · ${t(`rules.${app.room.ruleset}`)}` : "";
  } else {
    replace(document.getElementById("modal-root"));
    root.inert = false;
    renderLobby(app, root);
    title.textContent = "";
  }
  if (focusKey) {
    const again = document.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again && document.activeElement !== again) {
      again.focus({ preventScroll: true });
      if (again.tagName === "INPUT" && again.type === "text") again.setSelectionRange(again.value.length, again.value.length);
    }
  }
  autoFocus();
}

/** When the player must act and focus is nowhere useful, bring it to the hand or the call panel. */
function autoFocus() {
  const active = document.activeElement;
  const idle = !active || active === document.body || active.id === "app" || !document.contains(active)
    || Boolean(active.closest("[inert]"));
  if (!idle) return;
  const target = document.querySelector("#modal-root [data-autofocus]") || document.querySelector("#app [data-autofocus]");
  if (target) target.focus({ preventScroll: true });
}

// ------------------------------------------------------------------------------- top bar and settings

function renderTopBar() {
  const select = document.getElementById("lang-select");
  if (select.dataset.lang !== lang()) {
    select.dataset.lang = lang();
    replace(select, LANGUAGES.map((code) => h("option", { value: code, selected: code === lang(), lang: code }, LANGUAGE_NAMES[code])));
    select.value = lang();
  }
  document.getElementById("lang-label").textContent = t("lang.choose");
  document.getElementById("skip-link").textContent = t("app.skip");
  document.getElementById("brand").setAttribute("aria-label", t("lobby.back"));
  const settingsButton = document.getElementById("settings-btn");
  settingsButton.querySelector(".settings-word").textContent = t("settings.title");
  settingsButton.setAttribute("aria-label", t("settings.title"));
  const panel = document.getElementById("settings");
  settingsButton.setAttribute("aria-expanded", String(!panel.hidden));
  if (!panel.hidden) renderSettings(panel);
}

/** Sounds (off by default) and the four-colour deck, both remembered. */
function renderSettings(panel) {
  const check = (key, checked, label, help, onchange) => h("label", { class: "choice check" },
    h("input", { type: "checkbox", checked, dataset: { key }, onchange }),
    h("span", { class: "choice-text" }, h("strong", {}, label), h("small", {}, help)));
  replace(panel,
    h("h2", {}, t("settings.title")),
    check("sound", soundOn(), t("settings.sound"), t("settings.sound.help"), (event) => { setSound(event.target.checked); render(); }),
    check("fourcolour", app.ui.fourColour, t("settings.fourcolour"), t("settings.fourcolour.help"), (event) => {
      app.ui.fourColour = event.target.checked;
      storageSet("whist.fourcolour", app.ui.fourColour ? "on" : "off");
      render();
    }),
    h("button", { type: "button", class: "secondary small", dataset: { key: "settings-close" }, onclick: () => toggleSettings(false) }, t("table.close")));
}

function toggleSettings(open) {
  const panel = document.getElementById("settings");
  panel.hidden = !open;
  render();
  if (open) requestAnimationFrame(() => panel.querySelector("input")?.focus());
  else document.getElementById("settings-btn").focus();
}

// ------------------------------------------------------------------------------- start

function init() {
  document.getElementById("lang-select").addEventListener("change", (event) => {
    setLang(event.target.value);
    render();
  });
  document.getElementById("settings-btn").addEventListener("click", () => toggleSettings(document.getElementById("settings").hidden));
  installLongPress();
  // Card indices are measured to lay out the hand: measure again once the fonts have loaded.
  document.fonts?.ready?.then(() => render());
  document.getElementById("brand").addEventListener("click", () => {
    if (app.roomId) app.toLobby();
  });
  window.addEventListener("resize", () => render());
  window.addEventListener("online", () => app.conn.retryNow());
  window.addEventListener("offline", () => app.conn.noteOffline());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      if (!document.getElementById("settings").hidden) return toggleSettings(false);
      if (app.ui.lastTrickOpen || app.ui.rareOpen || app.ui.helpOpen) {
        const wasRare = app.ui.rareOpen;
        app.ui.lastTrickOpen = app.ui.rareOpen = app.ui.helpOpen = false;
        render();
        if (wasRare) requestAnimationFrame(() => document.querySelector("[data-key=more-calls]")?.focus());
      }
      return;
    }
    // The replay viewer steps with the arrow keys (outside text fields).
    if (app.replay?.steps && !event.target.closest?.("input[type=text], textarea, select, input[type=range]")) {
      const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
      if (event.key in moves) {
        event.preventDefault();
        const last = app.replay.steps.length - 1;
        const next = app.replay.index + moves[event.key];
        app.replay.index = Math.max(0, Math.min(last, Number.isFinite(next) ? next : next > 0 ? last : 0));
        render();
      }
    }
  });
  setLang(lang());
  app.conn = new Connection({ onPush, onStatus, onOpen, roomOf: () => app.roomId });
  window.whistApp = app; // for the browser tests and for debugging
  render();
  app.conn.connect();
}

init();
