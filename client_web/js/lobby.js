// The lobby: the player's name, the open rooms, and the form that creates a room.
// The form is built once per visit and keeps its own values; later renders only refresh the room list.

import { t, lang, has, own, roomName } from "./i18n.js";
import { h, morph, replace } from "./dom.js";
import { howToPlay } from "./dialogs.js";
import { actions } from "./actions.js";
import { replayActions } from "./replay-actions.js";
import * as store from "./store.js";
import { boardCard, gamesCard, refreshBoard } from "./games.js";

/** The create-room form's values now (handlers read them when they run, not when the form was built). */
const form = () => store.state().ui.form;
/** The bot levels the page knows how to explain, weakest first; the server's `hello` says which it has. */
const BOT_LEVELS = ["random", "heuristic", "expert"];
/** The turn clocks the form offers, in seconds (0: none). */
const TURN_CLOCKS = [0, 30, 60, 90];

/** The form's turn clock: the one chosen, else the default for a listed (or unlisted) room. */
function chosenClock(values) {
  return values.turnSeconds ?? store.defaultTurnSeconds(values.listed);
}

/** Draw (or refresh) the lobby inside `root`. */
export function renderLobby(state, root) {
  let lobby = root.querySelector(":scope > .lobby");
  if (!lobby || lobby.dataset.lang !== lang() || lobby.dataset.rulesets !== lobbyKey(state)) {
    lobby = buildLobby(state);
    replace(root, lobby);
  }
  refreshRooms(state, lobby.querySelector(".rooms"));
  refreshLeaderboard(state, lobby.querySelector(".leaderboard"));
  refreshBoard(state, lobby.querySelector(".alltime"), state.server.rulesets);
}

/** What the form is built from: when it changes (the house rules arrive, say) the form is rebuilt. */
function lobbyKey(state) {
  return `${state.server.rulesets.join(",")}|${Object.keys(state.server.rulesetInfo || {}).join(",")}|${state.server.bots.join(",")}`;
}

/** A ruleset's name in the page's language, else the title the server gives it (a ruleset new to the page). */
function rulesetTitle(state, name) {
  return has(`rules.${name}`) ? t(`rules.${name}`) : state.server.rulesetInfo?.[name]?.title || name;
}

/** The default ruleset of a new game: whist à la couleur when the server has it. */
function defaultRuleset(rulesets) {
  return rulesets.includes("couleur") ? "couleur" : rulesets[0] || null;
}

