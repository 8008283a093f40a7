// What each action of the deal-record vocabulary means on screen: its words, the tricks it commits
// to, and whether it is a rare call kept behind the "More calls" button.

import { t } from "./i18n.js";

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣", NT: "SA" };
export const RED_SUITS = new Set(["H", "D"]);

/** Verbs of the rare calls: abondance, misères, chelems, piccolo, abundance, spread misère. */
const RARE_VERBS = new Set([
  "abondance", "abundance", "royal-abundance", "abundance-declared",
  "misere", "petite-misere", "grande-misere", "misere-etalee", "spread-misere",
  "petite-misere-etalee", "grande-misere-etalee", "piccolo", "grand-chelem", "petit-chelem",
]);

/** Fixed trick targets of verbs whose target does not appear in the action text. */
const FIXED_TRICKS = {
  prop: [8, "partner"], cop: [8, "partner"], solo: [5, "alone"], misere: [0, "alone"],
  abundance: [9, "alone"], "royal-abundance": [9, "alone"], "spread-misere": [0, "alone"],
  "abundance-declared": [13, "alone"], propose: [8, "partner"], renew: [8, "partner"], maintain: [8, "partner"],
  "petite-misere": [0, "alone"], "grande-misere": [0, "alone"], "misere-etalee": [0, "alone"],
  "petite-misere-etalee": [0, "alone"], "grande-misere-etalee": [0, "alone"], piccolo: [1, "alone"],
  "grand-chelem": [13, "alone"], "petit-chelem": [12, "alone"],
};

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
  let title = verbLabel(verb);
  let suit = null;
  let tricks = null;
  let mode = "alone";
  if (verb in FIXED_TRICKS) [tricks, mode] = FIXED_TRICKS[verb];
  const numbers = args.filter((a) => /^\d+$/.test(a)).map(Number);
  const suits = args.filter((a) => /^(S|H|D|C|NT)$/.test(a));
  if (suits.length) suit = suits[0];
  switch (verb) {
    case "solo":
    case "abondance":
      if (numbers.length) tricks = numbers[0];
      title = `${verbLabel(verb)} ${numbers.join(" ")}${suit ? " " + suitText(suit) : ""}`.trim();
      break;
    case "accept":
      mode = "partner";
      if (numbers.length) tricks = numbers[0];
      else tricks = context.acceptLevel?.(suit) ?? null;
      if (tricks === null) mode = "atleast";
      title = `${verbLabel(verb)} ${suitText(suit)}${tricks !== null ? " " + tricks : ""}`;
      break;
    case "raise":
      mode = "team";
      tricks = numbers[0];
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
  return { verb, args, rare: RARE_VERBS.has(verb), title, suit, tricks, tricksText, tricksShort, modeText, compact };
}

/** A card as short text, e.g. "10♥". */
export function cardText(card) {
  if (!card) return "";
  return `${rankText(card[0])}${SUIT_SYMBOL[card[1]] ?? card[1]}`;
}

/** The rank as printed on a card face ("10" for T; French figures in French). */
export function rankText(rank) {
  if (rank === "T") return "10";
  return rank;
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
