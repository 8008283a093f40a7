// Card faces drawn with HTML and the Unicode suit symbols: a corner index (rank over suit) that stays
// visible when cards overlap, and a large suit in the middle.

import { h } from "./dom.js";
import { SUIT_SYMBOL, RED_SUITS, rankText, cardName } from "./calls.js";

/** A face-up card. `size` is "hand", "trick" or "mini"; extra attributes go on the element. */
export function cardFace(card, { size = "trick", tag = "div", attrs = {} } = {}) {
  const suit = card[1];
  const colour = RED_SUITS.has(suit) ? "red" : "black";
  return h(
    tag,
    { class: `card card-${size} ${colour} suit-${suit}`, dataset: { card }, "aria-label": cardName(card), ...attrs },
    h("span", { class: "idx", "aria-hidden": "true" },
      h("span", { class: card[0] === "T" ? "rank ten" : "rank" }, rankText(card[0])),
      h("span", { class: "pip" }, SUIT_SYMBOL[suit])),
    h("span", { class: "face-pip", "aria-hidden": "true" }, SUIT_SYMBOL[suit]),
  );
}

/** A card seen from the back (a hidden card: the element carries no card name at all). */
export function cardBack(size = "mini") {
  return h("div", { class: `card card-${size} back`, "aria-hidden": "true" });
}

/** A suit symbol coloured like the cards. */
export function suitBadge(suit) {
  if (!suit || suit === "NT") return h("span", { class: "suit-badge nt" }, SUIT_SYMBOL.NT);
  return h("span", { class: `suit-badge ${RED_SUITS.has(suit) ? "red" : "black"}` }, SUIT_SYMBOL[suit]);
}
