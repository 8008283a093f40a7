// The panel under the hand: the calls (common ones at once, rare ones in a sheet), the prompts for
// naming trump, the discard and the bouche-trou's answer, the hint button, and the spectator's note.

import { t } from "./i18n.js";
import { h, replace } from "./dom.js";
import { cardFace } from "./cards.js";
import { describeAction, parseAction, promptOf, verbLabel, cardText, SUIT_SYMBOL, RED_SUITS } from "./calls.js";
import { mySeat, currentHint } from "./common.js";

/** What the panel offers now. `toast` shows a short message. */
export function actionPanel(app, { toast }) {
  const view = app.view;
  const room = app.room;
  const seat = mySeat(app);
  const panel = h("section", { class: "action-panel", "aria-label": t("panel.label") });
  if (!view) {
    const parts = [];
    if (room.status === "waiting") {
      const free = room.seats.filter((s) => s.kind === "empty").length;
      parts.push(h("p", {}, t("room.waiting", { n: free })));
      const buttons = [];
      if (app.you?.host) {
        buttons.push(h("button", { type: "button", class: "primary", id: "start-btn", dataset: { key: "start", autofocus: "" }, onclick: () => app.start() },
          free ? t("room.addbots") : t("room.start")));
      }
      buttons.push(copyLinkButton(app, toast));
      parts.push(h("div", { class: "row buttons" }, buttons));
    }
    if (app.you?.seat === null) parts.unshift(watchingNote(app));
    return replace(panel, parts);
  }
  if (seat === null || !view.hand) return replace(panel, watchingNote(app));
  const legal = view.legal || [];
  const context = callContext(app);
  const prompt = promptOf(view, context);
  let body = null;
  if (view.phase === "auction" && legal.length) {
    body = legal.some((a) => describeAction(a, context).prompt === "trump") ? boucheTrouPrompt(app, legal) : callingPanel(app, legal);
  } else if (prompt === "trump") {
    body = trumpPrompt(app, legal);
  } else if (view.phase === "discard") {
    body = legal.length
      ? h("div", { class: "prompt discard-prompt" }, h("h3", {}, t("prompt.discard.title")), h("p", {}, t("prompt.discard.help")))
      : h("p", { class: "muted" }, t("prompt.discard.waiting"),
        view.discarded ? h("span", { class: "discarded" }, ` ${t("table.discarded")}: `, cardFace(view.discarded, { size: "inline" })) : null);
  } else if (view.phase === "play" && legal.length) {
    body = h("p", { class: "hint" }, h("strong", {}, t("table.yourturn")), " — ", t("play.hint"));
  } else if (view.phase === "end" && app.ui.summaryHidden) {
    body = h("div", { class: "row buttons" },
      h("button", { type: "button", class: "primary", dataset: { key: "show-summary", autofocus: "" }, onclick: () => { app.ui.summaryHidden = false; app.rerender(); } },
        t("end.title")));
  }
  if (!body) return panel;
  panel.append(body);
  if (legal.length && view.phase !== "end") {
    // In the calling panel the hint shares the last line of calls, so that the panel stays low.
    const row = hintRow(app);
    const calls = body.querySelector?.(".call-list.common");
    if (row && calls) calls.append(row);
    else if (row) panel.append(row);
  }
  return panel;
}

// ------------------------------------------------------------------------------------------ hint

