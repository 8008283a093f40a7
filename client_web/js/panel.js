// The panel under the hand: the calls (common ones at once, rare ones in a sheet), the prompts for
// naming trump, the discard and the bouche-trou's answer, the hint button, and the spectator's note.

import { t } from "./i18n.js";
import { h, replace } from "./dom.js";
import { cardFace } from "./cards.js";
import { actionInfo, describeAction, parseAction, promptOf, verbLabel, cardText, SUIT_SYMBOL, RED_SUITS } from "./calls.js";
import { mySeat, currentHint } from "./common.js";
import { actions } from "./actions.js";
import { dialogOpened, dialogClosed, nameDrafted, summaryHidden, summaryToggled } from "./store.js";

/** What the panel offers now. `toast` shows a short message. */
export function actionPanel(state, { toast }) {
  const view = state.view;
  const room = state.room;
  const seat = mySeat(state);
  const panel = h("section", { class: "action-panel", "aria-label": t("panel.label") });
  if (!view) {
    const parts = [];
    if (room.status === "waiting") {
      const free = room.seats.filter((s) => s.kind === "empty").length;
      parts.push(h("p", {}, t("room.waiting", { n: free })));
      const buttons = [];
      if (state.you?.host) {
        buttons.push(h("button", { type: "button", class: "primary", id: "start-btn", dataset: { key: "start", autofocus: "" }, onclick: () => actions.start() },
          free ? t("room.addbots") : t("room.start")));
      }
      buttons.push(copyLinkButton(state, toast));
      parts.push(h("div", { class: "row buttons" }, buttons));
    }
    if (state.you?.seat === null) parts.unshift(watchingNote(state));
    return replace(panel, parts);
  }
  if (seat === null || !view.hand) return replace(panel, watchingNote(state));
  const legal = view.legal || [];
  const context = callContext(state);
  const prompt = promptOf(view, context);
  let body = null;
  if (view.phase === "auction" && legal.length) {
    body = legal.some((a) => describeAction(a, context).prompt === "trump") ? boucheTrouPrompt(state, legal) : callingPanel(state, legal);
  } else if (prompt === "trump") {
    body = trumpPrompt(state, legal);
  } else if (view.phase === "discard") {
    body = legal.length
      ? h("div", { class: "prompt discard-prompt" }, h("h3", {}, t("prompt.discard.title")), h("p", {}, t("prompt.discard.help")))
      : h("p", { class: "muted" }, t("prompt.discard.waiting"),
        view.discarded ? h("span", { class: "discarded" }, ` ${t("table.discarded")}: `, cardFace(view.discarded, { size: "inline" })) : null);
  } else if (view.phase === "play" && legal.length) {
    body = h("p", { class: "hint" }, h("strong", {}, t("table.yourturn")), " — ", t("play.hint"));
  } else if (view.phase === "end" && summaryHidden(state)) {
    body = h("div", { class: "row buttons" },
      h("button", { type: "button", class: "primary", dataset: { key: "show-summary", autofocus: "" }, onclick: () => summaryToggled(false) },
        t("end.title")));
  }
  if (!body) return panel;
  panel.append(body);
  if (legal.length && view.phase !== "end") {
    // In the calling panel the hint shares the last line of calls, so that the panel stays low.
    const row = hintRow(state);
    const calls = body.querySelector?.(".call-list.common");
    if (row && calls) calls.append(row);
    else if (row) panel.append(row);
  }
  return panel;
}

// ------------------------------------------------------------------------------------------ hint

/** "Hint": what the bot would do in the player's seat (not in a daily challenge: hints are off there). */
function hintRow(state) {
  if (state.room?.daily) return null;
  const hint = currentHint(state);
  const note = hint?.action ? t("hint.says", { action: hintText(hint.action) })
    : hint?.error ? t(`hint.error.${hint.error}`) === `hint.error.${hint.error}` ? t("hint.error.other") : t(`hint.error.${hint.error}`)
      : "";
  return h("div", { class: "hint-row" },
    h("button", { type: "button", class: "ghost small hint-btn", dataset: { key: "hint" }, title: t("hint.help"), onclick: () => actions.askHint() },
      t("hint.button")),
    h("span", { class: "hint-text", role: "status" }, note));
}

function hintText(action) {
  const { verb, args } = parseAction(action);
  if (verb === "play" || verb === "discard") return `${verbLabel(verb)} ${cardText(args[0])}`;
  return describeAction(action).title;
}

// ------------------------------------------------------------------------------------------ spectators

/** A spectator's note, with the name to use when taking a free seat. */
function watchingNote(state) {
  const free = (state.room?.seats || []).some((s) => s.kind === "empty");
  // The table is redrawn on every move: the draft keeps what is being typed.
  const input = h("input", {
    id: "player-name", type: "text", maxlength: 32, value: state.ui.nameDraft ?? state.name, autocomplete: "nickname",
    placeholder: t("lobby.name.placeholder"), dataset: { key: "room-name" },
    oninput: (event) => nameDrafted(event.target.value),
    onchange: (event) => { nameDrafted(null); actions.saveName(event.target.value); },
  });
  return h("div", { class: "watching" },
    h("p", { class: "muted" }, t("room.watching")),
    free ? h("div", { class: "row" }, h("label", { for: "player-name" }, t("lobby.name")), input) : null);
}

