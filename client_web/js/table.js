// The table: four seats (yours at the bottom), the trick, the calls, the calling panel and prompts,
// your hand, the end-of-deal summary and the final balances. Drawn from `app.room` and `app.view`.

import { t } from "./i18n.js";
import { h, replace } from "./dom.js";
import { cardFace, cardBack, suitBadge } from "./cards.js";
import { describeAction, parseAction, callLogText, verbLabel, SUIT_SYMBOL, RED_SUITS, rankText } from "./calls.js";
import { dealResultsSection, practiceChip, practiceNote } from "./daily.js";

const POSITIONS = ["bottom", "left", "top", "right"];
const SUIT_ORDER = ["S", "H", "C", "D"];

// ------------------------------------------------------------------------------------------ helpers

function mySeat(app) {
  if (app.view && app.view.seat !== null && app.view.seat !== undefined) return app.view.seat;
  return app.you?.seat ?? null;
}

/** Where a seat sits on screen: 0 bottom (you, or seat 0 for a spectator), then clockwise. */
function position(app, seat) {
  const base = mySeat(app) ?? 0;
  return POSITIONS[(seat - base + 4) % 4];
}

function seatInfo(app, seat) {
  return app.room?.seats?.[seat] || { seat, kind: "empty", name: null, connected: false, bot_playing: false, ready: false };
}

export function seatName(app, seat) {
  const info = seatInfo(app, seat);
  // Bots share one name ("heuristic bot"): number them by seat so that the table reads clearly.
  if (info.kind === "bot") return `${t("room.seat.botname")} ${seat + 1}`;
  if (info.name) return info.name;
  if (info.kind === "bot" || info.bot_playing) return `${t("room.seat.bot")} ${seat + 1}`;
  return t("room.seat.free");
}

function isBot(info) {
  return info.kind === "bot" || info.bot_playing;
}

/** "Emballage 9 ♥" from a contract name and trump. */
export function contractTitle(name, trump) {
  if (!name) return "";
  const [first, ...rest] = String(name).split(" ");
  const known = verbLabel(first);
  const head = known !== first ? known : first.replaceAll("-", " ").replace(/^./, (c) => c.toUpperCase());
  const words = rest.map((word) => SUIT_SYMBOL[word] ?? word);
  const trumpText = trump ? ` ${SUIT_SYMBOL[trump] ?? trump}` : "";
  return `${head}${words.length ? " " + words.join(" ") : ""}${trumpText}`.trim();
}

/** A daily-challenge game's score: the player's (seat 0) balance + 1000 (docs/protocol.md). */
function dailyScore(room) {
  return (room.balances?.[0] ?? 0) + 1000;
}

