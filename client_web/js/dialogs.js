// The dialogs over the table: the end-of-deal summary, the final balances, the last trick, the help
// (how to play this ruleset, and the legend of the badges), and the rare calls' sheet.

import { t, has } from "./i18n.js";
import { h, morph } from "./dom.js";
import { cardFace } from "./cards.js";
import { SUIT_SYMBOL, RED_SUITS, rankText } from "./calls.js";
import { mySeat, seatName, contractTitle, signed, dailyScore, SUIT_ORDER } from "./common.js";
import { legendList } from "./legend.js";
import { dealResultsSection, practiceNote } from "./daily.js";
import { backNotice, rareSheet } from "./panel.js";
import { actions, conn } from "./actions.js";
import { replayActions } from "./replay-actions.js";
import { dialogClosed, redrawn, summaryHidden, summaryToggled } from "./store.js";
import { pauseClock } from "./clock.js";

/** Draw the open dialogs; while one is open the table behind it is inert (Tab stays in the dialog). */
export function renderModals(state, modalRoot) {
  const view = state.view;
  const room = state.room;
  const dialogs = [];
  const over = room.status === "over" || room.session_over;
  if (view && view.phase === "end" && !summaryHidden(state)) dialogs.push(summaryDialog(state, over));
  else if (over && !(view && view.phase === "end")) dialogs.push(finalDialog(state));
  if (state.ui.lastTrickOpen && view?.tricks?.length) dialogs.push(lastTrickDialog(state));
  else dialogClosed("lastTrick", { quiet: true });
  const sheet = rareSheet(state);
  if (sheet) dialogs.push(sheet);
  if (state.ui.helpOpen) dialogs.push(helpDialog(state, room.ruleset, () => dialogClosed("help")));
  morph(modalRoot, dialogs);
  document.body.classList.toggle("modal-open", dialogs.length > 0);
  document.getElementById("app").inert = dialogs.length > 0;
}

export function modal(id, titleText, body, { onClose = null } = {}) {
  return h("div", { class: "modal", role: "dialog", "aria-modal": "true", "aria-labelledby": `${id}-title`, id },
    h("div", { class: "modal-box" },
      h("div", { class: "modal-head" },
        h("h2", { id: `${id}-title` }, titleText),
        onClose ? h("button", { type: "button", class: "ghost small close", "aria-label": t("table.close"), dataset: { key: `${id}-close` }, onclick: onClose }, "✕") : null),
      body));
}

/** How to play a ruleset: a few sentences in the page's language. */
export function howToPlay(ruleset) {
  const items = [];
  for (let i = 1; has(`howto.${ruleset}.${i}`); i += 1) items.push(h("li", {}, t(`howto.${ruleset}.${i}`)));
  if (!items.length) return h("p", { class: "muted" }, t("howto.none"));
  return h("ul", { class: "howto-list", dataset: { ruleset } }, items);
}

/** The help: how to play the table's ruleset, and what every badge means. */
export function helpDialog(state, ruleset, onClose) {
  return modal("help", t("help.title"), h("div", { class: "help-body" },
    h("h3", {}, t("help.howto", { rules: t(`rules.${ruleset}`) })),
    howToPlay(ruleset),
    h("h3", {}, t("help.legend")),
    h("p", { class: "muted" }, t("help.legend.how")),
    legendList(),
    h("div", { class: "row buttons" }, h("button", { type: "button", class: "primary", dataset: { key: "help-ok", autofocus: "" }, onclick: onClose }, t("table.close")))),
  { onClose });
}

function lastTrickDialog(state) {
  const view = state.view;
  const last = view.tricks[view.tricks.length - 1];
  const close = () => {
    dialogClosed("lastTrick");
    requestAnimationFrame(() => document.querySelector("[data-key=last-trick]")?.focus());
  };
  return modal("last-trick", t("table.lasttrick"), h("div", {},
    h("ul", { class: "last-trick" }, last.cards.map(([seat, card]) => h("li", { class: seat === last.winner ? "winner" : "" },
      cardFace(card, { size: "trick" }), h("span", {}, seatName(state, seat))))),
    h("p", {}, t("table.lasttrick.won", { name: seatName(state, last.winner) })),
    h("div", { class: "row buttons" }, h("button", { type: "button", class: "primary", dataset: { key: "last-trick-ok", autofocus: "" }, onclick: close }, t("table.close")))),
  { onClose: close });
}

export function handText(cards) {
  const bySuit = {};
  for (const card of cards) (bySuit[card[1]] ||= []).push(card[0]);
  return h("span", { class: "hand-text" }, SUIT_ORDER.filter((s) => bySuit[s]).map((suit) =>
    h("span", { class: `suit-run ${RED_SUITS.has(suit) ? "red" : ""} suit-${suit}` }, `${SUIT_SYMBOL[suit]} ${bySuit[suit].map(rankText).join(" ")}`)));
}

