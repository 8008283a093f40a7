// The lobby: the player's name, the open rooms, and the form that creates a room.
// The form is built once per visit and keeps its own values; later renders only refresh the room list.

import { t, lang, has, own, roomName } from "./i18n.js";
import { h, replace } from "./dom.js";
import { howToPlay } from "./dialogs.js";

const DEFAULT_FORM = { ruleset: null, houseRules: {}, length: "deals", deals: 8, target: 100, bots: true, bot: null };
/** The bot levels the page knows how to explain, weakest first; the server's `hello` says which it has. */
const BOT_LEVELS = ["random", "heuristic", "expert"];

/** Draw (or refresh) the lobby inside `root`. */
export function renderLobby(app, root) {
  let lobby = root.querySelector(":scope > .lobby");
  if (!lobby || lobby.dataset.lang !== lang() || lobby.dataset.rulesets !== lobbyKey(app)) {
    lobby = buildLobby(app);
    replace(root, lobby);
  }
  refreshRooms(app, lobby.querySelector(".rooms"));
  refreshLeaderboard(app, lobby.querySelector(".leaderboard"));
}

/** What the form is built from: when it changes (the house rules arrive, say) the form is rebuilt. */
function lobbyKey(app) {
  return `${app.server.rulesets.join(",")}|${Object.keys(app.server.rulesetInfo || {}).join(",")}|${app.server.bots.join(",")}`;
}

/** The default ruleset of a new game: whist à la couleur when the server has it. */
function defaultRuleset(rulesets) {
  return rulesets.includes("couleur") ? "couleur" : rulesets[0] || null;
}

