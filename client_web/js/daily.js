// The daily challenge's player key, the "practice" mark, and "how others played this deal"
// (docs/protocol.md, "Daily challenge"). A small module of its own: the table only calls it.

import { h } from "./dom.js";
import { lang } from "./i18n.js";
import { storageGet, storageSet } from "./storage.js";
import { report } from "./errors.js";

const KEY_STORAGE = "whist.player_key";

const STRINGS = {
  en: {
    practice: "Practice",
    "practice.help": "You have already played today's challenge in this browser: this game is practice and does not enter the leaderboard.",
    "others.title": "How others played this deal",
    "others.loading": "Loading the other players' results…",
    "others.failed": "The other players' results could not be loaded.",
    "others.place": "Your place on this deal: {place} of {n}.",
    "others.place.practice": "Your place on this deal (practice, not counted): {place} of {n}.",
    "others.alone": "You are the first to finish this deal today.",
    "others.col.place": "#",
    "others.col.player": "Player",
    "others.col.contract": "Contract",
    "others.col.points": "Points",
    "others.col.score": "Score",
    "others.thrown": "thrown in",
    "others.you": "(you)",
  },
  fr: {
    practice: "Entraînement",
    "practice.help": "Vous avez déjà joué le défi du jour dans ce navigateur : cette partie est un entraînement et n'entre pas au classement.",
    "others.title": "Comment les autres ont joué cette donne",
    "others.loading": "Chargement des résultats des autres joueurs…",
    "others.failed": "Les résultats des autres joueurs n'ont pas pu être chargés.",
    "others.place": "Votre place sur cette donne : {place} sur {n}.",
    "others.place.practice": "Votre place sur cette donne (entraînement, non comptée) : {place} sur {n}.",
    "others.alone": "Vous êtes le premier à finir cette donne aujourd'hui.",
    "others.col.place": "#",
    "others.col.player": "Joueur",
    "others.col.contract": "Contrat",
    "others.col.points": "Points",
    "others.col.score": "Score",
    "others.thrown": "donne annulée",
    "others.you": "(vous)",
  },
  nl: {
    practice: "Oefenpartij",
    "practice.help": "Je hebt de uitdaging van vandaag al gespeeld in deze browser: deze partij is een oefenpartij en telt niet mee voor het klassement.",
    "others.title": "Hoe anderen dit spel speelden",
    "others.loading": "De resultaten van de andere spelers worden geladen…",
    "others.failed": "De resultaten van de andere spelers konden niet geladen worden.",
    "others.place": "Jouw plaats in dit spel: {place} van {n}.",
    "others.place.practice": "Jouw plaats in dit spel (oefenpartij, telt niet mee): {place} van {n}.",
    "others.alone": "Je bent vandaag de eerste die dit spel uitspeelt.",
    "others.col.place": "#",
    "others.col.player": "Speler",
    "others.col.contract": "Contract",
    "others.col.points": "Punten",
    "others.col.score": "Score",
    "others.thrown": "opnieuw gedeeld",
    "others.you": "(jij)",
  },
};

function say(key, params = {}) {
  let text = (STRINGS[lang()] || STRINGS.en)[key] ?? STRINGS.en[key] ?? key;
  for (const [name, value] of Object.entries(params)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

/** This browser's player key: 32 random bytes (base64url), made once and kept like the seat tokens. */
export function playerKey() {
  const kept = storageGet(KEY_STORAGE);
  if (kept && /^[A-Za-z0-9_-]{16,128}$/.test(kept)) return kept;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const key = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
  storageSet(KEY_STORAGE, key); // without storage: a key for this page only
  return key;
}

/** The "Practice" chip of a daily game that does not count (null otherwise). */
export function practiceChip(room) {
  if (!room?.daily || !room.practice) return null;
  return h("span", { class: "chip practice", title: say("practice.help") }, say("practice"));
}

/** The summary's practice note (null for a counted game). */
export function practiceNote(room) {
  if (!room?.daily || !room.practice) return null;
  return h("p", { class: "practice-note" }, h("strong", {}, say("practice")), " · ", say("practice.help"));
}

// room id + deal -> the answer, "loading" or "failed": asked once per deal, however often the page redraws.
const results = new Map();

/**
 * "How others played this deal", for the end-of-deal summary of a daily room. Asks the server once
 * (`daily_deal_results`, with `request`) and calls `redraw` when the answer comes; `contractTitle`
 * names a contract.
 */
export function dealResultsSection(room, { request, redraw, contractTitle }) {
  if (!room?.daily) return null;
  const deal = room.deal_number;
  const key = `${room.room_id}:${deal}`;
  if (!results.has(key)) {
    results.set(key, "loading");
    request("daily_deal_results", { deal })
      .then((answer) => results.set(key, answer))
      .catch((error) => {
        report("loading how others played the deal (the summary says it failed)", error);
        results.set(key, "failed");
      })
      .finally(redraw);
  }
  const found = results.get(key);
  const section = h("section", { class: "deal-results", "aria-labelledby": "deal-results-title" },
    h("h3", { id: "deal-results-title" }, say("others.title")));
  if (found === "loading" || found === "failed") {
    section.append(h("p", { class: "muted" }, say(found === "loading" ? "others.loading" : "others.failed")));
    return section;
  }
  const counted = found.games;
  section.dataset.place = String(found.place);
  if (counted === 0 || (counted === 1 && !found.practice)) section.append(h("p", { class: "muted" }, say("others.alone")));
  const total = found.results.length > counted ? counted + 1 : counted;
  section.append(h("p", { class: "deal-place" },
    say(found.practice ? "others.place.practice" : "others.place", { place: found.place, n: Math.max(total, 1) })));
  section.append(h("table", { class: "score-table deal-results-table" },
    h("thead", {}, h("tr", {},
      ["place", "player", "contract", "points", "score"].map((col) => h("th", { scope: "col" }, say(`others.col.${col}`))))),
    h("tbody", {}, found.results.map((line) => h("tr", { class: line.mine ? "me" : "" },
      h("td", {}, String(line.place)),
      h("th", { scope: "row" }, line.name, line.mine ? ` ${say("others.you")}` : "",
        line.practice ? h("small", { class: "practice" }, ` · ${say("practice")}`) : null),
      h("td", {}, line.status === "thrown_in" || !line.contract ? say("others.thrown") : contractTitle(line.contract, line.trump)),
      h("td", { class: line.points > 0 ? "pos" : line.points < 0 ? "neg" : "" }, line.points > 0 ? `+${line.points}` : String(line.points)),
      h("td", {}, String(line.score)))))));
  return section;
}
