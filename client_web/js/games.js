// "My games" (the player's finished sessions from the archive, their statistics and ratings; each deal
// one click from the replay viewer) and the lobby's all-time board. Everything shown of a player is
// text (names are user text: never HTML). The requests are in archive-actions.js.

import { t, lang, has } from "./i18n.js";
import { h, morph } from "./dom.js";
import { contractTitle, signed } from "./common.js";
import { archiveActions } from "./archive-actions.js";
import { boardChosen } from "./store.js";

/** A ruleset's name in the page's language (else its own name). */
function rulesetName(name) {
  return has(`rules.${name}`) ? t(`rules.${name}`) : name;
}

/** A bot level's name in the page's language (else the level). */
function botLevel(level) {
  return has(`bot.${level}`) ? t(`bot.${level}`) : level;
}

/** The words of an API refusal, or of a request that got no answer. */
export function apiErrorText(code) {
  return has(`games.error.${code}`) ? t(`games.error.${code}`) : t("games.error");
}

/** A Unix time as a date and time in the page's language. */
function when(seconds) {
  try {
    return new Date(seconds * 1000).toLocaleString(lang(), { dateStyle: "medium", timeStyle: "short" });
  } catch {
    return new Date(seconds * 1000).toISOString();
  }
}

/** A rating's numbers, rounded for reading. */
function rounded(value) {
  return Number(value).toFixed(1);
}

/** A seat as the history names it: the name, a bot with its level, an empty seat. */
function seatName(seat) {
  if (seat.kind === "bot") return `${seat.name || t("room.seat.botname")} (${botLevel(seat.bot)})`;
  if (seat.kind === "empty") return t("games.seat.empty");
  return seat.name || t("games.seat.anonymous");
}

/** Draw "My games" into `root`. */
export function renderGames(state, root) {
  const games = state.games;
  const screen = h("section", { class: "games-screen", "aria-labelledby": "games-title", dataset: { key: "games-screen" } },
    h("div", { class: "panel-head games-head" },
      h("h1", { id: "games-title" }, t("games.title")),
      h("button", { type: "button", class: "secondary", dataset: { key: "games-close", autofocus: "" }, onclick: () => archiveActions.closeGames() },
        t("replay.back.lobby"))));
  if (games.error) {
    screen.append(h("p", { class: "games-error", role: "alert" }, apiErrorText(games.error), " ",
      h("button", { type: "button", class: "ghost small", dataset: { key: "games-retry" }, onclick: () => archiveActions.openGames() }, t("games.retry"))));
  }
  if (games.status === "loading") screen.append(h("p", { class: "muted", role: "status" }, t("games.loading")));
  if (games.data) screen.append(...history(games.data));
  morph(root, screen);
}

function history(data) {
  const stats = data.statistics;
  const kinds = Object.entries(stats.contracts || {});
  const statistics = h("section", { class: "card-panel games-stats", "aria-labelledby": "games-stats-title" },
    h("h2", { id: "games-stats-title" }, t("games.stats")),
    h("dl", { class: "games-figures" },
      h("div", {}, h("dt", {}, t("games.stats.deals")), h("dd", { dataset: { stat: "deals" } }, String(stats.deals))),
      h("div", {}, h("dt", {}, t("games.stats.average")),
        h("dd", { dataset: { stat: "average" } }, stats.average_points === null ? "–" : Number(stats.average_points).toFixed(2)))),
    kinds.length ? h("table", { class: "score-table games-contracts" },
      h("caption", {}, t("games.stats.contracts")),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("games.contract")),
        h("th", { scope: "col" }, t("games.declared")),
        h("th", { scope: "col" }, t("games.made")))),
      h("tbody", {}, kinds.map(([kind, figures]) => h("tr", { dataset: { kind } },
        h("th", { scope: "row" }, contractTitle(kind)),
        h("td", {}, String(figures.declared)),
        h("td", {}, String(figures.made))))))
      : h("p", { class: "muted" }, t("games.stats.nocontracts")));
  const rated = Object.entries(data.ratings || {});
  const ratings = h("section", { class: "card-panel games-ratings", "aria-labelledby": "games-ratings-title" },
    h("h2", { id: "games-ratings-title" }, t("games.ratings")),
    rated.length ? h("table", { class: "score-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("games.ruleset")),
        h("th", { scope: "col" }, t("board.ordinal")),
        h("th", { scope: "col" }, h("abbr", { title: t("board.musigma.title") }, "μ / σ")),
        h("th", { scope: "col" }, t("board.games")))),
      h("tbody", {}, rated.map(([ruleset, rating]) => h("tr", { dataset: { ruleset } },
        h("th", { scope: "row" }, rulesetName(ruleset)),
        h("td", { class: "ordinal" }, rounded(rating.ordinal)),
        h("td", { class: "musigma" }, `${rounded(rating.mu)} / ${rounded(rating.sigma)}`),
        h("td", {}, String(rating.sessions))))))
      : h("p", { class: "muted" }, t("games.ratings.none")),
    h("p", { class: "muted small-print" }, t("board.help")));
  const sessions = h("section", { class: "card-panel games-sessions", "aria-labelledby": "games-sessions-title" },
    h("h2", { id: "games-sessions-title" }, t("games.sessions")),
    data.sessions.length ? h("ol", { class: "games-list" }, data.sessions.map(sessionItem))
      : h("p", { class: "muted" }, t("games.none")));
  return [sessions, h("div", { class: "games-side" }, statistics, ratings)];
}

