// The WebSocket connection: requests with ids answered by `ok`/`error`, pushes handed to a callback,
// and automatic reconnection with a growing delay. See docs/protocol.md.

import { report } from "./errors.js";

export class ServerError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

export class Connection {
  /**
   * @param {object} handlers onPush(message), onStatus(status, info), onOpen() (called after every
   *   (re)connection, before queued requests are flushed; it may send requests itself), roomOf()
   *   (the room the page shows, or null: named in the address of every new connection).
   */
  constructor({ onPush, onStatus, onOpen, roomOf }) {
    this.onPush = onPush;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.roomOf = roomOf;
    this.openedFor = null; // the room the open socket serves on its room's process (named in its address)
    this.moving = false;
    this.nextId = 1;
    this.pending = new Map();
    this.socket = null;
    this.status = "connecting";
    this.attempt = 0;
    this.retryTimer = null;
    this.everConnected = false;
  }

  /**
   * `/ws`, or `/ws?room=<id>` for a room: a balancer with room affinity (docs/scaling.md) sends every
   * connection that names a room to the same server process, so a table is served by one process.
   */
  urlFor(roomId) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}/ws` + (roomId ? `?room=${encodeURIComponent(roomId)}` : "");
  }

  get url() {
    return this.urlFor(this.roomOf?.() || null);
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.setStatus(this.everConnected ? "reconnecting" : "connecting");
    let socket;
    const roomId = this.roomOf?.() || null;
    try {
      socket = new WebSocket(this.urlFor(roomId));
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    this.openedFor = roomId;
    socket.addEventListener("open", async () => {
      this.attempt = 0;
      const wasDown = this.everConnected;
      this.everConnected = true;
      this.setStatus("open", { wasDown });
      try {
        await this.onOpen?.(wasDown);
      } catch (error) {
        report("after connecting", error);
      }
    });
    this.listen(socket);
  }

  /** Answers and pushes of a socket; its close rejects the requests still waiting on it. */
  listen(socket) {
    socket.addEventListener("message", (event) => this.receive(event.data, socket));
    socket.addEventListener("close", () => {
      for (const [id, { reject, on }] of this.pending) {
        if (on !== socket) continue;
        this.pending.delete(id);
        reject(new ServerError("disconnected", "connection lost"));
      }
      if (this.socket !== socket) return; // a socket the page already moved away from
      this.socket = null;
      this.scheduleRetry();
    });
    socket.addEventListener("error", () => { /* a close event follows */ });
  }

  /**
   * The page entered a room on a connection opened before it knew the room (created from the lobby,
   * joined from its list): open a connection that names the room, move to it, close the first. The
   * new one is open and `onOpen` (hello, then resume with the seat token or watch) has run on it
   * before the first closes, so the seat is never without a connection and the player sees nothing.
   * If the new connection fails, the page stays on the first.
   */
  async moveToRoom() {
    const roomId = this.roomOf?.() || null;
    const first = this.socket;
    if (!roomId || this.moving || roomId === this.openedFor || !first || first.readyState !== WebSocket.OPEN) return;
    this.moving = true;
    try {
      const socket = new WebSocket(this.urlFor(roomId));
      const opened = await new Promise((resolve) => {
        socket.addEventListener("open", () => resolve(true), { once: true });
        socket.addEventListener("close", () => resolve(false), { once: true });
      });
      if (!opened) return;
      if (this.socket !== first || first.readyState !== WebSocket.OPEN || (this.roomOf?.() || null) !== roomId) {
        socket.close(); // the page moved on meanwhile (or the first connection dropped and reconnects)
        return;
      }
      this.listen(socket);
      this.socket = socket;
      this.openedFor = roomId;
      try {
        await this.onOpen?.(false);
      } catch (error) {
        report("after moving to the room's process", error);
      }
      first.close();
    } finally {
      this.moving = false;
    }
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

  receive(data, socket = this.socket) {
    if (typeof data !== "string") return; // we only speak JSON; the server answers in kind
    let message;
    try {
      message = JSON.parse(data);
    } catch (error) {
      report("a message from the server that is not JSON (ignored)", error);
      return;
    }
    if ((message.type === "ok" || message.type === "error") && message.id != null && this.pending.has(message.id)) {
      const { resolve, reject } = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.type === "ok") resolve(message.result || {});
      else reject(new ServerError(message.code, message.message));
      return;
    }
    if (socket !== this.socket) return; // pushes of a connection the page has moved away from
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
      this.pending.set(id, { resolve, reject, on: this.socket });
      this.socket.send(JSON.stringify(message));
    });
  }
}
