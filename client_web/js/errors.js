// What the page does with an error: a server's refusal is shown as a sentence (`showError`); anything
// else that goes wrong (an animation cut short is not wrong) is reported: logged with where it happened
// and handed to the listeners of `onReport` (the browser tests read `window.whistApp.reported`).
// No error is dropped silently.

import { t, own } from "./i18n.js";
import { h } from "./dom.js";

const listeners = new Set();

/** The last reports, newest last (a few: enough to see what went wrong). */
export const reported = [];

/** Call `listener({where, error})` on every report; returns the function that unsubscribes. */
export function onReport(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Something failed that the player need not be told about: log it and tell the listeners. */
export function report(where, error) {
  console.warn(`[whist] ${where}:`, error);
  reported.push({ where, message: String(error?.message ?? error), code: error?.code ?? null });
  while (reported.length > 20) reported.shift();
  for (const listener of listeners) listener({ where, error });
}

/** An animation's `finished` promise rejects when the animation is cancelled (its card was redrawn). */
export function unlessCancelled(where) {
  return (error) => {
    if (error?.name !== "AbortError") report(where, error);
  };
}

/** A server error as a sentence: known codes in the page's language, the server's own words otherwise. */
export function errorText(error) {
  const known = error?.code ? own(`error.code.${error.code}`, { message: error.message || "" }) : null;
  return known || error?.message ? `${t("error.prefix")} ${known || error.message}` : t("error.generic");
}

/** Show a server error as a sentence; it stays until dismissed or replaced (8 s at most). */
export function showError(error) {
  if (error?.code === "disconnected") return; // the connection banner says it
  const box = document.getElementById("errors");
  const text = errorText(error);
  const item = h("div", { class: "error", dataset: { code: error?.code || "" } },
    h("span", {}, text),
    h("button", { type: "button", class: "ghost small", onclick: () => item.remove() }, t("error.dismiss")));
  while (box.children.length >= 2) box.firstElementChild.remove();
  box.append(item);
  setTimeout(() => item.remove(), 8000);
}