function buildLobby(state) {
  const rulesets = state.server.rulesets.length ? state.server.rulesets : [];
  if (!form().ruleset || !rulesets.includes(form().ruleset)) store.formChanged({ ruleset: defaultRuleset(rulesets) });
  if (!state.ui.quickRuleset || !rulesets.includes(state.ui.quickRuleset)) store.quickRulesetChosen(defaultRuleset(rulesets));
  const levels = [...BOT_LEVELS.filter((name) => state.server.bots.includes(name)),
    ...state.server.bots.filter((name) => !BOT_LEVELS.includes(name))];
  if (!form().bot || !levels.includes(form().bot)) store.formChanged({ bot: levels.includes("heuristic") ? "heuristic" : levels[0] || null });
  const chosen = form();

  const nameInput = h("input", {
    id: "player-name", type: "text", maxlength: 32, autocomplete: "nickname", value: state.ui.nameDraft ?? state.name,
    placeholder: t("lobby.name.placeholder"), dataset: { key: "name" },
    oninput: (event) => store.nameDrafted(event.target.value),
  });
  const nameForm = h("form", {
    class: "name-form", onsubmit: (event) => { event.preventDefault(); actions.saveName(nameInput.value); },
  },
  h("label", { for: "player-name" }, t("lobby.name")),
  h("div", { class: "row" }, nameInput,
    h("button", { type: "submit", class: "secondary", dataset: { key: "name-save" } }, t("lobby.name.save"))));
  // Saving the name also happens when the player leaves the field, so that nothing typed is lost.
  nameInput.addEventListener("change", () => { store.nameDrafted(null); actions.saveName(nameInput.value); });

  const rooms = h("div", { class: "rooms" });
  const roomsCard = h("section", { class: "card-panel", "aria-labelledby": "rooms-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "rooms-title" }, t("lobby.rooms")),
      h("button", { type: "button", class: "ghost small", onclick: () => actions.refreshRooms(), dataset: { key: "refresh" } },
        t("lobby.rooms.refresh"))),
    rooms);

  const houseRulesBox = h("div", { class: "house-rules" });
  const rulesetChoices = h("div", { class: "ruleset-choices", role: "radiogroup", "aria-label": t("lobby.create.ruleset") },
    rulesets.map((name) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "ruleset", value: name, checked: chosen.ruleset === name, dataset: { key: `ruleset-${name}` },
        onchange: () => { store.formChanged({ ruleset: name, houseRules: {} }); fillHouseRules(state, houseRulesBox); },
      }),
      h("span", { class: "choice-text" },
        h("strong", {}, rulesetTitle(state, name)),
        has(`rules.desc.${name}`) ? h("small", {}, t(`rules.desc.${name}`)) : null))));
  fillHouseRules(state, houseRulesBox);

  const lengthChoice = (value, label, extra) => h("label", { class: "choice inline" },
    h("input", {
      type: "radio", name: "length", value, checked: chosen.length === value, dataset: { key: `length-${value}` },
      onchange: () => store.formChanged({ length: value }),
    }),
    h("span", {}, label), extra);
  const dealsInput = h("input", {
    type: "number", min: 1, max: 1000, value: chosen.deals, class: "num", "aria-label": t("lobby.create.deals"),
    dataset: { key: "deals" }, oninput: (e) => { store.formChanged({ deals: Number(e.target.value), length: "deals" }); syncLength(); },
  });
  const targetInput = h("input", {
    type: "number", min: 1, max: 100000, value: chosen.target, class: "num", "aria-label": t("lobby.create.points"),
    dataset: { key: "target" }, oninput: (e) => { store.formChanged({ target: Number(e.target.value), length: "target" }); syncLength(); },
  });
  const lengthBox = h("fieldset", { class: "length" },
    h("legend", {}, t("lobby.create.length")),
    lengthChoice("deals", t("lobby.create.length.deals"), h("span", { class: "num-wrap" }, dealsInput, " ", t("lobby.create.deals"))),
    lengthChoice("target", t("lobby.create.length.target"), h("span", { class: "num-wrap" }, "+", targetInput, " ", t("lobby.create.points"))),
    lengthChoice("open", t("lobby.create.length.open")));
  function syncLength() {
    for (const radio of lengthBox.querySelectorAll("input[type=radio]")) radio.checked = radio.value === form().length;
  }

  const botsBox = h("label", { class: "choice check" },
    h("input", { type: "checkbox", checked: chosen.bots, dataset: { key: "bots" }, onchange: (e) => store.formChanged({ bots: e.target.checked }) }),
    h("span", { class: "choice-text" }, h("strong", {}, t("lobby.create.bots")), h("small", {}, t("lobby.create.bots.help"))));

  const botChoices = levels.length > 1 ? h("fieldset", { class: "bot-levels" },
    h("legend", {}, t("lobby.create.botlevel")),
    h("div", { class: "ruleset-choices", role: "radiogroup", "aria-label": t("lobby.create.botlevel") },
      levels.map((name) => h("label", { class: "choice" },
        h("input", { type: "radio", name: "bot-level", value: name, checked: chosen.bot === name, dataset: { key: `bot-${name}` }, onchange: () => store.formChanged({ bot: name }) }),
        h("span", { class: "choice-text" }, h("strong", {}, has(`bot.${name}`) ? t(`bot.${name}`) : name),
          has(`bot.${name}.desc`) ? h("small", {}, t(`bot.${name}.desc`)) : null))))) : null;

  // The turn clock of the room: how long a human has for each card or call (docs/protocol.md).
  const clockChoice = h("div", { class: "house-rule clock-choice" },
    h("label", { for: "turn-seconds" }, h("strong", {}, t("lobby.create.clock"))),
    h("select", {
      id: "turn-seconds", dataset: { key: "turn-seconds" },
      onchange: (event) => store.formChanged({ turnSeconds: Number(event.target.value) }),
    }, TURN_CLOCKS.map((seconds) => h("option", { value: seconds, selected: seconds === chosenClock(chosen) },
      seconds ? t("lobby.create.clock.seconds", { n: seconds }) : t("lobby.create.clock.off")))),
    h("small", { class: "help" }, t("lobby.create.clock.help")));

  const submit = (sit, bots = null) => (event) => {
    event.preventDefault();
    if (nameInput.value.trim() && nameInput.value.trim() !== store.state().name) actions.saveName(nameInput.value);
    const now = form();
    const session = now.length === "deals" ? { deals: now.deals || 1 } : now.length === "target" ? { target: now.target || 1 } : {};
    actions.createRoom({ ruleset: now.ruleset, houseRules: { ...now.houseRules }, session, bots: bots ?? now.bots, sit, bot: now.bot,
      turnSeconds: chosenClock(now) });
  };
  // The shortest way to a game, with its own choice of rules right beside it (the create-room form is
  // below the fold on a phone): that ruleset with its default house rules, 8 deals, three bots.
  const quickSelect = h("select", {
    id: "quick-ruleset", dataset: { key: "quick-ruleset" }, "aria-label": t("lobby.quick.rules"),
    onchange: (event) => store.quickRulesetChosen(event.target.value),
  }, rulesets.map((name) => h("option", { value: name, selected: store.state().ui.quickRuleset === name }, rulesetTitle(state, name))));
  const quick = (event) => {
    event.preventDefault();
    if (nameInput.value.trim() && nameInput.value.trim() !== store.state().name) actions.saveName(nameInput.value);
    actions.createRoom({ ruleset: store.state().ui.quickRuleset, houseRules: {}, session: { deals: store.DEFAULT_FORM.deals }, bots: true, sit: true, bot: form().bot });
  };
  nameForm.append(h("div", { class: "quick" },
    h("label", { for: "quick-ruleset", class: "quick-label" }, t("lobby.quick.rules")),
    h("div", { class: "row" }, quickSelect,
      h("button", { type: "button", class: "primary", id: "quick-play", dataset: { key: "quick-play" }, onclick: quick }, t("lobby.quick"))),
    h("small", { class: "muted" }, t("lobby.quick.help"))));
  const createForm = h("form", { class: "card-panel create", "aria-labelledby": "create-title", onsubmit: submit(true) },
    h("h2", { id: "create-title" }, t("lobby.create")),
    h("fieldset", {}, h("legend", {}, t("lobby.create.ruleset")), rulesetChoices),
    h("fieldset", {}, h("legend", {}, t("lobby.create.houserules")), houseRulesBox),
    lengthBox,
    botsBox,
    botChoices,
    clockChoice,
    h("div", { class: "row buttons" },
      h("button", { type: "submit", class: "primary", id: "create-room", dataset: { key: "create" } }, t("lobby.create.submit")),
      h("button", { type: "button", class: "secondary", id: "create-watch", dataset: { key: "create-watch" }, onclick: submit(false) },
        t("lobby.create.watch"))));

  const lobby = h("div", { class: "lobby", dataset: { lang: lang(), rulesets: lobbyKey(state) } },
    h("div", { class: "lobby-side" }, h("section", { class: "card-panel intro" }, nameForm), dailyCard(state, nameInput),
      boardCard(state, rulesets), gamesCard(), roomsCard,
      replayCard(state),
      howCard(state, rulesets)),
    createForm);
  return lobby;
}

