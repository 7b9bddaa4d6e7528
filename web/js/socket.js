// One WebSocket to a room, for one held seat (or for watching): it says hello with the seat's
// token and the last version it has, hands the room's events over in order, reconnects by itself
// with growing, jittered waits, and sends again, with the same cid, every command the server had
// not answered when the connection dropped (the server answers a known cid as before, so a
// command is never played twice).
//
//   const socket = new RoomSocket({ room, token, name, route, onFrame, onState });
//       // route: optional, what the URL's ?room= names for a proxy that sends every request of
//       // a room to one node (the invite code, as the page's own URL and REST calls name it);
//       // the room by default
//       // name: a spectator's name for the spectators' chat (hello.d.name; none for a seat)
//       // resumeFromSnapshot: optional () => boolean, asked at each reconnect: true says hello
//       // without last_v, so the server answers with a fresh snapshot instead of the missed events
//   socket.state        'connecting' | 'online' | 'offline'
//   socket.failure      null, or {code} once it gave up (the hello's error code, or the close code)
//   socket.retryAt      while offline and not given up: when the next attempt starts (ms epoch)
//   socket.lagMs        the round trip of its pings in ms (a decaying average, kept across reconnects:
//                       the same network), null before the first pong
//   await socket.send('move', { move: 'e3e4', v: 3 })   resolves with the ack's d, rejects with
//                                                       an Error carrying the reject's code
//   socket.close()

import { socketUrl } from './api.js';
import { Heartbeat, openDeadline, welcomeDeadline } from './heartbeat.js';

/** @typedef {import('./protocol.js').ServerFrame} ServerFrame */
/** @typedef {'connecting' | 'online' | 'offline'} SocketState */

/**
 * @typedef {object} RoomSocketOptions
 * @property {string} room  the room id the hello names
 * @property {string | null} [token]  the seat's token (none: a spectator)
 * @property {string | null} [name]  a spectator's name for the spectators' chat
 * @property {string} [route]  what the URL's ?room= names (the room by default)
 * @property {() => boolean} [resumeFromSnapshot]
 * @property {(frame: ServerFrame) => void} onFrame
 * @property {(socket: RoomSocket) => void} onState
 */

/**
 * A command sent and not yet answered.
 * @typedef {{ frame: { t: string, cid: string, d: object }, resolve: (d: any) => void, reject: (error: Error) => void }} PendingCommand
 */

// Close codes after which trying again cannot help: a bad hello, no such room, a token the room
// does not know, a client that sends what the server refuses.
const GIVE_UP = new Map([
  [4000, 'bad_hello'],
  [4001, 'unknown_room'],
  [4003, 'bad_token'],
  [1008, 'bad_message'],
  [1009, 'bad_message'],
]);
const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 15_000;
// The heartbeat (heartbeat.js) finds a connection dead within about three seconds; its pongs
// measure the round trip (`socket.lagMs`), which the page counts into its clocks
// (room/state.js setClock): the first ping goes out with the welcome, so the round trip is known
// within the first second of a connection. A socket not open within its deadline (heartbeat.js
// openDeadline: 1.5 s, growing with each attempt in a row that was not welcomed), one open but
// not welcomed in time (welcomeDeadline: 6 s, since a node may hold a hello while it takes over
// the room of a node that died), or one that fell silent, reconnects with the next `via` in
// its URL: docs/deploy/nginx-cluster.conf hashes it with the room, so the proxy most likely picks
// another node than a frozen one (docs/deploy/cluster.md "The proxy"). A connection that was
// healthy (welcomed, and heard from) for SETTLED_MS sets `via` back to 0 for the reconnect that
// follows it, whenever that comes (none is made for it): the room's clients, which may have
// scattered over several `via`s while a node was away, come together again on the room's own
// node. Unless that connection itself went through via 0 and fell silent: then via 1, as ever.
const SETTLED_MS = 60_000;

// Client ids must never repeat for a seat (the server keeps a room's acks by cid for its whole
// life), so each page load draws its own prefix.
const pageId = Math.random().toString(36).slice(2, 10);
let commands = 0;

