// The table: four seats (yours at the bottom, the others' hands as fanned card backs), the trick, the
// announcements line, the chips, your hand and the panel, the side panel; drawn from `state.room` and
// `state.view`. Cards glide from a hand to the trick and from the trick to its winner (motion.js).

import { t } from "./i18n.js";
import { h, morph } from "./dom.js";
import { cardFace, cardBack, suitBadge } from "./cards.js";
import { callLogText, cardName, SUIT_SYMBOL } from "./calls.js";
import { mySeat, position, seatInfo, seatName, isBot, contractTitle, signed, dailyScore, explained } from "./common.js";
import { handArea, layoutHand } from "./hand.js";
import { actionPanel, backNotice, copyLinkButton } from "./panel.js";
import { renderModals } from "./dialogs.js";
import { seatRects, handRects, flyIn, dealIn, sweepTo } from "./motion.js";
import { playSound } from "./sound.js";
import { practiceChip } from "./daily.js";
import { toast, announce, drawNews } from "./news.js";
import { actions } from "./actions.js";
import { replayActions } from "./replay-actions.js";
import { dialogOpened } from "./store.js";
import { seatClock } from "./clock.js";
import { chatButton, chatPanel, chatBeside, keepChatScroll } from "./chat.js";

// ------------------------------------------------------------------------------------------ announcements

/** Announce the events that deserve words, speak plays and calls, and play the optional sounds. */
export function announceEvents(state, events) {
  for (const event of events || []) {
    const text = eventText(state, event);
    if (text) toast(text, event.type === "thrown_in" || String(event.type).includes("trou") ? "big" : "info");
    const spoken = spokenEvent(state, event);
    if (spoken) announce(spoken);
    if (event.type === "card") playSound("card");
    if (event.type === "trick") playSound("trick");
  }
}

function spokenEvent(state, event) {
  const name = (seat) => seatName(state, seat);
  switch (event.type) {
    case "call": return t("say.call", { name: name(event.seat), call: callLogText(event.action) });
    case "card": return t("say.card", { name: name(event.seat), card: cardName(event.card) });
    case "trick": return t("say.trick", { name: name(event.winner) });
    default: return null;
  }
}

function eventText(state, event) {
  const name = (seat) => seatName(state, seat);
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
    case "bot_took_over": return t(event.reason === "clock" ? "ann.bot_took_over.clock" : "ann.bot_took_over", { name: name(event.seat) });
    case "turn_expired": return t("ann.turn_expired", { name: name(event.seat) });
    case "ready_expired": return t("ann.ready_expired");
    case "play_again": return event.seat === mySeat(state) ? null : t("ann.play_again", { name: name(event.seat) });
    case "session_started": return t("ann.session_started");
    case "chat_muted": return null;
    case "player_returned": return t("ann.player_returned", { name: name(event.seat) });
    case "call": case "card": case "trick": case "play_starts": case "end": case "discard":
    case "discard_phase": case "deal_started": case "seat_changed": case "game_ended":
      return null;
    default:
      return announcementText(state, event);
  }
}

/** Words for a rules-specific announcement (a trou, ...), whatever fields it carries. */
export function announcementText(state, event) {
  const type = String(event.type || "");
  const seat = event.seat ?? event.holder ?? event.declarer ?? (Array.isArray(event.declarers) ? event.declarers[0] : null);
  const partner = event.partner ?? (Array.isArray(event.declarers) ? event.declarers[1] : null);
  if (type.includes("trou")) {
    const royal = type.includes("royal") || event.royal || event.aces === 4;
    let text = t(royal ? "ann.trou_royal" : "ann.trou", { name: seat !== null && seat !== undefined ? seatName(state, seat) : "?" });
    if (partner !== null && partner !== undefined) text += " " + t("ann.trou.partner", { name: seatName(state, partner) });
    return text;
  }
  const words = type.replaceAll("_", " ").replaceAll("-", " ");
  return seat !== null && seat !== undefined ? `${words}: ${seatName(state, seat)}` : words;
}

// ------------------------------------------------------------------------------------------ room

