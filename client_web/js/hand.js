// The player's hand: the cards that may be played rise, the others are dimmed; when it is not the
// player's turn the whole hand is dimmed, and a tap says whose turn it is.

import { t } from "./i18n.js";
import { h, on } from "./dom.js";
import { cardFace } from "./cards.js";
import { RED_SUITS, parseAction } from "./calls.js";
import { mySeat, seatName, currentHint } from "./common.js";
import { actions } from "./actions.js";
import * as store from "./store.js";

/** The cards the player may play or discard now, each with its action. */
export function legalCards(view) {
  const cards = new Map();
  for (const action of view?.legal || []) {
    const { verb, args } = parseAction(action);
    if (verb === "play" || verb === "discard") cards.set(args[0], action);
  }
  return cards;
}

/** Why a tap on a card does nothing now, in words. */
function whyNot(state, myTurn) {
  if (state.pendingAction) return t("play.sent");
  if (myTurn) return t("play.cannot");
  if (state.view?.legal?.length) return t("play.callfirst");
  const waiting = (state.view?.to_act || []).map((s) => seatName(state, s));
  return waiting.length ? t("play.notturn", { name: waiting.join(", ") }) : t("play.notnow");
}

export function handArea(state, { onRefused }) {
  const view = state.view;
  if (!view || !view.hand || mySeat(state) === null) return null;
  const playable = legalCards(view);
  const myTurn = playable.size > 0;
  // Dimmed only while someone else is to act (during your own call the cards rest as they are).
  const othersTurn = !(view.legal || []).length;
  const cards = view.hand;
  const hinted = currentHint(state)?.action ?? null;
  let focusCard = state.ui.handFocus;
  if (!cards.includes(focusCard) || (myTurn && !playable.has(focusCard))) {
    focusCard = myTurn ? cards.find((c) => playable.has(c)) : cards[0];
  }
  const el = h("section", {
    class: `hand ${myTurn ? "my-turn" : ""} ${othersTurn ? "not-my-turn" : ""} ${view.phase === "discard" ? "discarding" : ""}`,
    "aria-label": othersTurn && view.phase !== "end" ? `${t("table.hand")} — ${whyNot(state, false)}` : t("table.hand"), role: "group",
  });
  const buttons = cards.map((card) => {
    const legal = playable.has(card);
    const button = cardFace(card, {
      size: "hand", tag: "button",
      attrs: {
        type: "button",
        class: `card card-hand ${RED_SUITS.has(card[1]) ? "red" : "black"} suit-${card[1]} ${myTurn ? (legal ? "playable" : "dimmed") : "waiting"} ${hinted === playable.get(card) && legal ? "hinted" : ""}`,
        tabindex: card === focusCard ? "0" : "-1",
        "aria-disabled": !legal ? "true" : null,
        dataset: { card, key: `card-${card}`, autofocus: myTurn && card === focusCard ? "" : null },
      },
    });
    on(button, "click", () => {
      const now = store.state(); // the state when tapped: an action may have been sent since the hand was drawn
      if (!playable.has(card) || now.pendingAction) {
        onRefused(whyNot(now, myTurn));
        return;
      }
      actions.act(playable.get(card));
    });
    on(button, "focus", () => store.handFocused(card));
    return button;
  });
  on(el, "keydown", (event) => moveInHand(event, event.currentTarget, myTurn));
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

/**
 * Place the cards: one fanned row when every corner index stays readable, else two rows. The hand
 * keeps room above the raised cards for the focused card's lift and focus ring, so that nothing of a
 * card is ever clipped.
 */
export function layoutHand(hand) {
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
  const style = getComputedStyle(hand);
  const raise = parseFloat(style.getPropertyValue("--raise")) || 14;
  // The focused card rises 6 px more and wears a 3 px ring 1 px away: 10 px of headroom above it.
  const headroom = parseFloat(style.getPropertyValue("--headroom")) || 11;
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
      card.style.setProperty("--top", `${headroom + raise + rowIndex * rowStep}px`);
      card.style.zIndex = String(rowIndex * 20 + index + 1);
    });
  });
  hand.style.height = `${headroom + raise + rowStep * (rows.length - 1) + rowHeight + 6}px`;
  hand.dataset.rows = String(rows.length);
}