export function copyLinkButton(state, toast) {
  const url = `${location.origin}/?room=${encodeURIComponent(state.roomId)}`;
  const button = h("button", {
    type: "button", class: "secondary", dataset: { key: "copy-link" },
    onclick: async (event) => {
      const box = event.currentTarget.parentElement;
      try {
        await navigator.clipboard.writeText(url);
        toast(t("lobby.link.copied"));
      } catch {
        // No clipboard API (a plain-http address): select the link so that it can be copied by hand.
        const field = box?.querySelector(".link-input");
        field?.focus();
        field?.select();
      }
    },
  }, t("lobby.link.copy"));
  return h("span", { class: "link-box" }, button, h("input", { type: "text", readonly: true, value: url, "aria-label": t("lobby.link"), class: "link-input" }));
}

// ------------------------------------------------------------------------------------------ calls

/** What describing a legal action needs: the view, whose `legal_info` says what each action means. */
function callContext(state) {
  return { view: state.view };
}

/** A sentence that says what a call means ("Accept ♣ 8": join the proposer as a team for 8 tricks). */
function callHelp(described) {
  const key = `call.desc.${described.verb}`;
  const text = t(key, { n: described.tricks ?? "", suit: described.suit ? SUIT_SYMBOL[described.suit] ?? "" : "" });
  return text === key ? described.tricksText : text;
}

function callButton(state, action, described, { compact = false, autofocus = false, showTricks = true, short = false } = {}) {
  const label = compact ? compactLabel(described) : described.title;
  const colour = described.suit && RED_SUITS.has(described.suit) ? "red" : "";
  const hinted = currentHint(state)?.action === action;
  return h("button", {
    type: "button", class: `call ${described.verb === "pass" ? "pass" : ""} ${colour} ${described.suit ? `suit-${described.suit}` : ""} ${hinted ? "hinted" : ""}`,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null },
    "aria-label": `${described.title}${described.tricksText ? `, ${described.tricksText}` : ""}`,
    title: callHelp(described) || null,
    disabled: state.pendingAction !== null,
    onclick: () => actions.act(action), // sending closes the rare calls' sheet (store.actionSent)
  },
  h("span", { class: "call-title" }, label),
  described.tricksText && showTricks ? h("span", { class: "call-tricks" }, short ? described.tricksShort : described.tricksText) : null);
}

function compactLabel(described) {
  if (described.compact) return described.compact;
  const words = described.args.map((a) => (SUIT_SYMBOL[a] && a !== "NT" ? SUIT_SYMBOL[a] : a === "NT" ? t("suit.NT") : a));
  return words.join(" ") || described.title;
}

/** Group actions by verb, keeping the order of `legal`. */
function groupByVerb(list, context) {
  const groups = new Map();
  for (const action of list) {
    const described = describeAction(action, context);
    if (!groups.has(described.verb)) groups.set(described.verb, []);
    groups.get(described.verb).push([action, described]);
  }
  return groups;
}

function renderGroups(state, groups, { focusFirst = false } = {}) {
  const out = [];
  let first = focusFirst;
  for (const [verb, items] of groups) {
    if (items.length === 1) {
      out.push(h("div", { class: "call-group single" }, callButton(state, items[0][0], items[0][1], { autofocus: first })));
    } else {
      // When every call of the group commits to the same tricks, the group's label says it once.
      // Otherwise each button shows its tricks, and the label says "with a partner" once.
      const same = items.every(([, d]) => d.tricksText === items[0][1].tricksText) ? items[0][1].tricksText : "";
      const uniformMode = items.every(([, d]) => d.modeText === items[0][1].modeText);
      const mode = uniformMode ? items[0][1].modeText : "";
      // Buttons whose label already holds the tricks ("♣ 9", "10") say it once, in the group label.
      const numbered = !same && items.every(([, d]) => d.tricks !== null && d.tricks !== undefined
        && compactLabel(d).split(" ").includes(String(d.tricks)));
      const note = same || [mode, numbered ? t("call.number") : ""].filter(Boolean).join(", ");
      const help = t(`call.desc.${verb}`, { n: "N", suit: "" });
      out.push(h("div", { class: `call-group ${numbered ? "numbered" : ""}`, role: "group", "aria-label": verbLabel(verb) },
        h("span", { class: "group-label", title: help.startsWith("call.desc.") ? null : help }, verbLabel(verb), note ? h("span", { class: "group-tricks" }, ` — ${note}`) : null),
        h("div", { class: "group-buttons" }, items.map(([action, described], index) =>
          callButton(state, action, described, { compact: true, autofocus: first && index === 0, showTricks: !same && !numbered, short: uniformMode })))));
    }
    first = false;
  }
  return out;
}