/** How to play: the lobby's steps, and a short guide to each ruleset's play. */
function howCard(state, rulesets) {
  return h("section", { class: "card-panel how", "aria-labelledby": "how-title" }, h("h2", { id: "how-title" }, t("lobby.how")),
    h("ul", {}, ["lobby.how.1", "lobby.how.2", "lobby.how.3"].map((key) => h("li", {}, t(key)))),
    rulesets.map((name) => h("details", { class: "howto", dataset: { ruleset: name } },
      h("summary", { dataset: { key: `howto-${name}` } }, t("help.howto", { rules: t(`rules.${name}`) })),
      howToPlay(name))));
}

/** The replay viewer: open a downloaded deal record, or paste one. */
function replayCard(state) {
  return h("section", { class: "card-panel replay-card", "aria-labelledby": "replay-card-title" },
    h("h2", { id: "replay-card-title" }, t("replay.title")),
    h("p", { class: "muted" }, t("replay.lobby.help")),
    h("button", { type: "button", class: "secondary", id: "replay-open", dataset: { key: "replay-open" }, onclick: () => replayActions.openPicker() }, t("replay.open")));
}

/** House rules of the chosen ruleset, as the server describes them (`hello` → `ruleset_info`). */
function houseRulesOf(state, ruleset) {
  return state.server.rulesetInfo?.[ruleset]?.house_rules || [];
}