/** The daily score line of a summary, with whether the game is on the leaderboard yet. */
function dailyNote(room) {
  if (!room.daily) return null;
  const played = room.played_deals ?? 0;
  return h("p", { class: "daily-note" }, h("strong", {}, t("daily.score.line", { score: dailyScore(room), n: played })), " ",
    t(played >= 2 ? "daily.score.onboard" : "daily.score.soon"));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function legalCards(view) {
  const cards = new Map();
  for (const action of view?.legal || []) {
    const { verb, args } = parseAction(action);
    if (verb === "play" || verb === "discard") cards.set(args[0], action);
  }
  return cards;
}

function toastsEl() {
  return document.getElementById("toasts");
}

/** Show a short announcement; it fades after a few seconds. */
export function toast(text, kind = "info") {
  const box = toastsEl();
  const item = h("div", { class: `toast ${kind}` }, text);
  while (box.children.length >= 2) box.firstElementChild.remove();
  box.append(item);
  setTimeout(() => item.classList.add("fade"), 3000);
  setTimeout(() => item.remove(), 3600);
}

// ------------------------------------------------------------------------------------------ events

/** Announce the events that deserve words (a trou, a thrown-in deal, a contract, an exposed hand...). */
export function announceEvents(app, events) {
  for (const event of events || []) {
    const text = eventText(app, event);
    if (text) toast(text, event.type === "thrown_in" || String(event.type).includes("trou") ? "big" : "info");
  }
}

function eventText(app, event) {
  const name = (seat) => seatName(app, seat);
  switch (event.type) {
    case "thrown_in": return t("ann.thrown_in");
    case "contract": {
      const who = (event.declarers || []).map(name).join(" & ");
      return t("ann.contract", { name: who, contract: contractTitle(event.contract, event.trump) });
    }
    case "trump": return t("ann.trumpnamed", { name: name(event.seat), suit: event.trump ? `${SUIT_SYMBOL[event.trump]} ${t(`suit.${event.trump}`)}` : t("suit.NT") });
    case "exposed": return t("ann.exposed", { name: name(event.seat) });
    case "session_over": return t("ann.session_over");
    case "team": return t("ann.team", { a: name(event.proposer), b: name(event.acceptor), suit: SUIT_SYMBOL[event.suit] ?? "", n: event.level });
    case "trou_answer": return t("ann.trou_answer", { name: name(event.seat), suit: `${SUIT_SYMBOL[event.trump] ?? ""} ${t(`suit.${event.trump}`)}` });
    case "trou_refused": return t("ann.trou_refused", { name: name(event.seat), call: contractTitle(event.call, null) });
    case "auto_pass": return t("ann.auto_pass", { name: name(event.seat) });
    case "bot_took_over": return `${name(event.seat)}: ${t("room.seat.away")} (${t("room.seat.bot")})`;
    case "player_returned": return `${name(event.seat)} ✓`;
    case "call": case "card": case "trick": case "play_starts": case "end": case "discard":
    case "discard_phase": case "deal_started": case "seat_changed": case "game_ended":
      return null;
    default:
      return announcementText(app, event);
  }
}

/** Words for a rules-specific announcement (a trou, ...), whatever fields it carries. */
export function announcementText(app, event) {
  const type = String(event.type || "");
  const seat = event.seat ?? event.holder ?? event.declarer ?? (Array.isArray(event.declarers) ? event.declarers[0] : null);
  const partner = event.partner ?? (Array.isArray(event.declarers) ? event.declarers[1] : null);
  if (type.includes("trou")) {
    const royal = type.includes("royal") || event.royal || event.aces === 4;
    let text = t(royal ? "ann.trou_royal" : "ann.trou", { name: seat !== null && seat !== undefined ? seatName(app, seat) : "?" });
    if (partner !== null && partner !== undefined) text += " " + t("ann.trou.partner", { name: seatName(app, partner) });
    return text;
  }
  const words = type.replaceAll("_", " ").replaceAll("-", " ");
  return seat !== null && seat !== undefined ? `${words}: ${seatName(app, seat)}` : words;
}

// ------------------------------------------------------------------------------------------ room

/** Draw the room screen into `root` and the modal dialogs into `modalRoot`. */
export function renderRoom(app, root, modalRoot) {
  if (app.notFound || !app.room) root.inert = false;
  if (app.notFound) {
    replace(modalRoot);
    replace(root, h("section", { class: "card-panel notice" },
      h("p", {}, t("room.notfound")),
      h("button", { type: "button", class: "primary", onclick: () => app.toLobby(), dataset: { key: "to-lobby" } }, t("lobby.back"))));
    return;
  }
  if (!app.room) {
    replace(modalRoot);
    replace(root, h("section", { class: "card-panel notice" }, h("p", {}, t("conn.connecting"))));
    return;
  }
  const view = app.view;
  const screen = h("div", { class: `table-screen ${view ? `phase-${view.phase}` : "waiting"}`, dataset: { status: app.room.status } });
  const main = h("div", { class: "table-main" });
  main.append(board(app));
  main.append(infoBar(app));
  const exposed = exposedArea(app);
  if (exposed) main.append(exposed);
  // The dock holds the hand above the panel; on a phone it sticks to the bottom of the screen, so
  // that the cards and the calls are always in reach without scrolling.
  const hand = handArea(app);
  const dock = h("div", { class: "dock" });
  if (hand) dock.append(hand);
  dock.append(actionPanel(app));
  main.append(dock);
  screen.append(main, sidebar(app));
  replace(root, screen);
  if (hand) layoutHand(hand);
  renderModals(app, modalRoot);
  noteDoubling(app);
}

function noteDoubling(app) {
  const view = app.view;
  if (!view || view.multiplier <= 1 || view.phase === "end") return;
  const key = `${app.room.room_id}:${app.room.deal_number}`;
  if (app.ui.doubleAnnounced === key) return;
  app.ui.doubleAnnounced = key;
  toast(t("ann.double", { n: view.multiplier }), "big");
}

// ------------------------------------------------------------------------------------------ board

function board(app) {
  const el = h("section", { class: "board", "aria-label": t("app.title") });
  for (let seat = 0; seat < 4; seat += 1) el.append(seatBox(app, seat));
  el.append(center(app));
  return el;
}

function lastCalls(view) {
  const last = {};
  for (const [seat, action] of view?.calls || []) last[seat] = action;
  return last;
}

function seatBox(app, seat) {
  const view = app.view;
  const info = seatInfo(app, seat);
  const me = seat === mySeat(app);
  const toAct = view?.to_act?.includes(seat) && view.phase !== "end";
  const pos = position(app, seat);
  const declarer = view?.contract?.declarers?.includes(seat);
  const badges = [];
  if (view && view.dealer === seat) badges.push(h("span", { class: "badge dealer", title: t("table.dealer") }, t("table.dealer.short")));
  // A bot seat says so in its name; a human's seat that a bot plays for now gets a badge.
  if (info.kind !== "bot" && isBot(info)) badges.push(h("span", { class: "badge bot", title: t("room.seat.botplays") }, t("room.seat.bot")));
  if (info.kind === "human" && !info.connected) badges.push(h("span", { class: "badge away" }, t("room.seat.away")));
  if (declarer) badges.push(h("span", { class: "badge declarer", title: t("table.declarers") }, "★"));
  if (app.room.status === "between_deals" && info.kind === "human" && info.ready) badges.push(h("span", { class: "badge ready" }, "✓"));

  const stats = [];
  if (view) {
    stats.push(h("span", { class: "stat tricks", title: t("table.tricks") }, t("table.tricks.short", { n: view.tricks_won?.[seat] ?? 0 })));
    if (!me || !view.hand) stats.push(h("span", { class: "stat count", title: t("table.cards", { n: view.hand_counts?.[seat] ?? 0 }) }, h("span", { class: "mini-back", "aria-hidden": "true" }), String(view.hand_counts?.[seat] ?? 0)));
  }
  const balance = app.room.balances?.[seat] ?? 0;
  stats.push(h("span", { class: `stat balance ${balance > 0 ? "pos" : balance < 0 ? "neg" : ""}`, title: t("table.balance") }, t("table.points.short", { n: signed(balance) })));

  const call = lastCalls(view)[seat];
  const actions = [];
  if (info.kind === "empty" && !info.bot_playing && app.you?.seat === null) {
    actions.push(h("button", { type: "button", class: "primary small", dataset: { key: `sit-${seat}` }, onclick: () => app.join(seat) }, t("room.seat.take")));
  } else if (info.kind === "empty" && app.you?.seat === null && app.room.status !== "waiting") {
    actions.push(h("button", { type: "button", class: "secondary small", dataset: { key: `sit-${seat}` }, onclick: () => app.join(seat) }, t("room.seat.take")));
  }
  if (info.kind === "empty" && app.you?.host && app.room.status === "waiting") {
    actions.push(h("button", { type: "button", class: "ghost small", dataset: { key: `bot-${seat}` }, onclick: () => app.addBot(seat) }, `+ ${t("room.seat.bot")}`));
  }
  return h("div", {
    class: `seat pos-${pos} ${me ? "me" : ""} ${toAct ? "to-act" : ""} ${info.kind}`,
    dataset: { seat, pos }, "aria-label": `${seatName(app, seat)}${toAct ? ` — ${t("table.turn")}` : ""}`,
  },
  h("div", { class: "seat-head" },
    h("span", { class: "name" }, seatName(app, seat), me ? h("small", {}, ` (${t("room.seat.you")})`) : null),
    badges),
  h("div", { class: "seat-stats" }, stats),
  call && view?.phase !== "play" && view?.phase !== "end" ? h("div", { class: "bubble" }, callLogText(call)) : null,
  actions.length ? h("div", { class: "seat-actions" }, actions) : null);
}

function shownTrick(app) {
  const view = app.view;
  if (!view) return null;
  const flash = app.ui.flashTrick;
  const current = view.trick;
  if (current && current.cards.length) return { cards: current.cards, winner: null };
  if (flash && performance.now() < flash.until && flash.count === (view.tricks?.length ?? 0)) {
    return { cards: flash.trick.cards, winner: flash.trick.winner };
  }
  if (view.phase === "end" && view.tricks?.length) {
    const last = view.tricks[view.tricks.length - 1];
    return { cards: last.cards, winner: last.winner };
  }
  return null;
}

function center(app) {
  const view = app.view;
  const el = h("div", { class: "table-center" });
  const trick = shownTrick(app);
  if (trick) {
    const spot = h("div", { class: "trick", "aria-label": t("table.tricks") });
    for (const [seat, card] of trick.cards) {
      spot.append(h("div", { class: `trick-card pos-${position(app, seat)} ${trick.winner === seat ? "winner" : ""}` },
        cardFace(card, { size: "trick" })));
    }
    el.append(spot);
  }
  // With cards on the table the words go to the empty bottom spot (yours, when it is your turn).
  el.append(h("div", { class: `status-line ${trick ? "at-bottom" : ""}`, "aria-live": "polite" }, statusText(app, trick)));
  return el;
}

function statusText(app, trick) {
  const view = app.view;
  const room = app.room;
  if (!view) {
    const free = room.seats.filter((s) => s.kind === "empty").length;
    return free ? t("room.waiting.short", { n: free }) : "";
  }
  const seat = mySeat(app);
  const myTurn = seat !== null && view.to_act.includes(seat) && view.legal?.length;
  if (trick) {
    const bottomFree = !trick.cards.some(([s]) => position(app, s) === "bottom");
    return myTurn && bottomFree ? t("table.yourturn") : "";
  }
  if (view.phase === "end") return t("table.phase.end");
  if (myTurn) return t("table.yourturn");
  const waiting = view.to_act.filter((s) => s !== seat).map((s) => seatName(app, s));
  return waiting.length ? t("table.waitingfor", { name: waiting.join(", ") }) : "";
}

// ------------------------------------------------------------------------------------------ info bar

function infoBar(app) {
  const view = app.view;
  const room = app.room;
  const chips = [];
  chips.push(h("span", { class: "chip" }, t("table.deal", { n: (room.deal_number ?? 0) + 1 }),
    room.session?.deals ? ` / ${room.session.deals}` : ""));
  if (room.daily) chips.push(h("span", { class: "chip daily-score" }, t("daily.score.chip", { score: dailyScore(room) })));
  chips.push(practiceChip(room));
  if (view) {
    const contract = view.contract;
    if (contract) {
      const names = contract.declarers.map((s) => seatName(app, s)).join(" & ");
      chips.push(h("span", { class: "chip contract" },
        h("strong", {}, contractTitle(contract.name, null)),
        ` · ${names}`,
        contract.level !== null && contract.level !== undefined
          ? ` · ${contract.level === 0 ? t("table.target.none") : t("table.target", { n: contract.level })}` : ""));
      const choosing = contract.trump_chooser !== null && contract.trump_chooser !== undefined;
      chips.push(contract.trump || choosing
        ? h("span", { class: "chip trump" }, `${t("table.trump")} `, contract.trump ? suitBadge(contract.trump) : "?")
        : h("span", { class: "chip trump" }, t("table.notrump")));
    }
    if (view.turn_up) {
      chips.push(h("span", { class: `chip turnup ${view.turn_up_in_hand ? "" : "played"}`, title: view.turn_up_in_hand ? t("table.turnup.held") : "" },
        `${t("table.turnup")} `, cardFace(view.turn_up, { size: "inline" })));
    }
    if (view.multiplier > 1) chips.push(h("span", { class: "chip double" }, `×${view.multiplier} ${t("table.double")}`));
    for (const announcement of view.announcements || []) chips.push(h("span", { class: "chip announce" }, announcementText(app, announcement)));
    if (view.tricks?.length) chips.push(h("button", {
      type: "button", class: "ghost small last-trick-btn",
      dataset: { key: "last-trick" }, onclick: () => { app.ui.lastTrickOpen = true; app.rerender(); },
    }, t("table.lasttrick")));
  }
  return h("div", { class: "infobar" }, chips);
}

// ------------------------------------------------------------------------------------------ exposed hands

function exposedArea(app) {
  const view = app.view;
  if (!view || !view.exposed) return null;
  const rows = [];
  for (const [seatText, cards] of Object.entries(view.exposed)) {
    const seat = Number(seatText);
    if (seat === mySeat(app) && view.hand) {
      rows.push(h("div", { class: "exposed-row mine" }, h("span", { class: "label" }, t("table.exposed", { name: seatName(app, seat) }))));
      continue;
    }
    rows.push(h("div", { class: "exposed-row", dataset: { seat } },
      h("span", { class: "label" }, t("table.exposed", { name: seatName(app, seat) })),
      h("div", { class: "mini-hand" }, cards.map((card) => cardFace(card, { size: "mini" })))));
  }
  return rows.length ? h("section", { class: "exposed", "aria-label": t("table.exposed", { name: "" }) }, rows) : null;
}

// ------------------------------------------------------------------------------------------ action panel

function actionPanel(app) {
  const view = app.view;
  const room = app.room;
  const seat = mySeat(app);
  const panel = h("section", { class: "action-panel", "aria-live": "polite" });
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
      buttons.push(copyLinkButton(app));
      parts.push(h("div", { class: "row buttons" }, buttons));
    }
    if (app.you?.seat === null) parts.unshift(watchingNote(app));
    return replace(panel, parts);
  }
  if (seat === null || !view.hand) return replace(panel, watchingNote(app));
  const legal = view.legal || [];
  if (view.phase === "auction" && legal.length) {
    if (legal.some((a) => a.startsWith("trump "))) return replace(panel, boucheTrouPrompt(app, legal));
    return replace(panel, callingPanel(app, legal));
  }
  if (view.phase === "trump" && legal.length) return replace(panel, trumpPrompt(app, legal));
  if (view.phase === "discard") {
    if (legal.length) {
      return replace(panel, h("div", { class: "prompt discard-prompt" },
        h("h3", {}, t("prompt.discard.title")), h("p", {}, t("prompt.discard.help"))));
    }
    return replace(panel, h("p", { class: "muted" }, t("prompt.discard.waiting"),
      view.discarded ? h("span", { class: "discarded" }, ` ${t("table.discarded")}: `, cardFace(view.discarded, { size: "inline" })) : null));
  }
  if (view.phase === "play" && legal.length) {
    return replace(panel, h("p", { class: "hint" }, h("strong", {}, t("table.yourturn")), " — ", t("play.hint")));
  }
  if (view.phase === "end" && app.ui.summaryHidden) {
    return replace(panel, h("div", { class: "row buttons" },
      h("button", { type: "button", class: "primary", dataset: { key: "show-summary", autofocus: "" }, onclick: () => { app.ui.summaryHidden = false; app.rerender(); } },
        t("end.title"))));
  }
  return panel;
}

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