function callingPanel(state, legal) {
  const context = callContext(state);
  const common = [];
  const rare = [];
  for (const action of legal) (describeAction(action, context).rare ? rare : common).push(action);
  // Pass first: the most frequent answer, and the one a player must always be able to find.
  common.sort((a, b) => (a === "pass" ? -1 : b === "pass" ? 1 : 0));
  const panel = h("div", { class: "prompt calls-panel", role: "group", "aria-labelledby": "call-title" });
  // The title shares its line with Pass, so that the panel stays short on a phone.
  const commonList = h("div", { class: "call-list common" }, h("h3", { id: "call-title" }, t("call.title")),
    renderGroups(state, groupByVerb(common, context), { focusFirst: true }));
  panel.append(commonList);
  if (rare.length) {
    const open = Boolean(state.ui.rareOpen);
    commonList.append(h("button", {
      type: "button", class: "more-calls ghost", "aria-expanded": String(open), "aria-controls": "rare-calls",
      "aria-haspopup": "dialog", dataset: { key: "more-calls" },
      onclick: () => dialogOpened("rare"),
    }, `${t("call.more")} (${rare.length})`));
  }
  return panel;
}

/**
 * The rare calls as a sheet over the table (a dialog the player can dismiss with ✕, Escape or a tap
 * outside), so that 20-odd calls never push the table and the hand off the screen.
 */
export function rareSheet(state) {
  const view = state.view;
  if (!state.ui.rareOpen || !view || view.phase !== "auction" || !(view.legal || []).length) {
    dialogClosed("rare", { quiet: true });
    return null;
  }
  const context = callContext(state);
  const rare = view.legal.filter((action) => describeAction(action, context).rare);
  if (!rare.length) {
    dialogClosed("rare", { quiet: true });
    return null;
  }
  const close = () => { dialogClosed("rare"); document.querySelector("[data-key=more-calls]")?.focus(); };
  return h("div", { class: "sheet-backdrop", onclick: (event) => { if (event.target === event.currentTarget) close(); } },
    h("div", { class: "sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "rare-title", id: "rare-sheet" },
      h("div", { class: "modal-head" },
        h("h2", { id: "rare-title" }, t("call.more")),
        h("button", { type: "button", class: "ghost small close", "aria-label": t("table.close"), dataset: { key: "rare-close" }, onclick: close }, "✕")),
      h("p", { class: "muted sheet-help" }, t("call.more.help")),
      h("div", { class: "call-list rare", id: "rare-calls" }, renderGroups(state, groupByVerb(rare, context), { focusFirst: true }))));
}

function trumpPrompt(state, legal) {
  const turnUpSuit = state.view.turn_up ? state.view.turn_up[1] : null;
  const ordered = [...legal].sort((a, b) => (a.endsWith(` ${turnUpSuit}`) ? -1 : b.endsWith(` ${turnUpSuit}`) ? 1 : 0));
  return h("div", { class: "prompt trump-prompt", role: "group", "aria-labelledby": "trump-title" },
    h("h3", { id: "trump-title" }, t("prompt.trump.title")),
    h("p", {}, t("prompt.trump.help")),
    h("div", { class: "suit-buttons" }, ordered.map((action, index) => suitButton(state, action, index === 0))));
}

function suitButton(state, action, autofocus) {
  const suit = parseAction(action).args[0];
  const hinted = currentHint(state)?.action === action;
  return h("button", {
    type: "button", class: `suit-btn ${RED_SUITS.has(suit) ? "red" : ""} suit-${suit} ${hinted ? "hinted" : ""}`, disabled: state.pendingAction !== null,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null }, onclick: () => actions.act(action),
  },
  h("span", { class: "big-suit", "aria-hidden": "true" }, SUIT_SYMBOL[suit] ?? suit),
  h("span", {}, t(`suit.${suit}`)));
}

function boucheTrouPrompt(state, legal) {
  const context = callContext(state);
  const trumps = legal.filter((a) => describeAction(a, context).prompt === "trump");
  const others = legal.filter((a) => !trumps.includes(a));
  // The tricks the trou's team commits to, as the server says of naming trump now.
  const target = actionInfo(trumps[0], context).tricks ?? "";
  return h("div", { class: "prompt bouche-prompt", role: "group", "aria-labelledby": "bouche-title" },
    h("h3", { id: "bouche-title" }, t("prompt.bouche.title")),
    h("p", {}, t("prompt.bouche.help", { n: target })),
    h("div", { class: "suit-buttons" }, trumps.map((action, index) => suitButton(state, action, index === 0))),
    others.length ? h("details", { class: "refuse" },
      h("summary", { dataset: { key: "refuse" } }, t("prompt.bouche.refuse")),
      h("div", { class: "call-list" }, renderGroups(state, groupByVerb(others, context)))) : null);
}

/** The turn clock gave our seat to the bot: say so, and offer to take it back ("I'm back"). */
export function backNotice() {
  return h("div", { class: "back-notice", role: "status" },
    h("p", {}, t("clock.takenover")),
    // The bot's plays redraw the table several times a second: the press counts from the moment the
    // finger (or mouse) goes down, so that a redraw between down and up cannot lose it.
    h("button", { type: "button", class: "primary", dataset: { key: "im-back", autofocus: "" },
      onpointerdown: () => actions.backToSeat(), onclick: () => actions.backToSeat() }, t("clock.back")));
}
