// Motion: cards that travel from a hand to the trick and from the trick to its winner, and a short deal.
// Every animation is short and finite (no animation runs forever), and none runs when the player asks
// for reduced motion (`prefers-reduced-motion: reduce`).

import { unlessCancelled } from "./errors.js";

const reduced = typeof matchMedia === "function" ? matchMedia("(prefers-reduced-motion: reduce)") : null;

/** Whether animations are allowed. */
export function motionAllowed() {
  return !(reduced && reduced.matches);
}

/** Where each seat's cards come from on screen, measured just before the table is redrawn. */
export function seatRects() {
  const rects = {};
  for (const seat of document.querySelectorAll(".board .seat[data-seat]")) {
    rects[seat.dataset.seat] = seat.getBoundingClientRect();
  }
  return rects;
}

/** Where each card of the hand was, measured just before the table is redrawn. */
export function handRects() {
  const rects = {};
  for (const card of document.querySelectorAll(".hand .card[data-card]")) rects[card.dataset.card] = card.getBoundingClientRect();
  return rects;
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/**
 * A card newly on the table glides from where it came from (the card in the hand, or the seat that
 * played it) to its place. `before` holds the rects measured before the redraw.
 */
export function flyIn(element, fromRect, duration = 260) {
  if (!motionAllowed() || !fromRect || !element.animate) return;
  const to = element.getBoundingClientRect();
  const a = centre(fromRect);
  const b = centre(to);
  const scale = fromRect.width && to.width ? Math.max(0.4, Math.min(1.4, fromRect.width / to.width)) : 1;
  element.animate(
    [{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px) scale(${scale})` }, { transform: "none" }],
    { duration, easing: "cubic-bezier(.2,.7,.3,1)", composite: "add" },
  );
}

/**
 * The cards of a completed trick slide together to the seat that won it, and fade. They hold their
 * last frame until the next redraw: hidden, so that they cover neither the seat nor a tap on it.
 */
export function sweepTo(cards, targetRect, duration = 320) {
  if (!motionAllowed() || !targetRect) return Promise.resolve();
  const target = centre(targetRect);
  const runs = [];
  for (const card of cards) {
    if (!card.animate) continue;
    const c = centre(card.getBoundingClientRect());
    const timing = { duration, easing: "ease-in", fill: "forwards" };
    // The move adds to the card's own transform (its place in the trick). The fade replaces: added to
    // the card's opacity of 1, an opacity of 0 would still be 1 and the cards would stay on the seat.
    runs.push(card.animate(
      [{ transform: "none" }, { transform: `translate(${target.x - c.x}px, ${target.y - c.y}px) scale(.5)` }],
      { ...timing, composite: "add" },
    ).finished.catch(unlessCancelled("sweeping a trick to its winner")));
    card.animate([{ opacity: 1, visibility: "visible" }, { opacity: 0, visibility: "hidden" }], timing)
      .finished.catch(unlessCancelled("fading a trick swept to its winner"));
  }
  return Promise.all(runs);
}

/** A new deal: the cards of the hand arrive one after the other from the middle of the table. */
export function dealIn(cards, fromRect) {
  if (!motionAllowed() || !fromRect) return;
  const from = centre(fromRect);
  cards.forEach((card, index) => {
    if (!card.animate) return;
    const c = centre(card.getBoundingClientRect());
    const timing = { duration: 240, delay: index * 22, easing: "ease-out", fill: "backwards" };
    // As in sweepTo: the move adds to the card's transform, the fade replaces its opacity (added, a
    // card waiting for its turn would show, piled with the others in the middle of the table).
    card.animate(
      [{ transform: `translate(${from.x - c.x}px, ${from.y - c.y}px) scale(.6)` }, { transform: "none" }],
      { ...timing, composite: "add" },
    );
    card.animate([{ opacity: 0 }, { opacity: 1 }], timing);
  });
}