function sessionItem(session) {
  const titleId = `game-${session.session_id}-${session.seat}`;
  // Keyed: redrawn in place, a session's item (and its list of deals, opened or not) stays its own.
  return h("li", { class: "game-item", dataset: { key: `item-${titleId}`, session: session.session_id } },
    h("h3", { id: titleId }, `${when(session.ended_at)} · ${rulesetName(session.ruleset)}`),
    h("p", { class: "game-result" },
      t("games.balance", { balance: signed(session.balance), rank: session.rank }),
      session.complete ? "" : ` · ${t("games.unfinished")}`),
    h("table", { class: "score-table game-seats", "aria-labelledby": titleId },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("end.player")), h("th", { scope: "col" }, t("end.balance")))),
      h("tbody", {}, session.seats.map((seat, index) => h("tr", { class: index === session.seat ? "me" : "" },
        h("th", { scope: "row" }, seatName(seat), index === session.seat ? ` ${t("games.you")}` : ""),
        h("td", { class: session.balances[index] > 0 ? "pos" : session.balances[index] < 0 ? "neg" : "" }, signed(session.balances[index])))))),
    h("details", { class: "game-deals" },
      h("summary", { dataset: { key: `deals-${session.session_id}-${session.seat}` } }, t("games.deals", { n: session.deals.length })),
      h("ul", { class: "deal-links" }, session.deals.map((deal) => h("li", {},
        h("button", {
          type: "button", class: "secondary small", dataset: { key: `replay-${session.session_id}-${deal.number}`, deal: deal.number },
          onclick: () => archiveActions.replayDeal(session.session_id, deal.number),
        }, dealText(deal)))))));
}

/** "Deal 3 · Solo 6 · made · +6" (a thrown-in deal says so). */
function dealText(deal) {
  const parts = [t("games.deal", { n: deal.number + 1 })];
  if (deal.status === "thrown_in" || !deal.contract) parts.push(t("games.thrown"));
  else {
    parts.push(contractTitle(deal.contract));
    if (deal.declarer) parts.push(deal.made ? t("games.made.yes") : t("games.made.no"));
  }
  parts.push(signed(deal.points));
  return `${parts.join(" · ")} — ${t("replay.title")}`;
}

// ------------------------------------------------------------------------------- the all-time board

/** The lobby's all-time board card (its table is filled by `refreshBoard`). */
export function boardCard(state, rulesets) {
  const chosen = state.boardRuleset && rulesets.includes(state.boardRuleset) ? state.boardRuleset : rulesets[0] || null;
  return h("section", { class: "card-panel alltime", id: "alltime", "aria-labelledby": "alltime-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "alltime-title" }, t("board.title")),
      h("button", { type: "button", class: "ghost small", dataset: { key: "board-refresh" },
        onclick: (event) => archiveActions.loadBoard(event.currentTarget.closest(".alltime").querySelector("select").value, { force: true }) },
      t("lobby.rooms.refresh"))),
    h("p", { class: "muted" }, t("board.help")),
    h("div", { class: "row" },
      h("label", { for: "board-ruleset" }, t("board.ruleset")),
      h("select", {
        id: "board-ruleset", dataset: { key: "board-ruleset" },
        onchange: (event) => {
          boardChosen(event.target.value);
          archiveActions.loadBoard(event.target.value);
        },
      }, rulesets.map((name) => h("option", { value: name, selected: name === chosen }, rulesetName(name))))),
    h("div", { class: "alltime-board" }));
}

/** The lobby's way to "My games". */
export function gamesCard() {
  return h("section", { class: "card-panel my-games", "aria-labelledby": "my-games-title" },
    h("h2", { id: "my-games-title" }, t("games.title")),
    h("p", { class: "muted" }, t("games.help")),
    h("button", { type: "button", class: "secondary", id: "games-open", dataset: { key: "games-open" }, onclick: () => archiveActions.openGames() },
      t("games.open")));
}

/** Fill the board of the ruleset chosen (fetched on first sight this visit). */
export function refreshBoard(state, card, rulesets) {
  if (!card) return;
  const ruleset = state.boardRuleset && rulesets.includes(state.boardRuleset) ? state.boardRuleset : rulesets[0] || null;
  const box = card.querySelector(".alltime-board");
  if (!ruleset) {
    morph(box, h("p", { class: "muted" }, t("conn.connecting")));
    return;
  }
  const board = state.boards[ruleset];
  if (!board) {
    queueMicrotask(() => archiveActions.loadBoard(ruleset));
    morph(box, h("p", { class: "muted" }, t("games.loading")));
    return;
  }
  box.dataset.ruleset = ruleset;
  box.dataset.status = board.status;
  if (board.status === "loading") morph(box, h("p", { class: "muted" }, t("games.loading")));
  else if (board.status === "failed") morph(box, h("p", { class: "muted" }, apiErrorText(board.error)));
  else if (!board.entries.length) morph(box, h("p", { class: "muted" }, t("board.empty")));
  else {
    morph(box, h("table", { class: "score-table board-table" },
      h("caption", { class: "visually-hidden" }, t("board.caption", { rules: rulesetName(ruleset) })),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, t("end.player")),
        h("th", { scope: "col" }, t("board.ordinal")),
        h("th", { scope: "col" }, h("abbr", { title: t("board.musigma.title") }, "μ / σ")),
        h("th", { scope: "col" }, t("board.games")))),
      h("tbody", {}, board.entries.map((line) => h("tr", { class: line.kind === "bot" ? "bot-line" : "", dataset: { kind: line.kind } },
        h("td", { class: "rank" }, String(line.rank)),
        h("th", { scope: "row" }, line.kind === "bot" ? t("board.bot", { level: botLevel(line.bot) }) : line.name || t("games.seat.anonymous")),
        h("td", { class: "ordinal" }, rounded(line.ordinal)),
        h("td", { class: "musigma" }, `${rounded(line.mu)} / ${rounded(line.sigma)}`),
        h("td", {}, String(line.sessions)))))));
  }
}
