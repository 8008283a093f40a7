"use strict";
// The table links here with the deal's seed and commitment in the address (#seed=...&commitment=...).
const values = new URLSearchParams(location.hash.slice(1));
const seed = values.get("seed");
if (seed) {
  document.getElementById("this-deal").hidden = false;
  document.getElementById("seed").textContent = seed;
  document.getElementById("commitment").textContent = values.get("commitment") || "(not seen)";
  // Single quotes in a shell word: close, escape, reopen.
  document.getElementById("sha-command").textContent = `printf '%s' '${seed.replaceAll("'", "'\\''")}' | sha256sum`;
}
