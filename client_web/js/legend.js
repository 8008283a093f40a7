// The legend of the table's badges and chips: each one explains itself in a tooltip (hover), a long
// press (touch), and in the legend list of the help dialog, drawn with the same badges.

import { t } from "./i18n.js";
import { h } from "./dom.js";

/** Every badge and chip the table uses, with a sample drawn as on the table. */
export function legendEntries() {
  return [
    ["dealer", h("span", { class: "badge dealer" }, t("table.dealer.short"))],
    ["declarer", h("span", { class: "badge declarer" }, "★")],
    ["bot", h("span", { class: "badge bot" }, t("room.seat.bot"))],
    ["away", h("span", { class: "badge away" }, t("room.seat.away"))],
    ["ready", h("span", { class: "badge ready" }, "✓")],
    ["toact", h("span", { class: "badge toact-sample" }, t("legend.toact.sample"))],
    ["tricks", h("span", { class: "stat" }, t("table.tricks.short", { n: 2 }))],
    ["count", h("span", { class: "stat count" }, h("span", { class: "mini-back", "aria-hidden": "true" }), "13")],
    ["balance", h("span", { class: "stat" }, t("table.points.short", { n: "+4" }))],
    ["contract", h("span", { class: "chip contract sample" }, t("legend.contract.sample"))],
    ["turnup", h("span", { class: "chip sample" }, t("table.turnup"))],
    ["double", h("span", { class: "chip double sample" }, `×2 ${t("table.double")}`)],
    ["hinted", h("span", { class: "badge hinted-sample" }, t("hint.button"))],
  ];
}

/** The legend as a definition list. */
export function legendList() {
  return h("dl", { class: "legend-list" }, legendEntries().map(([key, sample]) => [
    h("dt", {}, sample),
    h("dd", {}, t(`legend.${key}`)),
  ]));
}

let pressTimer = null;
let bubble = null;

function hideBubble() {
  bubble?.remove();
  bubble = null;
}

/** Show the explanation of a badge beside it (a long press on a touch screen, or Enter on a focused one). */
export function showExplanation(target) {
  hideBubble();
  const text = target.getAttribute("title") || t(`legend.${target.dataset.legend}`);
  const box = target.getBoundingClientRect();
  bubble = h("div", { class: "legend-bubble", role: "tooltip" }, text);
  document.body.append(bubble);
  const width = bubble.offsetWidth;
  const left = Math.max(6, Math.min(innerWidth - width - 6, box.left + box.width / 2 - width / 2));
  const below = box.bottom + 6 + bubble.offsetHeight < innerHeight;
  bubble.style.left = `${left}px`;
  bubble.style.top = `${below ? box.bottom + 6 : box.top - bubble.offsetHeight - 6}px`;
  setTimeout(hideBubble, 4000);
}

/** Long press (500 ms) on anything with `data-legend` shows its explanation. */
export function installLongPress() {
  document.addEventListener("pointerdown", (event) => {
    const target = event.target.closest?.("[data-legend]");
    hideBubble();
    clearTimeout(pressTimer);
    if (!target) return;
    pressTimer = setTimeout(() => showExplanation(target), 500);
  });
  for (const type of ["pointerup", "pointercancel", "pointerleave", "scroll"]) {
    document.addEventListener(type, () => clearTimeout(pressTimer), true);
  }
  document.addEventListener("contextmenu", (event) => {
    if (event.target.closest?.("[data-legend]")) event.preventDefault();
  });
}
