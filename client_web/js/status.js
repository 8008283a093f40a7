// The connection banner: "Connecting…", "Connection lost, retrying in 2 s", "Connected again".

import { t } from "./i18n.js";

let bannerTimer = null;

/** Show the connection's state (`net.js` calls it on every change). */
export function showStatus(status, info) {
  const banner = document.getElementById("banner");
  clearTimeout(bannerTimer);
  if (status === "open") {
    if (info.wasDown) {
      banner.textContent = t("conn.back");
      banner.className = "banner ok";
      banner.hidden = false;
      bannerTimer = setTimeout(() => { banner.hidden = true; }, 1500);
    } else {
      banner.hidden = true;
    }
  } else if (status === "connecting") {
    banner.textContent = t("conn.connecting");
    banner.className = "banner";
    banner.hidden = false;
  } else {
    banner.textContent = status === "down" && info.delay >= 1000
      ? t("conn.retry", { s: Math.round(info.delay / 1000) })
      : t("conn.down");
    banner.className = "banner down";
    banner.hidden = false;
  }
  document.body.dataset.connection = status;
}