/** A house rule's title: from the translation table, else its name made readable. */
function ruleTitle(name) {
  if (has(`hr.${name}`)) return t(`hr.${name}`);
  const text = String(name).replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A house rule's explanation: the page's translation when it has one, else the server's (English) text. */
function ruleHelp(rule) {
  return own(`hr.${rule.name}.desc`) ?? rule.description;
}

/** A choice of a house rule, e.g. "traditional (1/1/2/3/3/4/6)". */
function choiceText(rule, choice) {
  const key = `hr.${rule.name}.${choice}`;
  return has(key) ? t(key) : String(choice);
}

function fillHouseRules(state, box) {
  const rules = houseRulesOf(state, form().ruleset);
  if (!rules.length) {
    replace(box, h("p", { class: "muted" }, t("lobby.create.houserules.none")));
    return;
  }
  replace(box, rules.map((rule) => {
    const id = `hr-${rule.name}`;
    const chosen = form().houseRules;
    const value = rule.name in chosen ? chosen[rule.name] : rule.default;
    const set = (next) => {
      const { [rule.name]: _previous, ...others } = form().houseRules;
      const isDefault = JSON.stringify(next) === JSON.stringify(rule.default);
      store.formChanged({ houseRules: isDefault ? others : { ...others, [rule.name]: next } });
    };
    let control;
    if (rule.choices && rule.choices.length) {
      control = h("select", { id, dataset: { key: id }, onchange: (e) => set(rule.choices[Number(e.target.value)]) },
        rule.choices.map((choice, index) => h("option", { value: index, selected: choice === value }, choiceText(rule, choice))));
    } else if (typeof rule.default === "boolean") {
      control = h("input", { id, type: "checkbox", checked: Boolean(value), dataset: { key: id }, onchange: (e) => set(e.target.checked) });
    } else if (rule.default !== null && typeof rule.default === "object") {
      // A whole table (e.g. the club's points table): edited as JSON, sent only when it parses.
      const area = h("textarea", { id, rows: 8, spellcheck: "false", class: "json", dataset: { key: id } },
        JSON.stringify(value, null, 1));
      const problem = h("small", { class: "json-error", role: "alert" });
      area.addEventListener("input", () => {
        try {
          set(JSON.parse(area.value));
          problem.textContent = "";
          area.removeAttribute("aria-invalid");
        } catch (error) {
          problem.textContent = t("lobby.create.badjson", { error: error.message });
          area.setAttribute("aria-invalid", "true");
        }
      });
      control = h("details", { class: "json-rule" }, h("summary", {}, t("lobby.create.edit")), area, problem);
    } else if (typeof rule.default === "number") {
      control = h("input", { id, type: "number", class: "num", value, dataset: { key: id }, oninput: (e) => set(Number(e.target.value)) });
    } else {
      control = h("input", { id, type: "text", value: value ?? "", dataset: { key: id }, oninput: (e) => set(e.target.value) });
    }
    const isCheck = typeof rule.default === "boolean" && !(rule.choices && rule.choices.length);
    return h("div", { class: `house-rule ${isCheck ? "check" : ""}` },
      isCheck ? control : null,
      h("label", { for: id }, h("strong", {}, ruleTitle(rule.name))),
      isCheck ? null : control,
      ruleHelp(rule) ? h("small", { class: "help", dataset: { rule: rule.name } }, ruleHelp(rule)) : null);
  }));
}

/** The daily challenge: today's deals, the same for everyone, and the day's leaderboard. */
function dailyCard(state, nameInput) {
  const start = () => {
    if (nameInput.value.trim() && nameInput.value.trim() !== store.state().name) actions.saveName(nameInput.value);
    actions.startDaily();
  };
  return h("section", { class: "card-panel daily", id: "daily", "aria-labelledby": "daily-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "daily-title" }, t("daily.title")),
      h("button", { type: "button", class: "ghost small", dataset: { key: "leaderboard-refresh" }, onclick: () => actions.refreshLeaderboard() },
        t("lobby.rooms.refresh"))),
    h("p", { class: "daily-help" }, t("daily.help")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "daily-start", dataset: { key: "daily-start" }, onclick: start }, t("daily.start"))),
    h("h3", { id: "leaderboard-title" }, t("daily.leaderboard")),
    h("div", { class: "leaderboard", "aria-labelledby": "leaderboard-title" }));
}