export class RoomSocket {
  /** @param {RoomSocketOptions} options */
  constructor({ room, token = null, name = null, route = room, resumeFromSnapshot = () => false, onFrame, onState }) {
    this.room = room;
    this.route = route;
    this.resumeFromSnapshot = resumeFromSnapshot;
    this.token = token;
    this.name = name;
    this.onFrame = onFrame;
    this.onState = onState;
    /** @type {SocketState} */
    this.state = 'connecting';
    /** @type {{ code: string } | null} */
    this.failure = null;
    /** @type {number | null} */
    this.retryAt = null;
    /** @type {number | null} */
    this.lastV = null;
    /** @type {Map<string, PendingCommand>} */
    this.pending = new Map();
    this.attempts = 0;
    // Attempts in a row that ended without a welcome: they make the next one's open deadline
    // longer (openDeadline), for a link too slow to open a socket within the first.
    this.failures = 0;
    // When the current connection was welcomed, and when a frame of it last arrived (ms epoch;
    // null: not welcomed).
    /** @type {number | null} */
    this.welcomedAt = null;
    /** @type {number | null} */
    this.heardAt = null;
    // The `via` of the URL: how many times in a row a node this socket went through fell silent,
    // or did not open or welcome the socket in time (see SETTLED_MS).
    this.via = 0;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} the current socket's open deadline, then its welcome's */
    this.openTimer = undefined;
    /** @type {Heartbeat | null} */
    this.heartbeat = null;
    /** @type {string | null} the code of the hello's `error` frame, if one came */
    this.error = null;
    /** @type {number | null} the round trip in ms, a decaying average of the pongs' (null: none yet) */
    this.lagMs = null;
    this.closing = false;
    // Back on the network: no reason to wait out the backoff.
    this.wake = () => {
      if (this.state === 'offline' && !this.failure) this.connect();
    };
    window.addEventListener('online', this.wake);
    this.connect();
  }

  connect() {
    clearTimeout(this.timer);
    this.retryAt = null;
    this.error = null;
    this.welcomedAt = null;
    this.heardAt = null;
    this.setState('connecting');
    const ws = new WebSocket(socketUrl(this.route, this.via));
    this.ws = ws;
    // The socket must open within the deadline, and then be welcomed within welcomeDeadline: a
    // node that froze right after the upgrade never answers the hello, and the heartbeat starts
    // only at the welcome.
    const deadline = openDeadline(this.failures);
    const welcomeWithin = welcomeDeadline(this.failures);
    clearTimeout(this.openTimer);
    this.openTimer = setTimeout(() => {
      if (ws === this.ws && ws.readyState === WebSocket.CONNECTING) this.giveUp(ws);
    }, deadline);
    ws.onopen = () => {
      if (ws !== this.ws) return;
      clearTimeout(this.openTimer);
      this.openTimer = setTimeout(() => {
        if (ws === this.ws && this.welcomedAt === null) this.giveUp(ws);
      }, welcomeWithin);
      /** @type {{ protocol: number, room: string, token?: string, name?: string, last_v?: number }} */
      const hello = { protocol: 1, room: this.room };
      if (this.token) hello.token = this.token;
      else if (this.name) hello.name = this.name;
      if (this.lastV !== null && !this.resumeFromSnapshot()) hello.last_v = this.lastV;
      ws.send(JSON.stringify({ t: 'hello', d: hello }));
    };
    ws.onmessage = (message) => {
      if (ws === this.ws) this.receive(JSON.parse(message.data));
    };
    ws.onclose = (event) => {
      if (ws === this.ws) this.dropped(event.code);
    };
  }

  /** @param {ServerFrame} frame */
  receive(frame) {
    const roundTrip = this.heartbeat?.heard(frame.t) ?? null;
    this.heardAt = Date.now();
    switch (frame.t) {
      case 'welcome':
        clearTimeout(this.openTimer);
        this.attempts = 0;
        this.failures = 0;
        this.welcomedAt = this.heardAt;
        this.setState('online');
        this.startHeartbeat();
        this.onFrame(frame);
        for (const { frame: command } of this.pending.values()) this.ws?.send(JSON.stringify(command));
        return;
      case 'ack':
        return this.settle(frame.d.cid, (p) => p.resolve(frame.d));
      case 'reject':
        // `unavailable`: the server closes the connection and the command is sent again, with
        // its cid, once reconnected; the server then plays it or acks it, whichever it has done.
        if (frame.d.code === 'unavailable') return;
        return this.settle(frame.d.cid, (p) =>
          p.reject(Object.assign(new Error(frame.d.message), { code: frame.d.code })),
        );
      case 'error':
        this.error = frame.d.code;
        return;
      case 'pong':
        if (roundTrip !== null) {
          this.lagMs = this.lagMs === null ? roundTrip : Math.round(this.lagMs + (roundTrip - this.lagMs) / 4);
        }
        return;
      case 'snapshot':
        this.lastV = frame.v ?? null;
        this.onFrame(frame);
        return;
      default:
        if (frame.v === undefined) {
          this.onFrame(frame);
          return;
        }
        if (this.lastV !== null && frame.v <= this.lastV) return;
        if (this.lastV !== null && frame.v > this.lastV + 1) {
          // The server promises no holes; should one appear, resume from what we have.
          this.restart();
          return;
        }
        this.lastV = frame.v;
        this.onFrame(frame);
    }
  }

  /**
   * @param {string} cid
   * @param {(pending: PendingCommand) => void} how
   */
  settle(cid, how) {
    const pending = this.pending.get(cid);
    if (!pending) return;
    this.pending.delete(cid);
    how(pending);
  }

  /**
   * Sends a command; resolves with the ack's `d`, rejects with an Error carrying the reject's code.
   * @param {string} type
   * @param {object} [d]
   * @returns {Promise<any>}
   */
  send(type, d = {}) {
    const cid = `${pageId}-${++commands}`;
    const frame = { t: type, cid, d };
    return new Promise((resolve, reject) => {
      if (this.failure) {
        reject(Object.assign(new Error(this.failure.code), { code: this.failure.code }));
        return;
      }
      this.pending.set(cid, { frame, resolve, reject });
      if (this.state === 'online') this.ws?.send(JSON.stringify(frame));
    });
  }

  /**
   * @param {number} code
   * @param {boolean} [givenUp]  this page gave the connection up (see giveUp)
   */
  dropped(code, givenUp = false) {
    this.stopHeartbeat();
    this.ws = null;
    if (this.closing) return;
    this.ended(givenUp);
    if (GIVE_UP.has(code)) {
      this.failure = { code: this.error ?? GIVE_UP.get(code) ?? 'bad_message' };
      for (const pending of this.pending.values()) {
        pending.reject(Object.assign(new Error(this.failure.code), { code: this.failure.code }));
      }
      this.pending.clear();
      this.setState('offline');
      return;
    }
    // Full jitter: many clients dropped by one restart do not all come back at the same instant.
    const ceiling = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** this.attempts);
    const wait = ceiling / 2 + Math.random() * (ceiling / 2);
    this.attempts += 1;
    this.retryAt = Date.now() + wait;
    this.timer = setTimeout(() => this.connect(), wait);
    this.setState('offline');
  }

  // Drops the current connection and opens a new one at once.
  restart() {
    const ws = this.ws;
    this.stopHeartbeat();
    this.ws = null;
    ws?.close();
    this.ended(false);
    this.connect();
  }

  /**
   * The current attempt is over (once per attempt): one not welcomed counts as a failure; the
   * next asks for another node after a give-up, and for the room's own after a connection that
   * was healthy for SETTLED_MS (see there).
   * @param {boolean} givenUp
   */
  ended(givenUp) {
    const settled = this.welcomedAt !== null && this.heardAt !== null && this.heardAt - this.welcomedAt >= SETTLED_MS;
    if (this.welcomedAt === null) this.failures += 1;
    this.welcomedAt = null;
    this.heardAt = null;
    if (settled) this.via = givenUp && this.via === 0 ? 1 : 0;
    else if (givenUp) this.via += 1;
  }

  startHeartbeat() {
    this.stopHeartbeat();
    const ws = this.ws;
    if (!ws) return;
    this.heartbeat = new Heartbeat(ws, () => {
      if (ws === this.ws) this.giveUp(ws);
    });
  }

  /**
   * Gives up on `ws`, which fell silent, or was not opened or welcomed in time: the next
   * connection asks for another node (`via`).
   * @param {WebSocket | null} ws
   */
  giveUp(ws) {
    this.ws = null;
    ws?.close();
    this.dropped(1006, true);
  }

  stopHeartbeat() {
    this.heartbeat?.stop();
    this.heartbeat = null;
  }

  /** @param {SocketState} state */
  setState(state) {
    this.state = state;
    this.onState(this);
  }

  close() {
    this.closing = true;
    clearTimeout(this.timer);
    clearTimeout(this.openTimer);
    this.stopHeartbeat();
    window.removeEventListener('online', this.wake);
    const ws = this.ws;
    this.ws = null;
    ws?.close(1000);
  }
}