function buildLobby(app) {
  if (!app.ui.form) app.ui.form = { ...DEFAULT_FORM, houseRules: {} };
  const form = app.ui.form;
  const rulesets = app.server.rulesets.length ? app.server.rulesets : [];
  if (!form.ruleset || !rulesets.includes(form.ruleset)) form.ruleset = defaultRuleset(rulesets);
  if (!app.ui.quickRuleset || !rulesets.includes(app.ui.quickRuleset)) app.ui.quickRuleset = defaultRuleset(rulesets);
  const levels = [...BOT_LEVELS.filter((name) => app.server.bots.includes(name)),
    ...app.server.bots.filter((name) => !BOT_LEVELS.includes(name))];
  if (!form.bot || !levels.includes(form.bot)) form.bot = levels.includes("heuristic") ? "heuristic" : levels[0] || null;

  const nameInput = h("input", {
    id: "player-name", type: "text", maxlength: 32, autocomplete: "nickname", value: app.ui.nameDraft ?? app.name,
    placeholder: t("lobby.name.placeholder"), dataset: { key: "name" },
    oninput: (event) => { app.ui.nameDraft = event.target.value; },
  });
  const nameForm = h("form", {
    class: "name-form", onsubmit: (event) => { event.preventDefault(); app.saveName(nameInput.value); },
  },
  h("label", { for: "player-name" }, t("lobby.name")),
  h("div", { class: "row" }, nameInput,
    h("button", { type: "submit", class: "secondary", dataset: { key: "name-save" } }, t("lobby.name.save"))));
  // Saving the name also happens when the player leaves the field, so that nothing typed is lost.
  nameInput.addEventListener("change", () => { app.ui.nameDraft = null; app.saveName(nameInput.value); });

  const rooms = h("div", { class: "rooms" });
  const roomsCard = h("section", { class: "card-panel", "aria-labelledby": "rooms-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "rooms-title" }, t("lobby.rooms")),
      h("button", { type: "button", class: "ghost small", onclick: () => app.refreshRooms(), dataset: { key: "refresh" } },
        t("lobby.rooms.refresh"))),
    rooms);

  const houseRulesBox = h("div", { class: "house-rules" });
  const rulesetChoices = h("div", { class: "ruleset-choices", role: "radiogroup", "aria-label": t("lobby.create.ruleset") },
    rulesets.map((name) => h("label", { class: "choice" },
      h("input", {
        type: "radio", name: "ruleset", value: name, checked: form.ruleset === name, dataset: { key: `ruleset-${name}` },
        onchange: () => { form.ruleset = name; form.houseRules = {}; fillHouseRules(app, houseRulesBox); },
      }),
      h("span", { class: "choice-text" },
        h("strong", {}, t(`rules.${name}`)),
        h("small", {}, t(`rules.desc.${name}`))))));
  fillHouseRules(app, houseRulesBox);

  const lengthChoice = (value, label, extra) => h("label", { class: "choice inline" },
    h("input", {
      type: "radio", name: "length", value, checked: form.length === value, dataset: { key: `length-${value}` },
      onchange: () => { form.length = value; },
    }),
    h("span", {}, label), extra);
  const dealsInput = h("input", {
    type: "number", min: 1, max: 1000, value: form.deals, class: "num", "aria-label": t("lobby.create.deals"),
    dataset: { key: "deals" }, oninput: (e) => { form.deals = Number(e.target.value); form.length = "deals"; syncLength(); },
  });
  const targetInput = h("input", {
    type: "number", min: 1, max: 100000, value: form.target, class: "num", "aria-label": t("lobby.create.points"),
    dataset: { key: "target" }, oninput: (e) => { form.target = Number(e.target.value); form.length = "target"; syncLength(); },
  });
  const lengthBox = h("fieldset", { class: "length" },
    h("legend", {}, t("lobby.create.length")),
    lengthChoice("deals", t("lobby.create.length.deals"), h("span", { class: "num-wrap" }, dealsInput, " ", t("lobby.create.deals"))),
    lengthChoice("target", t("lobby.create.length.target"), h("span", { class: "num-wrap" }, "+", targetInput, " ", t("lobby.create.points"))),
    lengthChoice("open", t("lobby.create.length.open")));
  function syncLength() {
    for (const radio of lengthBox.querySelectorAll("input[type=radio]")) radio.checked = radio.value === form.length;
  }

  const botsBox = h("label", { class: "choice check" },
    h("input", { type: "checkbox", checked: form.bots, dataset: { key: "bots" }, onchange: (e) => { form.bots = e.target.checked; } }),
    h("span", { class: "choice-text" }, h("strong", {}, t("lobby.create.bots")), h("small", {}, t("lobby.create.bots.help"))));

  const botChoices = levels.length > 1 ? h("fieldset", { class: "bot-levels" },
    h("legend", {}, t("lobby.create.botlevel")),
    h("div", { class: "ruleset-choices", role: "radiogroup", "aria-label": t("lobby.create.botlevel") },
      levels.map((name) => h("label", { class: "choice" },
        h("input", { type: "radio", name: "bot-level", value: name, checked: form.bot === name, dataset: { key: `bot-${name}` }, onchange: () => { form.bot = name; } }),
        h("span", { class: "choice-text" }, h("strong", {}, has(`bot.${name}`) ? t(`bot.${name}`) : name),
          has(`bot.${name}.desc`) ? h("small", {}, t(`bot.${name}.desc`)) : null))))) : null;

  const submit = (sit, bots = null) => (event) => {
    event.preventDefault();
    if (nameInput.value.trim() && nameInput.value.trim() !== app.name) app.saveName(nameInput.value);
    const session = form.length === "deals" ? { deals: form.deals || 1 } : form.length === "target" ? { target: form.target || 1 } : {};
    app.createRoom({ ruleset: form.ruleset, houseRules: { ...form.houseRules }, session, bots: bots ?? form.bots, sit, bot: form.bot });
  };
  // The shortest way to a game, with its own choice of rules right beside it (the create-room form is
  // below the fold on a phone): that ruleset with its default house rules, 8 deals, three bots.
  const quickSelect = h("select", {
    id: "quick-ruleset", dataset: { key: "quick-ruleset" }, "aria-label": t("lobby.quick.rules"),
    onchange: (event) => { app.ui.quickRuleset = event.target.value; },
  }, rulesets.map((name) => h("option", { value: name, selected: app.ui.quickRuleset === name }, t(`rules.${name}`))));
  const quick = (event) => {
    event.preventDefault();
    if (nameInput.value.trim() && nameInput.value.trim() !== app.name) app.saveName(nameInput.value);
    app.createRoom({ ruleset: app.ui.quickRuleset, houseRules: {}, session: { deals: DEFAULT_FORM.deals }, bots: true, sit: true, bot: form.bot });
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
    h("div", { class: "row buttons" },
      h("button", { type: "submit", class: "primary", id: "create-room", dataset: { key: "create" } }, t("lobby.create.submit")),
      h("button", { type: "button", class: "secondary", id: "create-watch", dataset: { key: "create-watch" }, onclick: submit(false) },
        t("lobby.create.watch"))));

  const lobby = h("div", { class: "lobby", dataset: { lang: lang(), rulesets: lobbyKey(app) } },
    h("div", { class: "lobby-side" }, h("section", { class: "card-panel intro" }, nameForm), dailyCard(app, nameInput), roomsCard,
      replayCard(app),
      howCard(app, rulesets)),
    createForm);
  return lobby;
}

/** How to play: the lobby's steps, and a short guide to each ruleset's play. */
function howCard(app, rulesets) {
  return h("section", { class: "card-panel how", "aria-labelledby": "how-title" }, h("h2", { id: "how-title" }, t("lobby.how")),
    h("ul", {}, ["lobby.how.1", "lobby.how.2", "lobby.how.3"].map((key) => h("li", {}, t(key)))),
    rulesets.map((name) => h("details", { class: "howto", dataset: { ruleset: name } },
      h("summary", { dataset: { key: `howto-${name}` } }, t("help.howto", { rules: t(`rules.${name}`) })),
      howToPlay(name))));
}