/** Draw the room screen into `root` and the dialogs into `modalRoot`. */
export function renderRoom(state, root, modalRoot) {
  if (state.notFound || !state.room) root.inert = false;
  if (state.notFound) {
    morph(modalRoot);
    morph(root, h("section", { class: "card-panel notice" },
      h("p", {}, t("room.notfound")),
      h("button", { type: "button", class: "primary", onclick: () => actions.toLobby(), dataset: { key: "to-lobby" } }, t("lobby.back"))));
    return;
  }
  if (!state.room) {
    morph(modalRoot);
    morph(root, h("section", { class: "card-panel notice" }, h("p", {}, t("conn.connecting"))));
    return;
  }
  // Where cards were before this redraw: a card new on the table glides from there.
  const fromSeats = seatRects();
  const fromHand = handRects();
  const view = state.view;
  const screen = h("div", {
    class: `table-screen ${view ? `phase-${view.phase}` : "waiting"}`,
    dataset: { status: state.room.status, version: state.room.version },
  });
  const main = h("div", { class: "table-main" });
  main.append(board(state));
  main.append(h("div", { class: "news", role: "presentation" }));
  main.append(infoBar(state));
  const exposed = exposedArea(state);
  if (exposed) main.append(exposed);
  // The chat is in the page's flow, never over the table: beside it on a desktop (the side panel),
  // between the felt and the dock on a phone (the table makes room for it).
  const chat = chatPanel(state);
  const beside = chatBeside();
  if (chat && !beside) main.append(chat);
  // The dock holds the hand above the panel; on a phone it sticks to the bottom of the screen, so
  // that the cards and the calls are always in reach without scrolling.
  const hand = handArea(state, { onRefused: (text) => toast(text) });
  const dock = h("div", { class: "dock" });
  if (actions.takenOver()) dock.append(backNotice());
  if (hand) dock.append(hand);
  dock.append(actionPanel(state, { toast }));
  main.append(dock);
  const side = sidebar(state);
  if (chat && beside) side.prepend(chat);
  screen.append(main, side);
  const restoreChatScroll = keepChatScroll(root);
  // In place: the buttons under the player's pointer stay the same elements while the others play.
  morph(root, screen);
  restoreChatScroll();
  const handShown = root.querySelector(".dock .hand");
  if (handShown) layoutHand(handShown);
  drawNews();
  renderModals(state, modalRoot);
  noteDoubling(state);
  animateChanges(state, root, fromSeats, fromHand, handShown);
}

// What the table has already animated or announced: the renderer's own memory, not the page's state.
const drawnBefore = { trickCards: new Set(), dealtKey: null, turnWasMine: false, doubleAnnounced: null };

/** New trick cards glide in from their player; a new deal's hand is dealt from the middle. */
function animateChanges(state, root, fromSeats, fromHand, hand) {
  const view = state.view;
  const seen = drawnBefore.trickCards;
  const now = new Set();
  for (const el of root.querySelectorAll(".trick-card[data-seat]")) {
    const key = `${state.room.deal_number}:${el.dataset.seat}:${el.dataset.card}`;
    now.add(key);
    if (!seen.has(key)) {
      const from = fromHand[el.dataset.card] || fromSeats[el.dataset.seat];
      flyIn(el, from);
    }
  }
  drawnBefore.trickCards = now;
  const dealKey = view ? `${state.room.room_id}:${state.room.deal_number}` : null;
  if (dealKey && hand && drawnBefore.dealtKey !== dealKey) {
    drawnBefore.dealtKey = dealKey;
    if (!view.calls?.length && !view.tricks?.length) dealIn([...hand.querySelectorAll(".card")], root.querySelector(".table-center")?.getBoundingClientRect());
  }
  const myTurn = Boolean(view?.legal?.length) && view.phase !== "end";
  const turnKey = myTurn ? `${dealKey}:${state.room.version}` : null;
  if (myTurn && !drawnBefore.turnWasMine) playSound("turn");
  drawnBefore.turnWasMine = Boolean(turnKey);
}

