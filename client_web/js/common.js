// Small facts about the table shared by the table, the panels, the dialogs and the replay viewer.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { verbLabel, SUIT_SYMBOL } from "./calls.js";

export const POSITIONS = ["bottom", "left", "top", "right"];
export const SUIT_ORDER = ["S", "H", "C", "D"];

/** The player's seat (null for a spectator). */
export function mySeat(state) {
  if (state.view && state.view.seat !== null && state.view.seat !== undefined) return state.view.seat;
  return state.you?.seat ?? null;
}

/** Where a seat sits on screen: `base` at the bottom (you, or seat 0 for a spectator), then clockwise. */
export function positionFrom(base, seat) {
  return POSITIONS[(seat - (base ?? 0) + 4) % 4];
}

export function position(state, seat) {
  return positionFrom(mySeat(state), seat);
}

export function seatInfo(state, seat) {
  return state.room?.seats?.[seat] || { seat, kind: "empty", name: null, connected: false, bot_playing: false, ready: false };
}

export function isBot(info) {
  return info.kind === "bot" || info.bot_playing;
}

export function seatName(state, seat) {
  const info = seatInfo(state, seat);
  // Bots share one name ("heuristic bot"): number them by seat so that the table reads clearly.
  if (info.kind === "bot") return `${t("room.seat.botname")} ${seat + 1}`;
  if (info.name) return info.name;
  if (isBot(info)) return `${t("room.seat.bot")} ${seat + 1}`;
  return t("room.seat.free");
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

export function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** A daily-challenge game's score: the player's (seat 0) balance + 1000 (docs/protocol.md). */
export function dailyScore(room) {
  return (room.balances?.[0] ?? 0) + 1000;
}

/**
 * A badge or chip that explains itself: a tooltip (title), a long press on a touch screen, and an
 * entry of the same name in the legend (`legend.<key>`).
 */
export function explained(tag, key, attrs, ...children) {
  return h(tag, { ...attrs, title: t(`legend.${key}`), dataset: { ...(attrs.dataset || {}), legend: key } }, ...children);
}

/**
 * Where the deal stands (deal, phase, calls, cards played, discards): a hint belongs to one moment of
 * the deal, not to a room version (asking for a hint is itself logged, which moves the version on).
 */
export function dealMoment(state) {
  const view = state.view;
  if (!view) return null;
  const played = (view.tricks || []).length * 4 + (view.trick?.cards?.length ?? 0);
  return `${state.room?.deal_number}:${view.phase}:${(view.calls || []).length}:${played}:${(view.discards_made || []).length}`;
}

/** The hint shown now (null once the deal has moved on). */
export function currentHint(state) {
  const hint = state.ui.hint;
  return hint && hint.moment === dealMoment(state) ? hint : null;
}