/** Today's ranking: rank, name, score, deals; the player's own games stand out. */
function refreshLeaderboard(state, box) {
  if (!box) return;
  const board = state.leaderboard;
  if (!board) {
    morph(box, h("p", { class: "muted" }, state.leaderboardMissing ? t("daily.unavailable") : t("conn.connecting")));
    return;
  }
  const title = box.parentElement?.querySelector("#leaderboard-title");
  if (title) title.textContent = t("daily.leaderboard.day", { day: board.day });
  if (!board.entries.length) {
    morph(box, h("p", { class: "muted" }, t("daily.leaderboard.empty")));
    return;
  }
  morph(box, h("table", { class: "score-table leaderboard-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "#"),
      h("th", { scope: "col" }, t("end.player")),
      h("th", { scope: "col" }, t("daily.score")),
      h("th", { scope: "col" }, t("daily.deals")))),
    h("tbody", {}, board.entries.map((entry) => h("tr", { class: entry.mine || entry.name === state.name ? "me" : "" },
      h("td", { class: "rank" }, String(entry.rank)),
      h("th", { scope: "row" }, entry.name),
      h("td", {}, String(entry.score)),
      h("td", {}, String(entry.deals))))),
    board.total > board.entries.length ? h("caption", { class: "muted" }, t("daily.leaderboard.more", { n: board.total })) : null));
}

function refreshRooms(state, box) {
  if (!box) return;
  if (!state.rooms.length) {
    morph(box, h("p", { class: "muted" }, state.roomsLoaded ? t("lobby.rooms.none") : t("conn.connecting")));
    return;
  }
  morph(box, h("ul", { class: "room-list" }, state.rooms.map((room) => {
    const taken = 4 - room.free_seats;
    return h("li", { class: "room-item", dataset: { key: `room-${room.room_id}`, room: room.room_id } },
      h("div", { class: "room-main" },
        h("strong", { class: "room-name" }, roomName(room)),
        h("span", { class: "room-meta" },
          h("span", {}, t(`rules.${room.ruleset}`)),
          h("span", {}, `${t("lobby.room.seats")} ${taken}/4`),
          h("span", {}, `${t("lobby.room.spectators")} ${room.spectators}`),
          room.session?.deals ? h("span", {}, `${room.session.deals} ${t("lobby.create.deals")}`) : null)),
      h("div", { class: "room-actions" },
        h("button", {
          type: "button", class: "primary small", dataset: { key: `open-${room.room_id}` },
          onclick: () => actions.joinFromLobby(room.room_id),
        }, room.free_seats === 0 && !actions.holdsSeat(room.room_id) ? t("lobby.room.full") : t("lobby.room.join")),
        h("button", {
          type: "button", class: "secondary small", dataset: { key: `watch-${room.room_id}` },
          onclick: () => actions.watch(room.room_id),
        }, t("lobby.room.watch"))));
  })));
}
