// Short announcements and what screen readers hear: a toast in the table's announcements line (or
// under the top bar outside a table), and the polite live region.

import { h, replace } from "./dom.js";

const news = [];
let newsSeq = 0;

/**
 * Show a short announcement. At a table it goes to the announcements line between the felt and the
 * chips (it never covers a seat, the hand or the panel); elsewhere just under the top bar.
 */
export function toast(text, kind = "info") {
  const item = { id: (newsSeq += 1), text, kind, until: performance.now() + 4000 };
  news.push(item);
  while (news.length > 2) news.shift();
  drawNews();
  setTimeout(() => {
    const index = news.indexOf(item);
    if (index >= 0) news.splice(index, 1);
    drawNews();
  }, 4000);
  announce(text);
}

/** Draw the announcements in their line (the table redraws it: call again after a redraw). */
export function drawNews() {
  const slot = document.querySelector("#app .news");
  const floating = document.getElementById("toasts");
  const items = news.map((item) => h("div", { class: `toast ${item.kind}`, dataset: { id: item.id } }, item.text));
  if (slot) {
    replace(floating);
    replace(slot, items.slice(-1));
  } else {
    replace(floating, items);
  }
}

/** Say something to screen readers (plays, calls, announcements) through the polite live region. */
export function announce(text) {
  const live = document.getElementById("live");
  if (!live || !text) return;
  live.append(h("p", {}, text));
  while (live.children.length > 4) live.firstElementChild.remove();
}
