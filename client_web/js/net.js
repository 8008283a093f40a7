// The WebSocket connection: requests with ids answered by `ok`/`error`, pushes handed to a callback,
// and automatic reconnection with a growing delay. See docs/protocol.md.

export class ServerError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Connection {
  /**
   * @param {object} handlers onPush(message), onStatus(status, info), onOpen() (called after every
   *   (re)connection, before queued requests are flushed; it may send requests itself).
   */
  constructor({ onPush, onStatus, onOpen }) {
    this.onPush = onPush;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.nextId = 1;
    this.pending = new Map();
    this.socket = null;
    this.status = "connecting";
    this.attempt = 0;
    this.retryTimer = null;
    this.everConnected = false;
  }

  get url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws`;
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.setStatus(this.everConnected ? "reconnecting" : "connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    socket.addEventListener("open", async () => {
      this.attempt = 0;
      const wasDown = this.everConnected;
      this.everConnected = true;
      this.setStatus("open", { wasDown });
      try {
        await this.onOpen?.(wasDown);
      } catch (error) {
        console.warn("after connect", error);
      }
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = null;
      for (const { reject } of this.pending.values()) reject(new ServerError("disconnected", "connection lost"));
      this.pending.clear();
      this.scheduleRetry();
    });
    socket.addEventListener("error", () => { /* a close event follows */ });
  }

  /** Try again now (the browser says the network is back), unless a connection is open or opening. */
  retryNow() {
    if (this.socket) {
      // The socket survived the outage: it is usable again.
      if (this.socket.readyState === WebSocket.OPEN && this.status === "down") this.setStatus("open", { wasDown: true });
      return;
    }
    this.attempt = 0;
    this.connect();
  }

  /** The browser says the network is gone: say so at once (the socket's close event may come late). */
  noteOffline() {
    if (this.status === "open") this.setStatus("down", {});
  }

  scheduleRetry() {
    this.attempt += 1;
    const delay = Math.min(5000, 300 * 2 ** Math.min(this.attempt - 1, 5));
    this.setStatus("down", { delay });
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  setStatus(status, info = {}) {
    this.status = status;
    this.onStatus?.(status, info);
  }

  receive(data) {
    if (typeof data !== "string") return; // we only speak JSON; the server answers in kind
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if ((message.type === "ok" || message.type === "error") && message.id != null && this.pending.has(message.id)) {
      const { resolve, reject } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.type === "ok") resolve(message.result || {});
      else reject(new ServerError(message.code, message.message));
      return;
    }
    this.onPush?.(message);
  }

  /** Send a request; resolves with the `ok` result or rejects with a `ServerError`. */
  request(type, fields = {}) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ServerError("disconnected", "not connected"));
    }
    const id = this.nextId++;
    const message = { type, id, ...fields };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify(message));
    });
  }
}
