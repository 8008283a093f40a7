// The table chat (docs/protocol.md, `chat`): a button with the unread count, and a panel in the page's
// flow (in the side panel on a desktop, between the felt and the dock on a phone), so that it never
// covers the hand or the calling panel. Lines are shown as text (the sender's name too: never as HTML);
// quick phrases in the page's language; a person's lines can be hidden on this screen, and the host can
// mute a seat for everyone. The lines live in the store (`state.chat`); this module draws them.

import { t, has } from "./i18n.js";
import { h } from "./dom.js";
import { errorText } from "./errors.js";
import { announce } from "./news.js";
import { mySeat, seatName } from "./common.js";
import { actions } from "./actions.js";
import { chatOpened, chatDrafted, chatPersonHidden, chatPerson } from "./store.js";

/** The longest line the server takes (docs/protocol.md). */
export const CHAT_MAX = 200;

/** Whether the panel sits in the side panel (a wide screen) rather than above the dock (a phone). */
export function chatBeside() {
  return window.matchMedia("(min-width: 900px)").matches;
}

/** Whether `line` is ours: from our seat, or (as a spectator) said under our name. */
export function isMine(state, line) {
  const seat = mySeat(state);
  const from = line.from || {};
  if (seat !== null) return from.seat === seat;
  return from.seat === null && from.name === state.name;
}

/** What a line says: its text as typed, or its quick phrase in the page's language. */
export function lineText(line) {
  if (line.phrase) return has(`chat.phrase.${line.phrase}`) ? t(`chat.phrase.${line.phrase}`) : String(line.phrase);
  return String(line.text ?? "");
}

/** Screen readers hear the lines others say (not the ones replayed on entering the room). */
export function announceChat(state, lines) {
  const hidden = new Set(state.chat.hidden);
  for (const line of lines) {
    if (isMine(state, line) || hidden.has(chatPerson(line.from))) continue;
    announce(t("chat.say", { name: line.from?.name ?? "?", text: lineText(line) }));
  }
}

function openChat(open) {
  chatOpened(open);
  // The renderer draws on the next frame: then the field takes the focus (or the button, on closing).
  requestAnimationFrame(() => {
    if (open) {
      revealChat();
      document.querySelector("[data-key=chat-input]")?.focus({ preventScroll: true });
    } else {
      document.querySelector("[data-key=chat]")?.focus({ preventScroll: true });
    }
  });
}

/** Close the panel (Escape) and give the focus back to the chat button. */
export function closeChat() { openChat(false); }

/** The infobar's chat button, with the number of lines arrived while the panel was closed. */
export function chatButton(state) {
  const chat = state.chat;
  return h("button", {
    type: "button", class: `ghost small chat-btn ${chat.open ? "open" : ""}`, dataset: { key: "chat" },
    "aria-expanded": String(chat.open), "aria-controls": "chat-panel", onclick: () => openChat(!chat.open),
  }, t("chat.button"),
  chat.unread && !chat.open ? h("span", { class: "badge unread", dataset: { unread: chat.unread } },
    String(chat.unread), h("span", { class: "visually-hidden" }, ` ${t("chat.unread", { n: chat.unread })}`)) : null);
}

/** The chat panel, or null while it is closed. */
export function chatPanel(state) {
  const chat = state.chat;
  if (!chat.open) return null;
  const hidden = new Set(chat.hidden);
  const seat = mySeat(state);
  const shown = chat.lines.filter((line) => !hidden.has(chatPerson(line.from)));
  const list = shown.length
    ? h("ol", { class: "chat-lines", tabindex: "0", "aria-label": t("chat.lines") }, shown.map((line) => chatLine(state, line)))
    : h("p", { class: "chat-lines chat-empty muted" }, t("chat.none"));

  const count = h("span", { class: "chat-count", id: "chat-count", "aria-hidden": "true" }, t("chat.count", { n: chat.draft.length }));
  const input = h("input", {
    type: "text", id: "chat-input", maxlength: CHAT_MAX, autocomplete: "off", value: chat.draft,
    placeholder: t("chat.placeholder"), "aria-label": t("chat.input"), dataset: { key: "chat-input" },
    "aria-invalid": chat.error ? "true" : null, "aria-describedby": chat.error ? "chat-error" : null,
    oninput: (event) => {
      chatDrafted(event.target.value);
      const shown = event.target.form?.querySelector(".chat-count");
      if (shown) shown.textContent = t("chat.count", { n: event.target.value.length });
    },
  });
  const form = h("form", {
    class: "chat-form", onsubmit: (event) => {
      event.preventDefault();
      actions.sendChat({ text: event.currentTarget.querySelector("[data-key=chat-input]").value });
    },
  }, input, count, h("button", { type: "submit", class: "primary small", dataset: { key: "chat-send" } }, t("chat.send")));

  const phrases = state.server.chatPhrases.length ? h("div", { class: "chat-phrases", role: "group", "aria-label": t("chat.phrases") },
    state.server.chatPhrases.map((phrase) => h("button", {
      type: "button", class: "secondary small chat-phrase", dataset: { key: `phrase-${phrase}`, phrase },
      onclick: () => actions.sendChat({ phrase }),
    }, has(`chat.phrase.${phrase}`) ? t(`chat.phrase.${phrase}`) : phrase))) : null;

  const notes = [];
  if (seat === null) notes.push(h("p", { class: "chat-note muted" }, t("chat.spectators")));
  if (seat !== null && chat.hostMuted.includes(seat)) notes.push(h("p", { class: "chat-note muted" }, t("chat.muted.you")));
  if (hidden.size) {
    notes.push(h("p", { class: "chat-note chat-hidden" }, t("chat.hidden", { names: "" }),
      [...hidden].map((person) => {
        const name = person.slice(person.indexOf("|") + 1);
        return h("button", { type: "button", class: "ghost small chat-show", dataset: { key: `chat-show-${person}` },
          "aria-label": t("chat.show", { name }), onclick: () => chatPersonHidden(person, false) }, name, " ✕");
      })));
  }

  return h("section", { class: "chat-panel", id: "chat-panel", "aria-labelledby": "chat-title" },
    h("div", { class: "chat-head" },
      h("h2", { id: "chat-title" }, t("chat.title")),
      h("button", { type: "button", class: "ghost small close", "aria-label": t("chat.close"), dataset: { key: "chat-close" },
        onclick: () => openChat(false) }, "✕")),
    list,
    phrases,
    form,
    chat.error ? h("p", { class: "chat-error", id: "chat-error", role: "alert", dataset: { code: chat.error.code || "" } }, errorText(chat.error)) : null,
    notes,
    hostControls(state));
}

