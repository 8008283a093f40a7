// What the server pushes (docs/protocol.md): a room's `state`, its `events`, its `chat` lines, and the
// `lobby`'s rooms. Each becomes a named update of the store; a finished deal is checked for fairness (fair.js).

import { announceEvents, sweepTrick } from "./table.js";
import { announceChat, isMine } from "./chat.js";
import { canVerify, verifyDeal } from "./fair.js";
import { report } from "./errors.js";
import * as update from "./store.js";

const { state } = update;

/** One push from the server. */
export function receive(message) {
  if (message.type === "state") {
    if (state().roomId && message.room_id !== state().roomId) return;
    const before = state().view;
    update.stateReceived(message);
    noteTrickCompletion(before, message.view);
    noteFairness(message.room, message.view);
  } else if (message.type === "events") {
    if (message.room_id !== state().roomId) return;
    noteSocialEvents(message.events);
    announceEvents(state(), message.events);
  } else if (message.type === "chat") {
    if (message.room_id !== state().roomId) return;
    const fresh = update.chatReceived(message.lines, (line) => isMine(state(), line));
    announceChat(state(), fresh);
  } else if (message.type === "lobby") {
    update.roomsListed(message.rooms);
  }
}

/**
 * Keep the seed commitment a deal starts with (never the one shown at its end), and check the deal once
 * it has ended and its seed is shown (docs/deal-record.md, "Checking a deal by hand").
 */
function noteFairness(room, view) {
  if (!room || !view || !view.seed_commitment) return;
  const key = `${room.room_id}:${room.deal_number}`;
  const { kept, checks } = state().fair;
  if (view.phase !== "end") {
    if (!(key in kept)) update.commitmentKept(key, view.seed_commitment);
    return;
  }
  if (key in checks || typeof view.seed !== "string") return;
  // A page that first sees a deal at its end (a late spectator) checks against the commitment shown then.
  const late = !(key in kept);
  const commitment = late ? view.seed_commitment : kept[key];
  if (!canVerify()) {
    update.fairnessChecked(key, { state: "unavailable", late });
    return;
  }
  update.fairnessChecked(key, { state: "checking", late });
  const packets = state().server.rulesetInfo?.[room.ruleset]?.packets;
  verifyDeal({ commitment, seed: view.seed, dealt: view.dealt, dealer: view.dealer, turnUp: view.turn_up, packets })
    .catch((error) => {
      report("checking the deal (shown as not verified)", error);
      return { verified: false, failed: "missing" };
    })
    .then((outcome) => update.fairnessChecked(key, { state: "done", late, commitment, seed: view.seed, ...outcome }));
}

/** Keep a just-completed trick on the table for a moment, so that its last card can be seen. */
function noteTrickCompletion(before, after) {
  if (!after || !before) return;
  const done = after.tricks?.length ?? 0;
  if (done > (before.tricks?.length ?? 0)) {
    const trick = after.tricks[done - 1];
    update.trickFlashed({ trick, until: performance.now() + 1100, count: done });
    // Near the end of its moment on the table the trick slides to its winner, then the table is redrawn.
    setTimeout(() => sweepTrick(trick), 800);
    setTimeout(update.redrawn, 1150);
  }
}

/**
 * The events the store keeps: the host's chat mutes, who "Play again" waits for, a new session, and
 * the turn clock giving our seat to the bot (or the seat given back).
 */
function noteSocialEvents(events) {
  for (const event of events || []) {
    if (event.type === "chat_muted") update.chatSeatMuted(event.seat, event.muted);
    else if (event.type === "play_again") update.playAgainWaiting(event.waiting_for);
    else if (event.type === "session_started") update.sessionStarted();
    else if (event.seat === state().you?.seat && state().you?.seat !== null && state().you?.seat !== undefined) {
      if (event.type === "bot_took_over" && event.reason === "clock") update.seatTakenOver(true);
      else if (event.type === "player_returned") update.seatTakenOver(false);
    }
  }
}