function resultLine(state, result) {
  if (result.status === "thrown_in") return t("end.thrown_in");
  const title = contractTitle(result.contract, result.trump);
  const declarers = result.declarers || [];
  const team = state.view?.contract?.team;
  if (team || declarers.length <= 1) {
    const tricks = declarers.reduce((sum, s) => sum + (result.tricks[s] || 0), 0);
    const made = declarers.length ? result.points[declarers[0]] > 0 : false;
    const names = declarers.map((s) => seatName(state, s)).join(" & ");
    return `${names} — ${t(tricks === 1 ? "end.result.one" : "end.result", { contract: title, outcome: t(made ? "end.made" : "end.failed"), tricks })}`;
  }
  return declarers.map((s) => `${seatName(state, s)}: ${t(result.tricks[s] === 1 ? "end.result.one" : "end.result", { contract: title, outcome: t(result.points[s] > 0 ? "end.made" : "end.failed"), tricks: result.tricks[s] })}`).join(" · ");
}

function balancesTable(state, result) {
  const room = state.room;
  return h("table", { class: "score-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("end.player")),
      result ? h("th", { scope: "col" }, t("end.tricks")) : null,
      result ? h("th", { scope: "col" }, t("end.points")) : null,
      h("th", { scope: "col" }, t("end.balance")))),
    h("tbody", {}, [0, 1, 2, 3].map((seat) => h("tr", { class: `${seat === mySeat(state) ? "me" : ""} ${result?.declarers?.includes(seat) ? "declarer" : ""}` },
      h("th", { scope: "row" }, seatName(state, seat), result?.declarers?.includes(seat) ? h("span", { title: t("legend.declarer") }, " ★") : ""),
      result ? h("td", {}, String(result.tricks[seat])) : null,
      result ? h("td", { class: result.points[seat] > 0 ? "pos" : result.points[seat] < 0 ? "neg" : "" }, signed(result.points[seat])) : null,
      h("td", { class: room.balances[seat] > 0 ? "pos" : room.balances[seat] < 0 ? "neg" : "" }, signed(room.balances[seat]))))));
}

/** The daily score line of a summary, with whether the game is on the leaderboard yet. */
function dailyNote(room) {
  if (!room.daily) return null;
  const played = room.played_deals ?? 0;
  return h("p", { class: "daily-note" }, h("strong", {}, t("daily.score.line", { score: dailyScore(room), n: played })), " ",
    t(played >= 2 ? "daily.score.onboard" : "daily.score.soon"));
}

function replayButton(state, which) {
  return h("button", { type: "button", class: "secondary", dataset: { key: "replay-deal" }, onclick: () => replayActions.openSession(which) }, t("replay.this"));
}

function summaryDialog(state, over) {
  const view = state.view;
  const room = state.room;
  const result = view.result;
  const body = h("div", { class: "summary" });
  body.append(h("p", { class: `result-line ${result.status}` }, resultLine(state, result)));
  if (view.multiplier > 1) body.append(h("p", { class: "muted" }, `×${view.multiplier} ${t("table.double")}`));
  body.append(balancesTable(state, result));
  const daily = dailyNote(room);
  if (daily) body.append(daily);
  // The daily challenge: the practice mark, and "how others played this deal" (js/daily.js).
  const practice = practiceNote(room);
  if (practice) body.append(practice);
  const others = dealResultsSection(room, { request: (type, fields) => conn.request(type, fields), redraw: redrawn, contractTitle });
  if (others) body.append(others);
  const buttons = h("div", { class: "row buttons" });
  if (over) {
    body.prepend(h("p", { class: "final-note" }, t("ann.session_over")));
    const again = playAgainBlock(state);
    if (again) body.append(again);
    buttons.append(
      h("button", { type: "button", class: again ? "secondary" : "primary", id: "download-records", dataset: { key: "download", autofocus: again ? null : "" }, onclick: () => replayActions.downloadRecords() }, t("final.download")),
      h("button", { type: "button", class: "secondary", dataset: { key: "final-lobby" }, onclick: () => actions.leave() }, t("final.lobby")));
  } else if (mySeat(state) !== null && view.hand) {
    if (actions.takenOver()) body.append(backNotice());
    const ready = state.ui.readySent === room.deal_number || room.seats[mySeat(state)]?.ready;
    const pause = pauseClock(state);
    if (pause) body.append(pause);
    buttons.append(h("button", { type: "button", class: "primary", id: "next-deal", disabled: ready, dataset: { key: "next-deal", autofocus: ready ? null : "" }, onclick: () => actions.ready() }, t("end.next")));
    // Everyone may stop: the host ends the session for the table; another player ends their own
    // game (they leave, a bot takes the seat), and the button says so.
    buttons.append(h("button", {
      type: "button", class: "secondary", id: "end-game", dataset: { key: "end-game" },
      title: state.you?.host ? null : t("end.stop.leave"), onclick: () => actions.endGame(),
    }, t("end.stop")));
    const waiting = room.seats.filter((s) => s.kind === "human" && s.connected && !s.ready && s.seat !== mySeat(state)).map((s) => s.name);
    if (ready) body.append(h("p", { class: "muted waiting" }, waiting.length ? t("end.waiting", { names: waiting.join(", ") }) : t("end.ready")));
    body.append(h("p", { class: "muted choice-help" }, state.you?.host ? t("end.choice.host") : t("end.choice.guest")));
  }
  if (result.status !== "thrown_in") buttons.append(replayButton(state, "last"));
  buttons.append(h("button", { type: "button", class: "ghost", dataset: { key: "hide-summary" }, onclick: () => summaryToggled(true) }, t("end.review")));
  body.append(buttons);
  // The choice comes first (it fits a phone's screen); the hands as dealt follow, for reference.
  if (view.dealt) {
    body.append(h("h3", {}, t("end.hands")));
    body.append(h("ul", { class: "dealt" }, view.dealt.map((cards, seat) => h("li", {},
      h("span", { class: "who" }, seatName(state, seat)), handText(cards),
      view.discards?.[String(seat)] ? h("small", { class: "muted" }, ` (${t("end.discard")}: ${rankText(view.discards[String(seat)][0])}${SUIT_SYMBOL[view.discards[String(seat)][1]]})`) : null))));
  }
  const fair = fairnessNote(state);
  if (fair) body.append(fair);
  return modal("summary", over ? t("final.title") : t("end.title"), body);
}