function copyLinkButton(app) {
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

function callContext(app) {
  const view = app.view;
  return {
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

function callButton(app, action, described, { compact = false, autofocus = false, showTricks = true, short = false } = {}) {
  const label = compact ? compactLabel(described) : described.title;
  const colour = described.suit && RED_SUITS.has(described.suit) ? "red" : "";
  return h("button", {
    type: "button", class: `call ${described.verb === "pass" ? "pass" : ""} ${colour}`,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null },
    "aria-label": `${described.title}${described.tricksText ? `, ${described.tricksText}` : ""}`,
    disabled: app.pendingAction !== null,
    onclick: () => app.act(action),
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
      out.push(h("div", { class: `call-group ${numbered ? "numbered" : ""}`, role: "group", "aria-label": verbLabel(verb) },
        h("span", { class: "group-label" }, verbLabel(verb), note ? h("span", { class: "group-tricks" }, ` — ${note}`) : null),
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
    const open = app.ui.moreCalls;
    commonList.append(h("button", {
      type: "button", class: "more-calls ghost", "aria-expanded": String(open), "aria-controls": "rare-calls",
      dataset: { key: "more-calls" },
      onclick: () => { app.ui.moreCalls = !app.ui.moreCalls; app.rerender(); },
    }, open ? t("call.fewer") : `${t("call.more")} (${rare.length})`));
    if (open) panel.append(h("div", { class: "call-list rare", id: "rare-calls" }, renderGroups(app, groupByVerb(rare, context))));
  }
  return panel;
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
  return h("button", {
    type: "button", class: `suit-btn ${RED_SUITS.has(suit) ? "red" : ""}`, disabled: app.pendingAction !== null,
    dataset: { action, key: `call:${action}`, autofocus: autofocus ? "" : null }, onclick: () => app.act(action),
  },
  h("span", { class: "big-suit", "aria-hidden": "true" }, SUIT_SYMBOL[suit] ?? suit),
  h("span", {}, t(`suit.${suit}`)));
}

function boucheTrouPrompt(app, legal) {
  const trumps = legal.filter((a) => a.startsWith("trump "));
  const others = legal.filter((a) => !a.startsWith("trump "));
  const context = callContext(app);
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

// ------------------------------------------------------------------------------------------ hand

function handArea(app) {
  const view = app.view;
  if (!view || !view.hand || mySeat(app) === null) return null;
  const playable = legalCards(view);
  const myTurn = playable.size > 0;
  const cards = view.hand;
  let focusCard = app.ui.handFocus;
  if (!cards.includes(focusCard) || (myTurn && !playable.has(focusCard))) {
    focusCard = myTurn ? cards.find((c) => playable.has(c)) : cards[0];
  }
  const el = h("section", {
    class: `hand ${myTurn ? "my-turn" : ""} ${view.phase === "discard" ? "discarding" : ""}`,
    "aria-label": t("table.hand"), role: "group",
  });
  const buttons = cards.map((card) => {
    const legal = playable.has(card);
    const button = cardFace(card, {
      size: "hand", tag: "button",
      attrs: {
        type: "button",
        class: `card card-hand ${RED_SUITS.has(card[1]) ? "red" : "black"} suit-${card[1]} ${myTurn ? (legal ? "playable" : "dimmed") : ""}`,
        tabindex: card === focusCard ? "0" : "-1",
        "aria-disabled": myTurn && !legal ? "true" : null,
        dataset: { card, key: `card-${card}`, autofocus: myTurn && card === focusCard ? "" : null },
      },
    });
    button.addEventListener("click", () => {
      if (!playable.has(card)) {
        if (myTurn) toast(t("play.cannot"));
        return;
      }
      app.act(playable.get(card));
    });
    button.addEventListener("focus", () => { app.ui.handFocus = card; });
    return button;
  });
  el.addEventListener("keydown", (event) => moveInHand(event, el, myTurn));
  el.append(...buttons);
  return el;
}

function moveInHand(event, hand, myTurn) {
  const keys = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"];
  if (!keys.includes(event.key)) return;
  const all = [...hand.querySelectorAll("button.card")];
  const pool = myTurn ? all.filter((b) => b.classList.contains("playable")) : all;
  if (!pool.length) return;
  const index = pool.indexOf(document.activeElement);
  let next;
  if (event.key === "Home") next = 0;
  else if (event.key === "End") next = pool.length - 1;
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = index <= 0 ? pool.length - 1 : index - 1;
  else next = index < 0 || index >= pool.length - 1 ? 0 : index + 1;
  event.preventDefault();
  for (const b of all) b.tabIndex = -1;
  pool[next].tabIndex = 0;
  pool[next].focus();
}

/** How much of a card's left edge must stay visible for its corner index (rank and suit) to be read. */
function indexStrip(cards) {
  let widest = 0;
  for (const card of cards) {
    const left = card.getBoundingClientRect().left;
    for (const part of card.querySelectorAll(".idx > span")) widest = Math.max(widest, part.getBoundingClientRect().right - left);
  }
  return Math.ceil(widest) + 2;
}

/** Place the cards: one fanned row when every corner index stays readable, else two rows. */
function layoutHand(hand) {
  const cards = [...hand.querySelectorAll(".card")];
  if (!cards.length) return;
  const width = hand.clientWidth - 4;
  const cardWidth = cards[0].offsetWidth || 50;
  // Each card keeps its corner index in view, and its own centre too, so that a tap (or a test's
  // click, which aims at the centre) lands on the card meant.
  const minStrip = Math.min(cardWidth, Math.max(indexStrip(cards), Math.ceil(cardWidth / 2) + 1));
  const oneRowStep = cards.length > 1 ? (width - cardWidth) / (cards.length - 1) : cardWidth;
  const rows = oneRowStep >= minStrip ? [cards] : [cards.slice(0, Math.ceil(cards.length / 2)), cards.slice(Math.ceil(cards.length / 2))];
  const gap = 6;
  const raise = parseFloat(getComputedStyle(hand).getPropertyValue("--raise")) || 14;
  const rowHeight = cards[0].offsetHeight || 84;
  // The second row must leave the first row's corner index visible, even when its cards rise.
  const indexHeight = (cards[0].querySelector(".idx")?.offsetHeight || 40) + 4;
  const rowStep = rows.length > 1 ? Math.max(rowHeight * 0.56, indexHeight + raise + 2) : rowHeight;
  rows.forEach((row, rowIndex) => {
    const step = row.length > 1 ? Math.min(cardWidth + gap, (width - cardWidth) / (row.length - 1)) : 0;
    const total = cardWidth + step * (row.length - 1);
    const left0 = (hand.clientWidth - total) / 2;
    row.forEach((card, index) => {
      card.style.left = `${left0 + index * step}px`;
      card.style.setProperty("--top", `${raise + rowIndex * rowStep}px`);
      card.style.zIndex = String(rowIndex * 20 + index + 1);
    });
  });
  hand.style.height = `${raise + rowStep * (rows.length - 1) + rowHeight + 6}px`;
  hand.dataset.rows = String(rows.length);
}

// ------------------------------------------------------------------------------------------ sidebar

function sidebar(app) {
  const view = app.view;
  const room = app.room;
  const callsList = h("ol", { class: "calls-log" });
  for (const [seat, action] of view?.calls || []) {
    callsList.append(h("li", {}, h("span", { class: "who" }, seatName(app, seat)), h("span", { class: "what" }, callLogText(action))));
  }
  const balances = h("table", { class: "balances" },
    h("tbody", {}, [0, 1, 2, 3].map((seat) => h("tr", { class: seat === mySeat(app) ? "me" : "" },
      h("th", { scope: "row" }, seatName(app, seat)),
      h("td", { class: room.balances[seat] > 0 ? "pos" : room.balances[seat] < 0 ? "neg" : "" }, signed(room.balances[seat]))))));
  return h("aside", { class: "sidebar" },
    h("section", { class: "side-panel" }, h("h3", {}, t("table.calls")),
      view?.calls?.length ? callsList : h("p", { class: "muted" }, t("table.calls.none"))),
    h("section", { class: "side-panel" }, h("h3", {}, t("table.balances")), balances),
    h("section", { class: "side-panel room-tools" },
      h("p", { class: "muted" }, t("room.watchers", { n: room.spectators })),
      h("div", { class: "row buttons" }, copyLinkButton(app),
        h("button", { type: "button", class: "ghost", dataset: { key: "leave" }, onclick: () => app.leave() }, t("room.leave")))));
}

// ------------------------------------------------------------------------------------------ modals

function renderModals(app, modalRoot) {
  const view = app.view;
  const room = app.room;
  const dialogs = [];
  if (app.ui.summaryDealNumber !== room.deal_number) {
    app.ui.summaryDealNumber = room.deal_number;
    app.ui.summaryHidden = false;
  }
  const over = room.status === "over" || room.session_over;
  if (view && view.phase === "end" && !app.ui.summaryHidden) dialogs.push(summaryDialog(app, over));
  else if (over && !(view && view.phase === "end")) dialogs.push(finalDialog(app));
  if (app.ui.lastTrickOpen && view?.tricks?.length) dialogs.push(lastTrickDialog(app));
  else app.ui.lastTrickOpen = false;
  replace(modalRoot, dialogs);
  document.body.classList.toggle("modal-open", dialogs.length > 0);
  // While a dialog is open the table behind it is inert: Tab stays in the dialog.
  document.getElementById("app").inert = dialogs.length > 0;
}

function modal(id, titleText, body, { onClose = null } = {}) {
  const dialog = h("div", { class: "modal", role: "dialog", "aria-modal": "true", "aria-labelledby": `${id}-title`, id },
    h("div", { class: "modal-box" },
      h("div", { class: "modal-head" },
        h("h2", { id: `${id}-title` }, titleText),
        onClose ? h("button", { type: "button", class: "ghost small close", "aria-label": t("table.close"), dataset: { key: `${id}-close` }, onclick: onClose }, "✕") : null),
      body));
  return dialog;
}

function lastTrickDialog(app) {
  const view = app.view;
  const last = view.tricks[view.tricks.length - 1];
  const close = () => {
    app.ui.lastTrickOpen = false;
    renderModals(app, document.getElementById("modal-root"));
    document.querySelector("[data-key=last-trick]")?.focus();
  };
  return modal("last-trick", t("table.lasttrick"), h("div", {},
    h("ul", { class: "last-trick" }, last.cards.map(([seat, card]) => h("li", { class: seat === last.winner ? "winner" : "" },
      cardFace(card, { size: "trick" }), h("span", {}, seatName(app, seat))))),
    h("p", {}, t("table.lasttrick.won", { name: seatName(app, last.winner) })),
    h("div", { class: "row buttons" }, h("button", { type: "button", class: "primary", dataset: { key: "last-trick-ok", autofocus: "" }, onclick: close }, t("table.close")))),
  { onClose: close });
}

function handText(cards) {
  const bySuit = {};
  for (const card of cards) (bySuit[card[1]] ||= []).push(card[0]);
  return h("span", { class: "hand-text" }, SUIT_ORDER.filter((s) => bySuit[s]).map((suit) =>
    h("span", { class: `suit-run ${RED_SUITS.has(suit) ? "red" : ""}` }, `${SUIT_SYMBOL[suit]} ${bySuit[suit].map(rankText).join(" ")}`)));
}

function resultLine(app, result) {
  if (result.status === "thrown_in") return t("end.thrown_in");
  const title = contractTitle(result.contract, result.trump);
  const declarers = result.declarers || [];
  const team = app.view?.contract?.team;
  if (team || declarers.length <= 1) {
    const tricks = declarers.reduce((sum, s) => sum + (result.tricks[s] || 0), 0);
    const made = declarers.length ? result.points[declarers[0]] > 0 : false;
    const names = declarers.map((s) => seatName(app, s)).join(" & ");
    return `${names} — ${t(tricks === 1 ? "end.result.one" : "end.result", { contract: title, outcome: t(made ? "end.made" : "end.failed"), tricks })}`;
  }
  return declarers.map((s) => `${seatName(app, s)}: ${t(result.tricks[s] === 1 ? "end.result.one" : "end.result", { contract: title, outcome: t(result.points[s] > 0 ? "end.made" : "end.failed"), tricks: result.tricks[s] })}`).join(" · ");
}

function balancesTable(app, result) {
  const room = app.room;
  return h("table", { class: "score-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("end.player")),
      result ? h("th", { scope: "col" }, t("end.tricks")) : null,
      result ? h("th", { scope: "col" }, t("end.points")) : null,
      h("th", { scope: "col" }, t("end.balance")))),
    h("tbody", {}, [0, 1, 2, 3].map((seat) => h("tr", { class: `${seat === mySeat(app) ? "me" : ""} ${result?.declarers?.includes(seat) ? "declarer" : ""}` },
      h("th", { scope: "row" }, seatName(app, seat), result?.declarers?.includes(seat) ? " ★" : ""),
      result ? h("td", {}, String(result.tricks[seat])) : null,
      result ? h("td", { class: result.points[seat] > 0 ? "pos" : result.points[seat] < 0 ? "neg" : "" }, signed(result.points[seat])) : null,
      h("td", { class: room.balances[seat] > 0 ? "pos" : room.balances[seat] < 0 ? "neg" : "" }, signed(room.balances[seat]))))));
}

function summaryDialog(app, over) {
  const view = app.view;
  const room = app.room;
  const result = view.result;
  const body = h("div", { class: "summary" });
  body.append(h("p", { class: `result-line ${result.status}` }, resultLine(app, result)));
  if (view.multiplier > 1) body.append(h("p", { class: "muted" }, `×${view.multiplier} ${t("table.double")}`));
  body.append(balancesTable(app, result));
  const daily = dailyNote(room);
  if (daily) body.append(daily);
  const practice = practiceNote(room);
  if (practice) body.append(practice);
  const others = dealResultsSection(app, room, contractTitle);
  if (others) body.append(others);
  const buttons = h("div", { class: "row buttons" });
  if (over) {
    body.prepend(h("p", { class: "final-note" }, t("ann.session_over")));
    buttons.append(
      h("button", { type: "button", class: "primary", id: "download-records", dataset: { key: "download", autofocus: "" }, onclick: () => app.downloadRecords() }, t("final.download")),
      h("button", { type: "button", class: "secondary", dataset: { key: "final-lobby" }, onclick: () => app.leave() }, t("final.lobby")));
  } else if (mySeat(app) !== null && view.hand) {
    const ready = app.ui.readySent === room.deal_number || room.seats[mySeat(app)]?.ready;
    buttons.append(h("button", { type: "button", class: "primary", id: "next-deal", disabled: ready, dataset: { key: "next-deal", autofocus: ready ? null : "" }, onclick: () => app.ready() }, t("end.next")));
    // Everyone may stop: the host ends the session for the table; another player ends their own
    // game (they leave, a bot takes the seat), and the button says so.
    buttons.append(h("button", {
      type: "button", class: "secondary", id: "end-game", dataset: { key: "end-game" },
      title: app.you?.host ? null : t("end.stop.leave"), onclick: () => app.endGame(),
    }, t("end.stop")));
    const waiting = room.seats.filter((s) => s.kind === "human" && s.connected && !s.ready && s.seat !== mySeat(app)).map((s) => s.name);
    if (ready) body.append(h("p", { class: "muted waiting" }, waiting.length ? t("end.waiting", { names: waiting.join(", ") }) : t("end.ready")));
    body.append(h("p", { class: "muted choice-help" }, app.you?.host ? t("end.choice.host") : t("end.choice.guest")));
  }
  buttons.append(h("button", { type: "button", class: "ghost", dataset: { key: "hide-summary" }, onclick: () => { app.ui.summaryHidden = true; app.rerender(); } }, t("end.review")));
  body.append(buttons);
  // The choice comes first (it fits a phone's screen); the hands as dealt follow, for reference.
  if (view.dealt) {
    body.append(h("h3", {}, t("end.hands")));
    body.append(h("ul", { class: "dealt" }, view.dealt.map((cards, seat) => h("li", {},
      h("span", { class: "who" }, seatName(app, seat)), handText(cards),
      view.discards?.[String(seat)] ? h("small", { class: "muted" }, ` (${t("end.discard")}: ${rankText(view.discards[String(seat)][0])}${SUIT_SYMBOL[view.discards[String(seat)][1]]})`) : null))));
  }
  return modal("summary", over ? t("final.title") : t("end.title"), body);
}

function finalDialog(app) {
  const body = h("div", { class: "summary" },
    balancesTable(app, null),
    dailyNote(app.room),
    h("div", { class: "row buttons" },
      h("button", { type: "button", class: "primary", id: "download-records", dataset: { key: "download", autofocus: "" }, onclick: () => app.downloadRecords() }, t("final.download")),
      h("button", { type: "button", class: "secondary", dataset: { key: "final-lobby" }, onclick: () => app.leave() }, t("final.lobby"))));
  return modal("final", t("final.title"), body);
}

export { cardBack };
