// The replay viewer's requests: a finished deal of this session (`get_records`), or any record, turned
// into frames by the server (`replay`); and the session's records downloaded as a file.

import { t } from "./i18n.js";
import { h } from "./dom.js";
import { actions, conn, send } from "./actions.js";
import * as update from "./store.js";

const { state } = update;

export const replayActions = {
  /** Open the viewer's picker (paste or open a record). */
  openPicker() {
    update.replayOpened({ steps: null, list: null, names: null, draft: "", error: "" });
  },

  /** A finished deal of this session: the last one ("last"), or a list to pick from ("pick"). */
  async openSession(which) {
    const result = await send("get_records");
    if (!result) return;
    const names = [0, 1, 2, 3].map((seat) => {
      const info = state().room?.seats?.[seat];
      return info?.kind === "bot" ? `${t("room.seat.botname")} ${seat + 1}` : info?.name || null;
    });
    const records = result.records || [];
    const bottom = state().you?.seat ?? 0;
    if (which === "last" && records.length) return replayActions.show(records[records.length - 1], { list: records, names, bottom });
    update.replayOpened({ steps: null, list: records, names, bottom, draft: "", error: records.length ? "" : t("replay.none") });
  },

  /** Ask the server for the frames of `record` and show them from the start. */
  async show(record, { list = null, names = null, bottom = null } = {}) {
    const previous = state().replay || {};
    try {
      const answer = await conn.request("replay", { record });
      update.replayOpened({ steps: answer.steps, result: answer.result, record, index: 0, list: list ?? previous.list, names: names ?? previous.names, bottom: bottom ?? previous.bottom ?? 0 });
    } catch (error) {
      const message = error.code === "unknown_type" ? t("replay.unavailable") : `${t("replay.bad")} ${error.message || ""}`;
      update.replayOpened({ ...previous, steps: null, error: message });
    }
    requestAnimationFrame(() => document.querySelector("[data-key=replay-forward]")?.focus());
  },

  /** Show step `index` (kept within the deal's steps). */
  step(index) {
    const steps = state().replay?.steps;
    if (steps) update.replayChanged({ index: Math.max(0, Math.min(steps.length - 1, index)) });
  },

  close() {
    update.replayClosed();
    if (!state().roomId) actions.refreshRooms();
  },

  async downloadRecords() {
    const result = await send("get_records");
    if (!result) return;
    const blob = new Blob([JSON.stringify(result.records, null, 2)], { type: "application/json" });
    const link = h("a", { href: URL.createObjectURL(blob), download: `whist-${result.room_id}.json` });
    document.body.append(link);
    link.click();
    setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
  },
};
