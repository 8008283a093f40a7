// Optional sounds, made with WebAudio (no downloaded file): a tick for a card, a chime for a trick won,
// a soft ding when it is your turn, two short beeps when your turn clock is nearly out. Off by default; the choice is remembered.

import { storageGet, storageSet } from "./storage.js";
import { report } from "./errors.js";

const KEY = "whist.sound";
let context = null;
let enabled = storageGet(KEY) === "on";

/** Whether sounds are on. */
export function soundOn() { return enabled; }

/** Turn sounds on or off (remembered). */
export function setSound(on) {
  enabled = Boolean(on);
  storageSet(KEY, enabled ? "on" : "off");
  if (enabled) ensureContext();
}

function ensureContext() {
  const Audio = window.AudioContext || window.webkitAudioContext;
  if (!context && Audio) context = new Audio();
  if (context && context.state === "suspended") context.resume().catch((error) => report("starting the sounds (they stay silent)", error));
  return context;
}

const TONES = {
  card: [[660, 0.05, "triangle"]],
  trick: [[523, 0.09, "sine"], [784, 0.14, "sine"]],
  turn: [[880, 0.12, "sine"]],
  clock: [[988, 0.07, "square"], [988, 0.07, "square"]],
};

/** Play one of the sounds ("card", "trick", "turn", "clock": your clock nearly ran out) if sounds are on; counted for the tests. */
export function playSound(name) {
  if (!enabled || !TONES[name]) return;
  window.whistSounds = (window.whistSounds || 0) + 1;
  const audio = ensureContext();
  if (!audio) return;
  let start = audio.currentTime;
  for (const [frequency, length, type] of TONES[name]) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = type;
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.12, start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
    start += length * 0.8;
  }
}