/**
 * Whether the deal verified: the seed matches the commitment shown when the deal started, and it deals
 * exactly the hands above (fair.js); with a link to how anyone can check it by hand.
 */
function fairnessNote(state) {
  const room = state.room;
  const check = state.fair.checks[`${room.room_id}:${room.deal_number}`];
  if (!check) return null;
  const verdict = check.state !== "done" ? check.state : check.verified ? "verified" : "not-verified";
  let text;
  if (verdict === "verified") text = t(check.late ? "fair.verified.late" : "fair.verified");
  else if (verdict === "not-verified") text = `${t("fair.failed")} ${t(`fair.failed.${check.failed}`)}`;
  else text = t(`fair.${verdict}`);
  const how = new URLSearchParams({ seed: check.seed ?? state.view.seed ?? "", commitment: check.commitment ?? "" });
  return h("p", { class: `fairness ${verdict}`, role: "status", dataset: { fair: verdict } },
    h("span", { class: "fair-mark", "aria-hidden": "true" }, verdict === "verified" ? "✓ " : verdict === "not-verified" ? "✗ " : ""),
    h("span", { class: "fair-text" }, text), " ",
    h("a", { href: `fair.html#${how}`, target: "_blank", rel: "noopener", dataset: { key: "fair-how" } }, t("fair.how")));
}

/**
 * "Play again" at the end of the session: a new session at this table, once every seated human has
 * said yes (docs/protocol.md, `play_again`); who is still awaited. Not for spectators nor a daily room.
 */
function playAgainBlock(state) {
  const room = state.room;
  const seat = mySeat(state);
  if (seat === null || room.daily || room.seats[seat]?.kind !== "human") return null;
  const { asked, waitingFor } = state.playAgain;
  const names = (waitingFor || []).map((s) => (s === seat ? t("room.seat.you") : seatName(state, s)));
  return h("div", { class: "play-again" },
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "play-again", disabled: asked, dataset: { key: "play-again", autofocus: asked ? null : "" },
        onclick: () => actions.playAgain() }, t("again.button")),
      h("small", { class: "muted" }, t("again.help"))),
    names.length ? h("p", { class: "again-waiting", role: "status" }, t("again.waiting", { names: names.join(", ") }))
      : asked ? h("p", { class: "again-waiting", role: "status" }, t("again.asked")) : null);
}

function finalDialog(state) {
  const again = playAgainBlock(state);
  const body = h("div", { class: "summary" },
    balancesTable(state, null),
    dailyNote(state.room),
    again,
    h("div", { class: "row buttons" },
      h("button", { type: "button", class: again ? "secondary" : "primary", id: "download-records", dataset: { key: "download", autofocus: again ? null : "" }, onclick: () => replayActions.downloadRecords() }, t("final.download")),
      state.room.played_deals ? replayButton(state, "pick") : null,
      h("button", { type: "button", class: "secondary", dataset: { key: "final-lobby" }, onclick: () => actions.leave() }, t("final.lobby"))));
  return modal("final", t("final.title"), body);
}
