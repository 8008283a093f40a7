// The page's start: the renderer subscribes to the store, the top bar and the keys are wired, and the
// connection opens. Everything the table shows comes from the server's `state` pushes (docs/protocol.md);
// the page never decides what is legal or when the next deal starts. docs/client.md says which module
// does what.

import { installLongPress } from "./legend.js";
import { lang } from "./i18n.js";
import { actions, conn } from "./actions.js";
import { replayActions } from "./replay-actions.js";
import { archiveActions } from "./archive-actions.js";
import { receive } from "./pushes.js";
import { handlePushesWith } from "./inbox.js";
import { reported, onReport } from "./errors.js";
import { render, toggleSettings, chooseLanguage } from "./render.js";
import * as store from "./store.js";
import { closeChat } from "./chat.js";

const { state } = store;

// Pages and tests that import the page's module for its error box keep finding it here.
export { showError } from "./errors.js";

/** Escape closes the settings, then the dialogs over the table, then My games; the arrow keys step a replay. */
function onKey(event) {
  if (event.key === "Escape") {
    if (!document.getElementById("settings").hidden) return toggleSettings(false);
    const { lastTrickOpen, rareOpen, helpOpen } = state().ui;
    if (lastTrickOpen || rareOpen || helpOpen) {
      store.dialogsClosed();
      if (rareOpen) requestAnimationFrame(() => document.querySelector("[data-key=more-calls]")?.focus());
    } else if (state().chat.open) {
      closeChat();
    } else if (state().games && !state().replay) {
      archiveActions.closeGames();
    }
    return;
  }
  // The replay viewer steps with the arrow keys (outside text fields).
  if (state().replay?.steps && !event.target.closest?.("input[type=text], textarea, select, input[type=range]")) {
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (event.key in moves) {
      event.preventDefault();
      replayActions.step(state().replay.index + moves[event.key]);
    }
  }
}

/**
 * `window.whistApp`, for the browser tests and for debugging: the state as read-only properties (the
 * names the tests have always read), the revision the page has drawn, the actions, the named updates
 * (`update`), a push as if from the server (`receive`) and the errors reported.
 */
function debugHandle() {
  const handle = { actions, replayActions, archiveActions, update: store, receive, conn, reported, onReport, rerender: store.redrawn };
  const read = (name) => ({ get: () => state()[name], enumerable: true });
  return Object.defineProperties(handle, {
    state: { get: state, enumerable: true },
    revision: { get: store.stateRevision, enumerable: true },
    drawn: { get: () => Number(document.body.dataset.drawn ?? -1), enumerable: true },
    ...Object.fromEntries(["name", "server", "rooms", "roomsLoaded", "leaderboard", "roomId", "you", "room", "view",
      "pendingAction", "replay", "chat", "playAgain", "games", "boards", "boardRuleset"].map((name) => [name, read(name)])),
    addBot: { value: (seat) => actions.addBot(seat) },
  });
}

function init() {
  document.getElementById("lang-select").addEventListener("change", (event) => chooseLanguage(event.target.value));
  document.getElementById("settings-btn").addEventListener("click", () => toggleSettings(document.getElementById("settings").hidden));
  installLongPress();
  // Card indices are measured to lay out the hand: measure again once the fonts have loaded.
  document.fonts?.ready?.then(() => render());
  document.getElementById("brand").addEventListener("click", () => {
    if (state().roomId) actions.toLobby();
  });
  window.addEventListener("resize", () => render());
  window.addEventListener("online", () => conn.retryNow());
  window.addEventListener("offline", () => conn.noteOffline());
  document.addEventListener("keydown", onKey);
  chooseLanguage(lang());
  store.subscribe(render);
  handlePushesWith(receive);
  window.whistApp = debugHandle();
  render();
  conn.connect();
}

init();
