// The page's half of the protocol heartbeat (docs/protocol.md "Heartbeat"), for any of its
// sockets (a room's, the site channel). The browser answers the server's WebSocket pings itself
// but never tells the page when they stop, so the page pings too, to notice within about three
// seconds a connection that died silently or a server that froze (a phone that slept, a lost
// network, a stalled node). A connection is dead when, at a tick, nothing at all has arrived since
// the first ping sent after the last frame and that ping is older than ANSWER_WITHIN_MS. Never
// judged by the time since the last frame alone: a background tab's timers may run once a minute
// (Chrome's throttling), so a tick can come long after the previous one on a healthy, quiet
// connection. Each pong also measures the round trip.
//
//   const beat = new Heartbeat(ws, () => reconnect());   // pings now, then every second
//   const rttMs = beat.heard(frame.t);   // every frame: alive; a pong's round trip, else null
//   beat.stop();
//
// A live server upgrades a WebSocket at once; a frozen one behind a proxy never does, and the
// proxy waits its read timeout (8 s as shipped) before trying another node: a socket not open
// within openDeadline(failures) is given up like a silent one. That is OPEN_WITHIN_MS at first,
// doubled for each attempt in a row that ended without a welcome, up to LONGEST_OPEN_WITHIN_MS: a
// TLS WebSocket over a link of 500 to 700 ms round trip needs about three round trips to open,
// more than the first deadline, and still opens at a later try.
//
//   const deadline = openDeadline(failures);   // 1.5 s, 3 s, 6 s, 12 s, then 15 s

export const PING_EVERY_MS = 1_000;
export const ANSWER_WITHIN_MS = 3_000;
export const OPEN_WITHIN_MS = 1_500;
export const LONGEST_OPEN_WITHIN_MS = 15_000;
// A server may hold a hello before its welcome while it takes over a room whose node died: up to
// the lease's TTL + 2 s (5 s with the defaults, docs/deploy/cluster.md). Giving up sooner would
// cancel that takeover and send the room's clients to other nodes at uneven times.
export const WELCOME_WITHIN_MS = 6_000;

/**
 * How long an open socket may wait for its welcome after `failures` attempts in a row that ended
 * without one: WELCOME_WITHIN_MS, or the open deadline if that is longer.
 * @param {number} failures
 * @returns {number} ms
 */
export function welcomeDeadline(failures) {
  return Math.max(WELCOME_WITHIN_MS, openDeadline(failures));
}

/**
 * How long a socket may take to open after `failures` attempts in a row that ended without a
 * welcome (0 after a welcome): OPEN_WITHIN_MS, doubled per failure, at most
 * LONGEST_OPEN_WITHIN_MS.
 * @param {number} failures
 * @returns {number} ms
 */
export function openDeadline(failures) {
  return Math.min(LONGEST_OPEN_WITHIN_MS, OPEN_WITHIN_MS * 2 ** Math.min(failures, 16));
}

export class Heartbeat {
  /**
   * @param {WebSocket} ws  the open socket to ping with `{"t": "ping"}`
   * @param {() => void} onDead  called once, at the tick that finds the connection dead (the
   *   heartbeat has stopped by then)
   */
  constructor(ws, onDead) {
    this.ws = ws;
    this.onDead = onDead;
    // When the first ping unanswered went out (ms epoch; null: every ping so far was followed by
    // a frame), and when the last ping went out (null: answered, or none yet).
    /** @type {number | null} */
    this.unansweredSince = null;
    /** @type {number | null} */
    this.pingAt = null;
    // Stopped: no tick does anything any more (also should a timer fire once more after
    // clearInterval, as Node's mocked timers do when an interval is cleared in its own tick).
    this.stopped = false;
    this.timer = setInterval(() => this.beat(), PING_EVERY_MS);
    this.beat();
  }

  /**
   * A frame of type `type` arrived: the connection is alive.
   * @param {string} type
   * @returns {number | null} for the pong of the last ping, its round trip in ms
   */
  heard(type) {
    this.unansweredSince = null;
    if (type !== 'pong' || this.pingAt === null) return null;
    const sample = Date.now() - this.pingAt;
    this.pingAt = null;
    return sample;
  }

  // One tick: give up on a connection that left our last ping unanswered, else ping.
  beat() {
    if (this.stopped) return;
    const now = Date.now();
    if (this.unansweredSince !== null && now - this.unansweredSince > ANSWER_WITHIN_MS) {
      this.stop();
      this.onDead();
      return;
    }
    this.ws.send(JSON.stringify({ t: 'ping' }));
    this.pingAt = now;
    this.unansweredSince ??= now;
  }

  stop() {
    this.stopped = true;
    clearInterval(this.timer);
  }
}