/** "Hint": what the bot would do in the player's seat (not in a daily challenge: hints are off there). */
function hintRow(app) {
  if (app.room?.daily) return null;
  const hint = currentHint(app);
  const note = hint?.action ? t("hint.says", { action: hintText(hint.action) })
    : hint?.error ? t(`hint.error.${hint.error}`) === `hint.error.${hint.error}` ? t("hint.error.other") : t(`hint.error.${hint.error}`)
      : "";
  return h("div", { class: "hint-row" },
    h("button", { type: "button", class: "ghost small hint-btn", dataset: { key: "hint" }, title: t("hint.help"), onclick: () => app.askHint() },
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
function watchingNote(app) {
  const free = (app.room?.seats || []).some((s) => s.kind === "empty");
  // The table is redrawn on every move: the draft keeps what is being typed.
  const input = h("input", {
    id: "player-name", type: "text", maxlength: 32, value: app.ui.nameDraft ?? app.name, autocomplete: "nickname",
    placeholder: t("lobby.name.placeholder"), dataset: { key: "room-name" },
    oninput: (event) => { app.ui.nameDraft = event.target.value; },
    onchange: (event) => { app.ui.nameDraft = null; app.saveName(event.target.value); },
  });
  return h("div", { class: "watching" },
    h("p", { class: "muted" }, t("room.watching")),
    free ? h("div", { class: "row" }, h("label", { for: "player-name" }, t("lobby.name")), input) : null);
}

export function copyLinkButton(app, toast) {
  const url = `${location.origin}/?room=${encodeURIComponent(app.roomId)}`;
  const button = h("button", {
    type: "button", class: "secondary", dataset: { key: "copy-link" },
    onclick: async () => {
      try {
        await navigator.clipboard.writeText(url);
        toast(t("lobby.link.copied"));
      } catch {
        // No clipboard API (a plain-http address): select the link so that it can be copied by hand.
        const field = button.parentElement?.querySelector(".link-input");
        field?.focus();
        field?.select();
      }
    },
  }, t("lobby.link.copy"));
  return h("span", { class: "link-box" }, button, h("input", { type: "text", readonly: true, value: url, "aria-label": t("lobby.link"), class: "link-input" }));
}

// ------------------------------------------------------------------------------------------ calls

function callContext(app) {
  const view = app.view;
  return {
    view,
    myProposal() {
      const seat = mySeat(app);
      let suit = null;
      for (const [s, action] of view.calls || []) {
        const { verb, args } = parseAction(action);
        if (s === seat && verb === "propose") suit = args[0];
      }
      return suit;
    },
    /** `accept S` takes the lowest level allowed; the higher ones are listed as `accept S N`. */
    acceptLevel(suit) {
      const higher = (view.legal || []).map(parseAction)
        .filter(({ verb, args }) => verb === "accept" && args[0] === suit && args.length > 1)
        .map(({ args }) => Number(args[1]));
      return higher.length ? Math.min(...higher) - 1 : 13;
    },
  };
}

/** A sentence that says what a call means ("Accept ♣ 8": join the proposer as a team for 8 tricks). */
function callHelp(described) {
  const key = `call.desc.${described.verb}`;
  const text = t(key, { n: described.tricks ?? "", suit: described.suit ? SUIT_SYMBOL[described.suit] ?? "" : "" });
  return text === key ? described.tricksText : text;
}

function callButton(app, action, described, { compact = false, autofocus = false, showTricks = true, short = false } = {}) {
  const label = compact ? compactLabel(described) : described.title;
  const colour = described.suit && RED_SUITS.has(described.suit) ? "red" : "";
  const hinted = currentHint(app)?.action === action;
  return h("button", {
    type: "button", class: `call ${described.verb === "pass" ? "pass" : ""} ${colour} ${described.suit ? `suit-${described.suit}` : ""} ${hinted ? "hinted" : ""}`,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null },
    "aria-label": `${described.title}${described.tricksText ? `, ${described.tricksText}` : ""}`,
    title: callHelp(described) || null,
    disabled: app.pendingAction !== null,
    onclick: () => { app.ui.rareOpen = false; app.act(action); },
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
function groupByVerb(actions, context) {
  const groups = new Map();
  for (const action of actions) {
    const described = describeAction(action, context);
    if (!groups.has(described.verb)) groups.set(described.verb, []);
    groups.get(described.verb).push([action, described]);
  }
  return groups;
}

function renderGroups(app, groups, { focusFirst = false } = {}) {
  const out = [];
  let first = focusFirst;
  for (const [verb, items] of groups) {
    if (items.length === 1) {
      out.push(h("div", { class: "call-group single" }, callButton(app, items[0][0], items[0][1], { autofocus: first })));
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
          callButton(app, action, described, { compact: true, autofocus: first && index === 0, showTricks: !same && !numbered, short: uniformMode })))));
    }
    first = false;
  }
  return out;
}

function callingPanel(app, legal) {
  const context = callContext(app);
  const common = [];
  const rare = [];
  for (const action of legal) (describeAction(action, context).rare ? rare : common).push(action);
  // Pass first: the most frequent answer, and the one a player must always be able to find.
  common.sort((a, b) => (a === "pass" ? -1 : b === "pass" ? 1 : 0));
  const panel = h("div", { class: "prompt calls-panel", role: "group", "aria-labelledby": "call-title" });
  // The title shares its line with Pass, so that the panel stays short on a phone.
  const commonList = h("div", { class: "call-list common" }, h("h3", { id: "call-title" }, t("call.title")),
    renderGroups(app, groupByVerb(common, context), { focusFirst: true }));
  panel.append(commonList);
  if (rare.length) {
    const open = Boolean(app.ui.rareOpen);
    commonList.append(h("button", {
      type: "button", class: "more-calls ghost", "aria-expanded": String(open), "aria-controls": "rare-calls",
      "aria-haspopup": "dialog", dataset: { key: "more-calls" },
      onclick: () => { app.ui.rareOpen = true; app.rerender(); },
    }, `${t("call.more")} (${rare.length})`));
  }
  return panel;
}

/**
 * The rare calls as a sheet over the table (a dialog the player can dismiss with ✕, Escape or a tap
 * outside), so that 20-odd calls never push the table and the hand off the screen.
 */
export function rareSheet(app) {
  const view = app.view;
  if (!app.ui.rareOpen || !view || view.phase !== "auction" || !(view.legal || []).length) {
    app.ui.rareOpen = false;
    return null;
  }
  const context = callContext(app);
  const rare = view.legal.filter((action) => describeAction(action, context).rare);
  if (!rare.length) {
    app.ui.rareOpen = false;
    return null;
  }
  const close = () => { app.ui.rareOpen = false; app.rerender(); document.querySelector("[data-key=more-calls]")?.focus(); };
  return h("div", { class: "sheet-backdrop", onclick: (event) => { if (event.target === event.currentTarget) close(); } },
    h("div", { class: "sheet", role: "dialog", "aria-modal": "true", "aria-labelledby": "rare-title", id: "rare-sheet" },
      h("div", { class: "modal-head" },
        h("h2", { id: "rare-title" }, t("call.more")),
        h("button", { type: "button", class: "ghost small close", "aria-label": t("table.close"), dataset: { key: "rare-close" }, onclick: close }, "✕")),
      h("p", { class: "muted sheet-help" }, t("call.more.help")),
      h("div", { class: "call-list rare", id: "rare-calls" }, renderGroups(app, groupByVerb(rare, context), { focusFirst: true }))));
}

function trumpPrompt(app, legal) {
  const turnUpSuit = app.view.turn_up ? app.view.turn_up[1] : null;
  const ordered = [...legal].sort((a, b) => (a.endsWith(` ${turnUpSuit}`) ? -1 : b.endsWith(` ${turnUpSuit}`) ? 1 : 0));
  return h("div", { class: "prompt trump-prompt", role: "group", "aria-labelledby": "trump-title" },
    h("h3", { id: "trump-title" }, t("prompt.trump.title")),
    h("p", {}, t("prompt.trump.help")),
    h("div", { class: "suit-buttons" }, ordered.map((action, index) => suitButton(app, action, index === 0))));
}

function suitButton(app, action, autofocus) {
  const suit = parseAction(action).args[0];
  const hinted = currentHint(app)?.action === action;
  return h("button", {
    type: "button", class: `suit-btn ${RED_SUITS.has(suit) ? "red" : ""} suit-${suit} ${hinted ? "hinted" : ""}`, disabled: app.pendingAction !== null,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null }, onclick: () => app.act(action),
  },
  h("span", { class: "big-suit", "aria-hidden": "true" }, SUIT_SYMBOL[suit] ?? suit),
  h("span", {}, t(`suit.${suit}`)));
}

function boucheTrouPrompt(app, legal) {
  const context = callContext(app);
  const trumps = legal.filter((a) => describeAction(a, context).prompt === "trump");
  const others = legal.filter((a) => !trumps.includes(a));
  const highest = app.view.auction?.highest;
  const target = highest && highest.kind === "trou" ? highest.level : 9;
  return h("div", { class: "prompt bouche-prompt", role: "group", "aria-labelledby": "bouche-title" },
    h("h3", { id: "bouche-title" }, t("prompt.bouche.title")),
    h("p", {}, t("prompt.bouche.help", { n: target })),
    h("div", { class: "suit-buttons" }, trumps.map((action, index) => suitButton(app, action, index === 0))),
    others.length ? h("details", { class: "refuse" },
      h("summary", { dataset: { key: "refuse" } }, t("prompt.bouche.refuse")),
      h("div", { class: "call-list" }, renderGroups(app, groupByVerb(others, context)))) : null);
}