/** At the end of the moment a completed trick stays on the table, its cards go to the winner. */
export function sweepTrick(trick) {
  const wanted = new Set(trick.cards.map(([, card]) => card));
  const cards = [...document.querySelectorAll(".trick .trick-card")];
  // Only the completed trick goes: once the winner has led again, the new trick stays where it is.
  if (cards.length !== wanted.size || !cards.every((el) => wanted.has(el.dataset.card))) return Promise.resolve();
  const target = document.querySelector(`.board .seat[data-seat="${trick.winner}"]`);
  return sweepTo(cards, target?.getBoundingClientRect());
}

function noteDoubling(state) {
  const view = state.view;
  if (!view || view.multiplier <= 1 || view.phase === "end") return;
  const key = `${state.room.room_id}:${state.room.deal_number}`;
  if (drawnBefore.doubleAnnounced === key) return;
  drawnBefore.doubleAnnounced = key;
  toast(t("ann.double", { n: view.multiplier }), "big");
}

// ------------------------------------------------------------------------------------------ board

function board(state) {
  const el = h("section", { class: "board", "aria-label": t("table.board") });
  for (let seat = 0; seat < 4; seat += 1) el.append(seatBox(state, seat));
  el.append(center(state));
  return el;
}

function lastCalls(view) {
  const last = {};
  for (const [seat, action] of view?.calls || []) last[seat] = action;
  return last;
}

/** An opponent's hand: card backs fanned by count (none for a hand lying face up). */
function backsFan(count, pos) {
  const shown = Math.min(count, 13);
  const fan = h("div", { class: `backs backs-${pos}`, "aria-hidden": "true", dataset: { count } });
  fan.style.setProperty("--n", String(shown));
  for (let i = 0; i < shown; i += 1) {
    const back = cardBack("back");
    back.style.setProperty("--i", String(i));
    back.style.setProperty("--n", String(shown));
    fan.append(back);
  }
  return fan;
}

function seatBox(state, seat) {
  const view = state.view;
  const info = seatInfo(state, seat);
  const me = seat === mySeat(state);
  const toAct = view?.to_act?.includes(seat) && view.phase !== "end";
  const pos = position(state, seat);
  const declarer = view?.contract?.declarers?.includes(seat);
  const badges = [];
  if (view && view.dealer === seat) badges.push(explained("span", "dealer", { class: "badge dealer" }, t("table.dealer.short")));
  // A bot seat says so in its name; a human's seat that a bot plays for now gets a badge.
  if (info.kind !== "bot" && isBot(info)) badges.push(explained("span", "bot", { class: "badge bot" }, t("room.seat.bot")));
  if (info.kind === "human" && !info.connected) badges.push(explained("span", "away", { class: "badge away" }, t("room.seat.away")));
  if (declarer) badges.push(explained("span", "declarer", { class: "badge declarer" }, "★"));
  if (state.room.status === "between_deals" && info.kind === "human" && info.ready) badges.push(explained("span", "ready", { class: "badge ready" }, "✓"));

  const stats = [];
  const count = view?.hand_counts?.[seat] ?? 0;
  if (view) {
    stats.push(explained("span", "tricks", { class: "stat tricks" }, t("table.tricks.short", { n: view.tricks_won?.[seat] ?? 0 })));
    if (!me || !view.hand) stats.push(explained("span", "count", { class: "stat count" }, h("span", { class: "mini-back", "aria-hidden": "true" }), String(count)));
  }
  const balance = state.room.balances?.[seat] ?? 0;
  stats.push(explained("span", "balance", { class: `stat balance ${balance > 0 ? "pos" : balance < 0 ? "neg" : ""}` }, t("table.points.short", { n: signed(balance) })));

  const call = lastCalls(view)[seat];
  const seatButtons = [];
  if (info.kind === "empty" && !info.bot_playing && state.you?.seat === null) {
    seatButtons.push(h("button", { type: "button", class: "primary small", dataset: { key: `sit-${seat}` }, onclick: () => actions.join(seat) }, t("room.seat.take")));
  } else if (info.kind === "empty" && state.you?.seat === null && state.room.status !== "waiting") {
    seatButtons.push(h("button", { type: "button", class: "secondary small", dataset: { key: `sit-${seat}` }, onclick: () => actions.join(seat) }, t("room.seat.take")));
  }
  if (info.kind === "empty" && state.you?.host && state.room.status === "waiting") {
    seatButtons.push(h("button", { type: "button", class: "ghost small", dataset: { key: `bot-${seat}` }, onclick: () => actions.addBot(seat) }, `+ ${t("room.seat.bot")}`));
  }
  const faceUp = view?.exposed && String(seat) in view.exposed;
  const showBacks = view && count > 0 && !faceUp && !(me && view.hand);
  const label = [
    seatName(state, seat), me ? t("room.seat.you") : null,
    view ? t("table.cards", { n: count }) : null,
    view && view.dealer === seat ? t("table.dealer") : null,
    declarer ? t("table.declarers") : null,
    toAct ? t("table.turn") : null,
  ].filter(Boolean).join(", ");
  return h("div", {
    class: `seat pos-${pos} ${me ? "me" : ""} ${toAct ? "to-act" : ""} ${info.kind}`,
    role: "group", dataset: { seat, pos }, "aria-label": label,
  },
  showBacks ? backsFan(count, pos) : null,
  h("div", { class: "seat-head" },
    h("span", { class: "name" }, seatName(state, seat), me ? h("small", {}, ` (${t("room.seat.you")})`) : null),
    badges),
  // The clock shares the stats' line: a seat's box (and the felt) keeps its height when the turn comes,
  // so the hand and the calls below never jump, and the longest calling panel still fits the screen.
  h("div", { class: "seat-stats" }, stats, seatClock(state, seat)),
  call && view?.phase !== "play" && view?.phase !== "end" ? h("div", { class: "bubble" }, callLogText(call)) : null,
  seatButtons.length ? h("div", { class: "seat-actions" }, seatButtons) : null);
}