/** The replay viewer: open a downloaded deal record, or paste one. */
function replayCard(app) {
  return h("section", { class: "card-panel replay-card", "aria-labelledby": "replay-card-title" },
    h("h2", { id: "replay-card-title" }, t("replay.title")),
    h("p", { class: "muted" }, t("replay.lobby.help")),
    h("button", { type: "button", class: "secondary", id: "replay-open", dataset: { key: "replay-open" }, onclick: () => app.openReplayPicker() }, t("replay.open")));
}

/** House rules of the chosen ruleset, as the server describes them (`hello` → `ruleset_info`). */
function houseRulesOf(app, ruleset) {
  const info = app.server.rulesetInfo?.[ruleset];
  const rules = info?.house_rules;
  if (!rules) return [];
  if (Array.isArray(rules)) return rules;
  return Object.entries(rules).map(([name, spec]) => ({ name, ...spec }));
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

function fillHouseRules(app, box) {
  const form = app.ui.form;
  const rules = houseRulesOf(app, form.ruleset);
  if (!rules.length) {
    replace(box, h("p", { class: "muted" }, t("lobby.create.houserules.none")));
    return;
  }
  replace(box, rules.map((rule) => {
    const id = `hr-${rule.name}`;
    const value = rule.name in form.houseRules ? form.houseRules[rule.name] : rule.default;
    const set = (next) => {
      if (JSON.stringify(next) === JSON.stringify(rule.default)) delete form.houseRules[rule.name];
      else form.houseRules[rule.name] = next;
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
function dailyCard(app, nameInput) {
  const start = () => {
    if (nameInput.value.trim() && nameInput.value.trim() !== app.name) app.saveName(nameInput.value);
    app.startDaily();
  };
  return h("section", { class: "card-panel daily", id: "daily", "aria-labelledby": "daily-title" },
    h("div", { class: "panel-head" },
      h("h2", { id: "daily-title" }, t("daily.title")),
      h("button", { type: "button", class: "ghost small", dataset: { key: "leaderboard-refresh" }, onclick: () => app.refreshLeaderboard() },
        t("lobby.rooms.refresh"))),
    h("p", { class: "daily-help" }, t("daily.help")),
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", id: "daily-start", dataset: { key: "daily-start" }, onclick: start }, t("daily.start"))),
    h("h3", { id: "leaderboard-title" }, t("daily.leaderboard")),
    h("div", { class: "leaderboard", "aria-labelledby": "leaderboard-title" }));
}

/** Today's ranking: rank, name, score, deals; the player's own games stand out. */
function refreshLeaderboard(app, box) {
  if (!box) return;
  const board = app.leaderboard;
  if (!board) {
    replace(box, h("p", { class: "muted" }, app.leaderboardMissing ? t("daily.unavailable") : t("conn.connecting")));
    return;
  }
  const title = box.parentElement?.querySelector("#leaderboard-title");
  if (title) title.textContent = t("daily.leaderboard.day", { day: board.day });
  if (!board.entries.length) {
    replace(box, h("p", { class: "muted" }, t("daily.leaderboard.empty")));
    return;
  }
  replace(box, h("table", { class: "score-table leaderboard-table" },
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "#"),
      h("th", { scope: "col" }, t("end.player")),
      h("th", { scope: "col" }, t("daily.score")),
      h("th", { scope: "col" }, t("daily.deals")))),
    h("tbody", {}, board.entries.map((entry) => h("tr", { class: entry.mine || entry.name === app.name ? "me" : "" },
      h("td", { class: "rank" }, String(entry.rank)),
      h("th", { scope: "row" }, entry.name),
      h("td", {}, String(entry.score)),
      h("td", {}, String(entry.deals))))),
    board.total > board.entries.length ? h("caption", { class: "muted" }, t("daily.leaderboard.more", { n: board.total })) : null));
}

function refreshRooms(app, box) {
  if (!box) return;
  if (!app.rooms.length) {
    replace(box, h("p", { class: "muted" }, app.roomsLoaded ? t("lobby.rooms.none") : t("conn.connecting")));
    return;
  }
  replace(box, h("ul", { class: "room-list" }, app.rooms.map((room) => {
    const taken = 4 - room.free_seats;
    return h("li", { class: "room-item", dataset: { room: room.room_id } },
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
          onclick: () => app.joinFromLobby(room.room_id),
        }, room.free_seats === 0 && !app.tokenFor(room.room_id) ? t("lobby.room.full") : t("lobby.room.join")),
        h("button", {
          type: "button", class: "secondary small", dataset: { key: `watch-${room.room_id}` },
          onclick: () => app.watch(room.room_id),
        }, t("lobby.room.watch"))));
  })));
}
