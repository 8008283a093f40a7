// The turn clock on the seat to act (docs/protocol.md, "The turn clock"): a bar that empties towards
// `room.clock.deadline` (Unix seconds, read against the browser's own clock), the seconds left, and a
// warning in the last seconds (colour and words, an optional sound on your own clock). The table draws
// the clock with the seat; between two states a ticker here moves the bar and the seconds in place
// (no redraw of the table). Screen readers read it as a timer whose name changes only now and then.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { seatName, mySeat } from "./common.js";
import { playSound } from "./sound.js";
import { announce } from "./news.js";

/** The last seconds of a clock are a warning (the whole clock when it is shorter than that). */
export const WARNING_SECONDS = 10;
const TICK_MS = 250;

let ticker = null;
// What the ticker already did for a deadline: the warning said (and sounded) once per turn.
let warnedFor = null;

/** Seconds left before `deadline` (Unix seconds), never below 0. */
export function secondsLeft(deadline) {
  return Math.max(0, deadline - Date.now() / 1000);
}

/** The clock of `seat`, or null when its clock does not run. */
export function seatClock(state, seat) {
  const clock = state.room?.clock;
  if (!clock || clock.seat !== seat || typeof clock.deadline !== "number") return null;
  const total = Number(state.room.turn_seconds) || WARNING_SECONDS;
  const el = h("div", {
    class: "turn-clock", role: "timer",
    dataset: { seat, deadline: clock.deadline, total, name: seatName(state, seat), mine: seat === mySeat(state) ? "1" : null },
  },
  h("span", { class: "clock-bar", "aria-hidden": "true" }, h("span", { class: "clock-fill" })),
  h("span", { class: "clock-text", "aria-hidden": "true" }));
  tick(el, true);
  startTicker();
  return el;
}

/**
 * Between two deals: the pause's clock in the summary, beside "Next deal" (when it runs out the next
 * deal is dealt for everyone who has not said ready). Null when no clock runs or it is not ours.
 */
export function pauseClock(state) {
  const clock = state.room?.clock;
  if (!clock || typeof clock.deadline !== "number" || state.view?.phase !== "end") return null;
  const total = Number(state.room.turn_seconds) || WARNING_SECONDS;
  const seat = mySeat(state);
  const waited = seat !== null && !state.room.seats?.[seat]?.ready; // the warning is for who is awaited
  const el = h("div", {
    class: "turn-clock pause-clock", role: "timer",
    dataset: { key: "pause-clock", deadline: clock.deadline, total, kind: "pause", mine: waited ? "1" : null },
  },
  h("span", { class: "clock-bar", "aria-hidden": "true" }, h("span", { class: "clock-fill" })),
  h("span", { class: "clock-text", "aria-hidden": "true" }));
  tick(el, true);
  startTicker();
  return el;
}

/** The words of a clock: a seat's turn, or the pause between two deals. */
const WORDS = {
  turn: { left: "clock.left", hurry: "clock.hurry", label: "clock.label", labelHurry: "clock.label.hurry", warn: "clock.warn.you" },
  pause: { left: "pause.left", hurry: "pause.hurry", label: "pause.label", labelHurry: "pause.label", warn: "pause.warn.you" },
};

/** Move one clock on: the bar, the seconds, the warning; its spoken name only every few seconds. */
function tick(el, fresh = false) {
  const left = secondsLeft(Number(el.dataset.deadline));
  const total = Number(el.dataset.total);
  const seconds = Math.ceil(left);
  const warning = left <= WARNING_SECONDS;
  const words = WORDS[el.dataset.kind] || WORDS.turn;
  el.querySelector(".clock-fill").style.transform = `scaleX(${Math.min(1, left / total).toFixed(3)})`;
  const text = t(warning ? words.hurry : words.left, { n: seconds });
  const shown = el.querySelector(".clock-text");
  if (shown.textContent !== text) shown.textContent = text;
  el.classList.toggle("warning", warning);
  // The accessible name changes every ten seconds, then at the warning and at its half: sparingly.
  const bucket = warning ? (left <= WARNING_SECONDS / 2 ? "end" : "warn") : String(Math.ceil(seconds / 10));
  if (fresh || el.dataset.spoken !== bucket) {
    el.dataset.spoken = bucket;
    el.setAttribute("aria-label", t(warning ? words.labelHurry : words.label, { name: el.dataset.name, n: seconds }));
  }
  if (warning && el.dataset.mine && left > 0 && warnedFor !== el.dataset.deadline) {
    warnedFor = el.dataset.deadline;
    playSound("clock");
    announce(t(words.warn, { n: seconds }));
  }
}

/** Tick every clock on the page while there is one; stop when none is left. */
function startTicker() {
  if (ticker !== null) return;
  ticker = setInterval(() => {
    const clocks = document.querySelectorAll(".turn-clock");
    if (!clocks.length) {
      clearInterval(ticker);
      ticker = null;
      return;
    }
    for (const el of clocks) tick(el);
  }, TICK_MS);
}
