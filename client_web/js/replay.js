// The replay viewer: any finished deal, from this session (`get_records`) or from a downloaded or
// pasted deal record, stepped card by card, forward and back, with every hand shown. The server turns
// the record into frames (`replay` request, docs/protocol.md); the page only draws them.

import { t } from "./i18n.js";
import { h, morph } from "./dom.js";
import { cardFace } from "./cards.js";
import { callLogText, cardName, parseAction, cardText } from "./calls.js";
import { positionFrom, contractTitle, signed } from "./common.js";
import { replayActions } from "./replay-actions.js";
import { replayChanged, replayDrafted } from "./store.js";

// The step last read out to screen readers (the viewer's own memory: each step is spoken once).
let spokenStep = null;

/** The records a text holds: one record, or a list of them (a downloaded session file). */
export function recordsIn(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(t("replay.badjson", { error: error.message }));
  }
  const list = Array.isArray(data) ? data : [data];
  if (!list.length || !list.every((item) => item && typeof item === "object" && !Array.isArray(item))) {
    throw new Error(t("replay.notrecord"));
  }
  return list;
}

function nameOf(replay, seat) {
  return replay.names?.[seat] || t("replay.seat", { n: seat + 1 });
}

/** The words for one step: "Bob plays Q♥", "Ann: Solo 6 ♥". */
function stepText(replay, step) {
  if (!step.action) return t("replay.start");
  const [seat, action] = step.action;
  const { verb, args } = parseAction(action);
  if (verb === "play") return t("replay.plays", { name: nameOf(replay, seat), card: cardText(args[0]) });
  if (verb === "discard") return t("replay.discards", { name: nameOf(replay, seat) });
  return t("replay.calls", { name: nameOf(replay, seat), call: callLogText(action) });
}

function spokenWords(replay, step) {
  if (!step.action) return t("replay.start");
  const [seat, action] = step.action;
  const { verb, args } = parseAction(action);
  if (verb === "play") return t("say.card", { name: nameOf(replay, seat), card: cardName(args[0]) });
  return stepText(replay, step);
}

/** Draw the viewer (or its picker) into `root`. */
export function renderReplay(state, root) {
  const replay = state.replay;
  const screen = h("section", { class: "replay-screen", "aria-labelledby": "replay-title", dataset: { key: "replay-screen" } });
  const head = h("div", { class: "panel-head replay-head" },
    h("h1", { id: "replay-title" }, t("replay.title")),
    h("button", { type: "button", class: "secondary", dataset: { key: "replay-close" }, onclick: () => replayActions.close() },
      state.roomId ? t("replay.back.table") : state.games ? t("games.back") : t("replay.back.lobby")));
  screen.append(head);
  if (!replay.steps) {
    screen.append(picker(state));
    morph(root, screen);
    return;
  }
  const index = Math.max(0, Math.min(replay.index, replay.steps.length - 1));
  const step = replay.steps[index];
  const ruleset = replay.record.ruleset;
  screen.append(h("p", { class: "replay-meta" }, t(`rules.${ruleset}`),
    step.contract ? ` · ${contractTitle(step.contract.name, step.trump)}` : ""));
  screen.append(replayBoard(replay, step));
  screen.append(controls(state, replay, index));
  screen.append(h("p", { class: "replay-step", id: "replay-step", dataset: { index } },
    h("strong", {}, t("replay.counter", { i: index, n: replay.steps.length - 1 })), " ", stepText(replay, step)));
  const live = document.getElementById("live");
  if (live && spokenStep !== step) {
    spokenStep = step;
    live.replaceChildren(h("p", {}, spokenWords(replay, step)));
  }
  if (index === replay.steps.length - 1 && replay.result) screen.append(resultBox(replay));
  screen.append(h("details", { class: "replay-calls" }, h("summary", {}, t("table.calls")),
    step.calls.length ? h("ol", { class: "calls-log", tabindex: "0", "aria-label": t("table.calls") }, step.calls.map(([seat, action]) =>
      h("li", {}, h("span", { class: "who" }, nameOf(replay, seat)), h("span", { class: "what" }, callLogText(action))))) : h("p", { class: "muted" }, t("table.calls.none"))));
  if (replay.list && replay.list.length > 1) screen.append(dealList(state, replay.list, replay.names));
  morph(root, screen);
}

function replayBoard(replay, step) {
  const base = replay.bottom ?? 0;
  const board = h("div", { class: "board replay-board", role: "group", "aria-label": t("replay.board") });
  for (let seat = 0; seat < 4; seat += 1) {
    const pos = positionFrom(base, seat);
    const toAct = step.to_act?.includes(seat);
    const declarer = step.contract?.declarers?.includes(seat);
    board.append(h("div", { class: `seat replay-seat pos-${pos} ${toAct ? "to-act still" : ""}`, role: "group", dataset: { seat, pos },
      "aria-label": `${nameOf(replay, seat)}, ${t("table.cards", { n: step.hands[seat].length })}` },
    h("div", { class: "seat-head" }, h("span", { class: "name" }, nameOf(replay, seat)),
      declarer ? h("span", { class: "badge declarer", title: t("legend.declarer") }, "★") : null),
    h("div", { class: "seat-stats" }, h("span", { class: "stat tricks", title: t("legend.tricks") }, t("table.tricks.short", { n: step.tricks_won[seat] }))),
    h("div", { class: "replay-hand" }, step.hands[seat].map((card) => cardFace(card, { size: "mini", attrs: { role: "img" } })))));
  }
  const middle = h("div", { class: "table-center" });
  if (step.trick && step.trick.cards.length) {
    const spot = h("div", { class: "trick", role: "group", "aria-label": t("table.trick") });
    for (const [seat, card] of step.trick.cards) {
      spot.append(h("div", { class: `trick-card pos-${positionFrom(base, seat)} ${step.trick.winner === seat ? "winner" : ""}`, dataset: { seat, card } },
        cardFace(card, { size: "trick", attrs: { role: "img", "aria-label": `${cardName(card)}, ${nameOf(replay, seat)}` } })));
    }
    middle.append(spot);
  }
  board.append(middle);
  return board;
}

