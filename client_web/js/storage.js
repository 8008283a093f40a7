// The browser's localStorage, read and written without failing: in a private window (or with storage
// turned off) it throws, and the page then keeps its choices for this tab only.

/** The value kept under `key`, or null. */
export function storageGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // no storage: nothing was kept
  }
}

/** Keep `value` under `key` (null forgets it). Without storage the value lives until the tab closes. */
export function storageSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch (error) {
    console.info(`[whist] not kept (no storage): ${key}`, error?.name);
  }
}
