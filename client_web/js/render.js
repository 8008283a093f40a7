// Drawing the page from the store's state: the lobby, a room or the replay viewer, the top bar and
// the settings. Several changes in one frame draw once. Once drawn, `document.body.dataset.drawn`
// holds the state's revision the page shows (the browser tests wait for it: docs/client.md, "Tests").

import { t, setLang, lang, roomName, LANGUAGES, LANGUAGE_NAMES } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { renderRoom } from "./table.js";
import { renderReplay } from "./replay.js";
import { renderGames } from "./games.js";
import { soundOn, setSound } from "./sound.js";
import { storageSet } from "./storage.js";
import { h, morph, replace } from "./dom.js";
import { state, stateRevision, fourColourChosen } from "./store.js";

let renderQueued = false;

/** Redraw on the next frame (several changes in one frame draw once). */
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
  const drawing = stateRevision();
  const shown = state();
  const root = document.getElementById("app");
  const screen = shown.replay ? "replay" : shown.roomId ? `room:${shown.roomId}` : shown.games ? "games" : "lobby";
  if (screen !== lastScreen) {
    lastScreen = screen;
    window.scrollTo(0, 0);
  }
  const focusKey = document.activeElement?.dataset?.key;
  document.documentElement.lang = lang();
  document.body.classList.toggle("four-colour", shown.ui.fourColour);
  renderTopBar();
  const title = document.getElementById("room-title");
  if (shown.replay) {
    replace(document.getElementById("modal-root"));
    document.body.classList.remove("modal-open");
    root.inert = false;
    renderReplay(shown, root);
    title.textContent = t("replay.title");
  } else if (shown.roomId) {
    renderRoom(shown, root, document.getElementById("modal-root"));
    title.textContent = shown.room ? `${roomName(shown.room)} · ${t(`rules.${shown.room.ruleset}`)}` : "";
  } else if (shown.games) {
    replace(document.getElementById("modal-root"));
    root.inert = false;
    renderGames(shown, root);
    title.textContent = t("games.title");
  } else {
    replace(document.getElementById("modal-root"));
    root.inert = false;
    renderLobby(shown, root);
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
  document.body.dataset.drawn = String(drawing);
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
  // In place: it is redrawn with the table behind it, several times a second while the bots play.
  morph(panel,
    h("h2", {}, t("settings.title")),
    check("sound", soundOn(), t("settings.sound"), t("settings.sound.help"), (event) => { setSound(event.target.checked); render(); }),
    check("fourcolour", state().ui.fourColour, t("settings.fourcolour"), t("settings.fourcolour.help"), (event) => {
      storageSet("whist.fourcolour", event.target.checked ? "on" : "off");
      fourColourChosen(event.target.checked);
    }),
    h("button", { type: "button", class: "secondary small", dataset: { key: "settings-close" }, onclick: () => toggleSettings(false) }, t("table.close")));
}

/** Open or close the settings panel (the top bar's ⚙). */
export function toggleSettings(open) {
  const panel = document.getElementById("settings");
  panel.hidden = !open;
  render();
  if (open) requestAnimationFrame(() => panel.querySelector("input")?.focus());
  else document.getElementById("settings-btn").focus();
}

/** The language menu: the page is redrawn in the language chosen. */
export function chooseLanguage(code) {
  setLang(code);
  render();
}