function controls(state, replay, index) {
  const last = replay.steps.length - 1;
  const go = (next) => replayActions.step(Math.max(0, Math.min(last, next)));
  const nextTrick = (direction) => {
    let i = index + direction;
    while (i > 0 && i < last && !(replay.steps[i].trick?.winner !== null && replay.steps[i].trick?.winner !== undefined)) i += direction;
    go(i);
  };
  const button = (key, label, text, target, disabled) => h("button", {
    type: "button", class: "secondary replay-btn", dataset: { key: `replay-${key}` }, "aria-label": label, title: label, disabled,
    onclick: target,
  }, text);
  return h("div", { class: "replay-controls", role: "group", "aria-label": t("replay.controls") },
    button("first", t("replay.first"), "|◀", () => go(0), index === 0),
    button("prevtrick", t("replay.prevtrick"), "◀◀", () => nextTrick(-1), index === 0),
    button("back", t("replay.back"), "◀", () => go(index - 1), index === 0),
    button("forward", t("replay.forward"), "▶", () => go(index + 1), index === last),
    button("nexttrick", t("replay.nexttrick"), "▶▶", () => nextTrick(1), index === last),
    button("last", t("replay.last"), "▶|", () => go(last), index === last),
    h("input", {
      type: "range", min: 0, max: last, value: index, class: "replay-range", "aria-label": t("replay.position"),
      dataset: { key: "replay-range" }, oninput: (event) => go(Number(event.target.value)),
    }));
}

function resultBox(replay) {
  const result = replay.result;
  if (result.status === "thrown_in") return h("p", { class: "replay-result" }, t("end.thrown_in"));
  return h("div", { class: "replay-result" },
    h("p", {}, h("strong", {}, contractTitle(result.contract, result.trump)), " · ",
      (result.declarers || []).map((s) => nameOf(replay, s)).join(" & ")),
    h("table", { class: "score-table" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.player")), h("th", { scope: "col" }, t("end.tricks")), h("th", { scope: "col" }, t("end.points")))),
      h("tbody", {}, [0, 1, 2, 3].map((seat) => h("tr", {},
        h("th", { scope: "row" }, nameOf(replay, seat)),
        h("td", {}, String(result.tricks[seat])),
        h("td", { class: result.points[seat] > 0 ? "pos" : result.points[seat] < 0 ? "neg" : "" }, signed(result.points[seat])))))));
}

function dealSummary(record, index) {
  const calls = (record.actions || []).filter(([, a]) => !String(a).startsWith("play ") && !String(a).startsWith("discard "));
  const last = calls.filter(([, a]) => a !== "pass").pop();
  return `${t("table.deal", { n: index + 1 })} · ${t(`rules.${record.ruleset}`)}${last ? ` · ${callLogText(last[1])}` : ""}`;
}

function dealList(state, list, names) {
  return h("section", { class: "replay-list" }, h("h2", {}, t("replay.pick")),
    h("ul", {}, list.map((record, index) => h("li", {},
      h("button", { type: "button", class: "ghost replay-pick", dataset: { key: `replay-pick-${index}` },
        onclick: () => replayActions.show(record, { list, names }) }, dealSummary(record, index))))));
}

/** Paste a record, or open a downloaded file; a session's records are listed to pick from. */
function picker(state) {
  const replay = state.replay;
  const box = h("div", { class: "replay-picker card-panel" });
  if (replay.list?.length) box.append(dealList(state, replay.list, replay.names));
  // Drawn in place (`morph`): the handlers read the page through their event, never `area` or `file`.
  const area = h("textarea", {
    id: "replay-paste", rows: 6, class: "json", spellcheck: "false", dataset: { key: "replay-paste" },
    oninput: (event) => replayDrafted(event.currentTarget.value),
  }, replay.draft || "");
  const problem = h("p", { class: "json-error", role: "alert", id: "replay-error" }, replay.error || "");
  const load = (text) => {
    try {
      const list = recordsIn(text);
      if (list.length === 1) replayActions.show(list[0], {});
      else replayChanged({ list, error: "" });
    } catch (error) {
      replayChanged({ error: error.message });
    }
  };
  const file = h("input", {
    type: "file", id: "replay-file", accept: "application/json,.json", dataset: { key: "replay-file" },
    onchange: async (event) => {
      const chosen = event.currentTarget.files?.[0];
      if (chosen) load(await chosen.text());
    },
  });
  box.append(
    h("h2", {}, t("replay.open")),
    h("p", { class: "muted" }, t("replay.open.help")),
    h("label", { for: "replay-file", class: "file-label" }, t("replay.file")), file,
    h("label", { for: "replay-paste" }, t("replay.paste")), area,
    h("div", { class: "row buttons" }, h("button", { type: "button", class: "primary", id: "replay-show", dataset: { key: "replay-show" }, onclick: (event) => load(event.currentTarget.closest(".replay-picker").querySelector("#replay-paste").value) }, t("replay.show"))),
    problem);
  return box;
}
