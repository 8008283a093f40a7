// Translation tables (one per language) and the lookup used everywhere on the page.
// The language comes from localStorage if the player chose one, else from navigator.language.

import en from "./lang/en.js";
import fr from "./lang/fr.js";
import nl from "./lang/nl.js";
import { storageGet, storageSet } from "./storage.js";

const STRINGS = { en, fr, nl };

export const LANGUAGES = Object.keys(STRINGS);
const STORAGE_KEY = "whist.lang";
let current = pickLanguage();

function pickLanguage() {
  const saved = storageGet(STORAGE_KEY);
  if (saved && STRINGS[saved]) return saved;
  const preferred = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"]);
  for (const tag of preferred) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (STRINGS[base]) return base;
  }
  return "en";
}

/** The current language code ("en", "fr" or "nl"). */
export function lang() { return current; }

/** Choose a language and remember the choice. */
export function setLang(code) {
  if (!STRINGS[code]) return;
  current = code;
  storageSet(STORAGE_KEY, code);
  // The page's `lang` changes with its text, at the next render (app.js), never before it.
}

/** Each language's name in itself, for the language menu. */
export const LANGUAGE_NAMES = { en: "English", fr: "Français", nl: "Nederlands" };

/** Translate `key`, filling `{name}` placeholders from `params`. Unknown keys fall back to English. */
export function t(key, params = {}) {
  const table = STRINGS[current];
  let text = table[key] ?? STRINGS.en[key] ?? key;
  for (const [name, value] of Object.entries(params)) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

/** The text of `key` in the current language only (no English fallback), or null. */
export function own(key, params = {}) {
  if (!(key in STRINGS[current])) return null;
  return t(key, params);
}

/** A room's name as shown: the server's default "<name>'s table" and a daily room's name in the page's language. */
export function roomName(room) {
  if (!room) return "";
  if (room.daily) return t("daily.chip", { day: room.daily });
  const owner = /^(.+)'s table$/.exec(String(room.name || ""));
  return owner ? t("room.name.default", { name: owner[1] }) : room.name;
}

/** Whether a translation exists for `key`. */
export function has(key) { return key in STRINGS[current] || key in STRINGS.en; }