function chatLine(state, line) {
  const from = line.from || {};
  const mine = isMine(state, line);
  const person = chatPerson(from);
  const name = String(from.name ?? "?");
  return h("li", { class: `chat-line ${mine ? "mine" : ""} ${from.seat === null ? "watcher" : ""}`, dataset: { seat: from.seat ?? "", person } },
    h("strong", { class: "chat-from" }, name),
    from.seat === null ? h("small", { class: "chat-watcher" }, ` (${t("chat.watcher")})`) : null,
    " ",
    h("span", { class: "chat-text" }, lineText(line)),
    mine ? null : h("button", {
      type: "button", class: "ghost small chat-hide", dataset: { key: `chat-hide-${person}` },
      "aria-label": t("chat.hide", { name }), title: t("chat.hide", { name }), onclick: () => chatPersonHidden(person, true),
    }, t("chat.hide.short")));
}

/** The host's "mute for everyone", one button per other seated human. */
function hostControls(state) {
  if (!state.you?.host || !state.room) return null;
  const me = mySeat(state);
  const seats = state.room.seats.filter((info) => info.kind === "human" && info.seat !== me);
  if (!seats.length) return null;
  return h("details", { class: "chat-people" },
    h("summary", { dataset: { key: "chat-people" } }, t("chat.people")),
    h("ul", {}, seats.map((info) => {
      const muted = state.chat.hostMuted.includes(info.seat);
      const name = seatName(state, info.seat);
      return h("li", {}, h("span", {}, name, muted ? h("small", { class: "muted" }, ` (${t("chat.muted.seat")})`) : null), " ",
        h("button", {
          type: "button", class: "secondary small", dataset: { key: `mute-all-${info.seat}` }, "aria-pressed": String(muted),
          onclick: () => actions.muteForEveryone(info.seat, !muted),
        }, t(muted ? "chat.unmute.all" : "chat.mute.all", { name })));
    })));
}

/**
 * Before the table is redrawn: where the lines list was scrolled. The returned function, called once
 * the new table is in the page, keeps the newest line in view (or the place the player scrolled to).
 */
export function keepChatScroll(root) {
  const old = root.querySelector("ol.chat-lines");
  const atEnd = !old || old.scrollTop + old.clientHeight >= old.scrollHeight - 4;
  const top = old?.scrollTop ?? 0;
  return () => {
    const list = root.querySelector("ol.chat-lines");
    if (list) list.scrollTop = atEnd ? list.scrollHeight : top;
  };
}

/** On a phone, bring the open panel into view between the top bar and the dock that sticks below. */
function revealChat() {
  const panel = document.getElementById("chat-panel");
  if (!panel || chatBeside()) return;
  const box = panel.getBoundingClientRect();
  const dock = document.querySelector("#app .dock");
  const floor = dock ? Math.min(innerHeight, dock.getBoundingClientRect().top) : innerHeight;
  const ceiling = (document.querySelector(".topbar")?.getBoundingClientRect().bottom ?? 0) + 4;
  if (box.bottom > floor - 4) window.scrollBy(0, Math.min(box.bottom - floor + 8, box.top - ceiling));
  else if (box.top < ceiling) window.scrollBy(0, box.top - ceiling);
}