function shownTrick(state) {
  const view = state.view;
  if (!view) return null;
  const flash = state.ui.flashTrick;
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

function center(state) {
  const el = h("div", { class: "table-center" });
  const trick = shownTrick(state);
  if (trick) {
    const spot = h("div", { class: "trick", role: "group", "aria-label": t("table.trick") });
    for (const [seat, card] of trick.cards) {
      spot.append(h("div", { class: `trick-card pos-${position(state, seat)} ${trick.winner === seat ? "winner" : ""}`, dataset: { seat, card } },
        cardFace(card, { size: "trick", attrs: { role: "img", "aria-label": `${cardName(card)}, ${seatName(state, seat)}` } })));
    }
    el.append(spot);
  }
  // With cards on the table the words go to the empty bottom spot (yours, when it is your turn).
  el.append(h("div", { class: `status-line ${trick ? "at-bottom" : ""}` }, statusText(state, trick)));
  return el;
}

function statusText(state, trick) {
  const view = state.view;
  const room = state.room;
  if (!view) {
    const free = room.seats.filter((s) => s.kind === "empty").length;
    return free ? t("room.waiting.short", { n: free }) : "";
  }
  const seat = mySeat(state);
  const myTurn = seat !== null && view.to_act.includes(seat) && view.legal?.length;
  if (trick) {
    const bottomFree = !trick.cards.some(([s]) => position(state, s) === "bottom");
    return myTurn && bottomFree ? t("table.yourturn") : "";
  }
  if (view.phase === "end") return t("table.phase.end");
  if (myTurn) return t("table.yourturn");
  const waiting = view.to_act.filter((s) => s !== seat).map((s) => seatName(state, s));
  return waiting.length ? t("table.waitingfor", { name: waiting.join(", ") }) : "";
}

// ------------------------------------------------------------------------------------------ info bar

function infoBar(state) {
  const view = state.view;
  const room = state.room;
  const chips = [];
  chips.push(h("span", { class: "chip" }, t("table.deal", { n: (room.deal_number ?? 0) + 1 }),
    room.session?.deals ? ` / ${room.session.deals}` : ""));
  if (room.daily) chips.push(h("span", { class: "chip daily-score" }, t("daily.score.chip", { score: dailyScore(room) })));
  chips.push(practiceChip(room));
  if (view) {
    const contract = view.contract;
    if (contract) {
      const names = contract.declarers.map((s) => seatName(state, s)).join(" & ");
      chips.push(explained("span", "contract", { class: "chip contract" },
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
      chips.push(explained("span", "turnup", { class: `chip turnup ${view.turn_up_in_hand ? "" : "played"}` },
        `${t("table.turnup")} `, cardFace(view.turn_up, { size: "inline", attrs: { role: "img" } })));
    }
    if (view.multiplier > 1) chips.push(explained("span", "double", { class: "chip double" }, `×${view.multiplier} ${t("table.double")}`));
    for (const announcement of view.announcements || []) chips.push(h("span", { class: "chip announce" }, announcementText(state, announcement)));
  }
  const tools = [chatButton(state)];
  if (view?.tricks?.length) tools.push(h("button", {
    type: "button", class: "ghost small last-trick-btn",
    dataset: { key: "last-trick" }, onclick: () => dialogOpened("lastTrick"),
  }, t("table.lasttrick")));
  tools.push(h("button", {
    type: "button", class: "ghost small help-btn", dataset: { key: "help" }, "aria-haspopup": "dialog",
    onclick: () => dialogOpened("help"),
  }, "? ", t("help.button")));
  return h("div", { class: "infobar" }, chips, h("span", { class: "tools" }, tools));
}

// ------------------------------------------------------------------------------------------ exposed hands

function exposedArea(state) {
  const view = state.view;
  if (!view || !view.exposed) return null;
  const rows = [];
  for (const [seatText, cards] of Object.entries(view.exposed)) {
    const seat = Number(seatText);
    if (seat === mySeat(state) && view.hand) {
      rows.push(h("div", { class: "exposed-row mine" }, h("span", { class: "label" }, t("table.exposed", { name: seatName(state, seat) }))));
      continue;
    }
    rows.push(h("div", { class: "exposed-row", dataset: { seat } },
      h("span", { class: "label" }, t("table.exposed", { name: seatName(state, seat) })),
      h("div", { class: "mini-hand" }, cards.map((card) => cardFace(card, { size: "mini", attrs: { role: "img" } })))));
  }
  return rows.length ? h("section", { class: "exposed", "aria-label": t("table.exposed.all") }, rows) : null;
}

// ------------------------------------------------------------------------------------------ sidebar

function sidebar(state) {
  const view = state.view;
  const room = state.room;
  // The log scrolls when long: it takes the focus so that the keyboard can scroll it too.
  const callsList = h("ol", { class: "calls-log", tabindex: "0", "aria-label": t("table.calls") });
  for (const [seat, action] of view?.calls || []) {
    callsList.append(h("li", {}, h("span", { class: "who" }, seatName(state, seat)), h("span", { class: "what" }, callLogText(action))));
  }
  const balances = h("table", { class: "balances" },
    h("tbody", {}, [0, 1, 2, 3].map((seat) => h("tr", { class: seat === mySeat(state) ? "me" : "" },
      h("th", { scope: "row" }, seatName(state, seat)),
      h("td", { class: room.balances[seat] > 0 ? "pos" : room.balances[seat] < 0 ? "neg" : "" }, signed(room.balances[seat]))))));
  return h("aside", { class: "sidebar", "aria-label": t("table.side") },
    h("section", { class: "side-panel" }, h("h2", {}, t("table.calls")),
      view?.calls?.length ? callsList : h("p", { class: "muted" }, t("table.calls.none"))),
    h("section", { class: "side-panel" }, h("h2", {}, t("table.balances")), balances),
    h("section", { class: "side-panel room-tools" },
      h("p", { class: "muted" }, t("room.watchers", { n: room.spectators })),
      h("div", { class: "row buttons" }, copyLinkButton(state, toast),
        room.played_deals ? h("button", { type: "button", class: "ghost", dataset: { key: "replays" }, onclick: () => replayActions.openSession("pick") }, t("replay.session")) : null,
        h("button", { type: "button", class: "ghost", dataset: { key: "leave" }, onclick: () => actions.leave() }, t("room.leave")))));
}
