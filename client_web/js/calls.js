// What each action of the deal-record vocabulary means on screen: its words, the tricks it commits
// to, and whether it is a rare call kept behind the "More calls" button. The tricks, the commitment and
// rare-or-not come from the server (`view.legal_info`) when it sends them, else from rules_legacy.js.

import { t } from "./i18n.js";
import { legacyActionInfo } from "./rules_legacy.js";

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣", NT: "SA" };
export const RED_SUITS = new Set(["H", "D"]);

/** Split an action into its verb and words. */
export function parseAction(action) {
  const [verb, ...args] = String(action).split(" ");
  return { verb, args };
}

function suitText(suit) {
  return SUIT_SYMBOL[suit] ?? suit;
}

/** The words of a verb in the current language. */
export function verbLabel(verb) {
  const key = `act.${verb}`;
  const text = t(key);
  return text === key ? verb : text;
}

/**
 * Describe an action: `{verb, rare, title, suit, tricks, tricksText}`.
 * `title` is plain text such as "Solo 6 ♥"; `tricksText` says what the call commits to (empty for pass).
 */
export function describeAction(action, context = {}) {
  const { verb, args } = parseAction(action);
  const info = actionInfo(action, context);
  let title = verbLabel(verb);
  let suit = null;
  let tricks = info.tricks ?? null;
  let mode = info.commitment || "alone";
  const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const suits = args.filter((a) => /^(S|H|D|C|NT)$/.test(a));
  if (suits.length) suit = suits[0];
  switch (verb) {
    case "solo":
    case "abondance":
      title = `${verbLabel(verb)} ${numbers.join(" ")}${suit ? " " + suitText(suit) : ""}`.trim();
      break;
    case "accept":
      if (tricks === null) mode = "atleast";
      title = `${verbLabel(verb)} ${suitText(suit)}${tricks !== null ? " " + tricks : ""}`;
      break;
    case "raise":
      title = `${verbLabel(verb)} ${numbers[0]}`;
      break;
    case "propose":
      title = `${verbLabel(verb)} ${suitText(suit)}`;
      break;
    case "renew":
    case "maintain": {
      const proposed = context.myProposal?.();
      if (proposed) { suit = proposed; title = `${verbLabel(verb)} ${suitText(proposed)}`; }
      break;
    }
    case "grand-chelem":
    case "petit-chelem":
      title = `${verbLabel(verb)} ${suit === "NT" ? t("suit.NT") : suitText(suit)}`;
      break;
    case "trump":
      title = suit === "NT" ? t("suit.NT") : `${suitText(suit)} ${t(`suit.${suit}`)}`;
      tricks = null;
      break;
    case "play":
    case "discard":
      title = `${verbLabel(verb)} ${cardText(args[0])}`;
      tricks = null;
      break;
    default:
      break;
  }
  let tricksText = "";
  if (verb !== "pass" && tricks !== null && tricks !== undefined) {
    if (mode === "partner") tricksText = t("call.tricks.partner", { n: tricks });
    else if (mode === "team") tricksText = t("call.tricks.team", { n: tricks });
    else if (tricks === 0) tricksText = t("call.tricks.zero");
    else if (tricks === 1) tricksText = t("call.tricks.one");
    else tricksText = t("call.tricks", { n: tricks });
  } else if (mode === "atleast") {
    tricksText = t("call.tricks.atleast", { n: 8 });
  }
  let tricksShort = "";
  if (verb !== "pass" && tricks !== null && tricks !== undefined) {
    tricksShort = tricks === 0 ? t("call.tricks.zero") : tricks === 1 ? t("call.tricks.one") : t("call.tricks", { n: tricks });
  }
  const modeText = mode === "partner" || mode === "atleast" ? t("call.mode.partner") : mode === "team" ? t("call.mode.team") : "";
  const compact = verb === "accept" ? `${suitText(suit)}${tricks !== null ? " " + tricks : ""}` : null;
  return { verb, args, rare: Boolean(info.rare), prompt: info.prompt, title, suit, tricks, tricksText, tricksShort, modeText, compact };
}

/**
 * The server's facts about a legal action (`view.legal_info`, aligned with `view.legal`) when it sends
 * them, else the old tables' guess: `{tricks, commitment, rare, prompt}`.
 */
export function actionInfo(action, context = {}) {
  const view = context.view;
  if (view && Array.isArray(view.legal_info) && Array.isArray(view.legal)) {
    const index = view.legal.indexOf(action);
    const info = index >= 0 ? view.legal_info[index] : null;
    if (info && info.action === action) return info;
  }
  return legacyActionInfo(action, context);
}

/** Which prompt the player's legal actions need: "call", "trump", "discard", "card" (or null). */
export function promptOf(view, context = {}) {
  const legal = view?.legal || [];
  if (!legal.length) return null;
  const prompts = legal.map((action) => actionInfo(action, { ...context, view }).prompt);
  for (const kind of ["card", "discard"]) if (prompts.includes(kind)) return kind;
  if (prompts.every((p) => p === "trump")) return "trump";
  return "call";
}

/** A card as short text, e.g. "10♥". */
export function cardText(card) {
  if (!card) return "";
  return `${rankText(card[0])}${SUIT_SYMBOL[card[1]] ?? card[1]}`;
}

/** The rank as printed on a card face: "10" for T, and the figures of the page's language (R D V, H V B). */
export function rankText(rank) {
  if (rank === "T") return "10";
  const key = `rank.short.${rank}`;
  const text = t(key);
  return text === key ? rank : text;
}

/** Spoken name of a card, for screen readers: "queen of hearts". */
export function cardName(card) {
  const rank = card[0];
  const rankWord = t(`rank.${rank}`) === `rank.${rank}` ? rankText(rank) : t(`rank.${rank}`);
  return t("card.of", { rank: rankWord, suit: t(`suit.${card[1]}`) });
}

/** A short line for the calls log: "Solo 6 ♥". */
export function callLogText(action) {
  const { verb } = parseAction(action);
  if (verb === "pass") return verbLabel("pass");
  const described = describeAction(action);
  if (verb === "trump") return `${verbLabel("trump")} ${described.title}`;
  return described.title;
}
