// The site channel's reconnects (web/js/site.js) without a browser, on mocked timers and a fake
// WebSocket: a socket not opened in time, or opened and never welcomed, is given up and another
// made 2 s later; each such try in a row waits longer (heartbeat.js openDeadline), and a welcome
// starts the schedule again. Run by `node --test tests/js` (tests/web_client.rs
// `the_client_modules_pass_their_node_tests`).

import assert from 'node:assert/strict';
import { mock, test } from 'node:test';

/** Every WebSocket the channel made, oldest first. */
let sockets = [];

class FakeWebSocket extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;

  /** @param {string} url */
  constructor(url) {
    super();
    this.url = new URL(url);
    this.readyState = FakeWebSocket.CONNECTING;
    /** When it was made, and closed by the page (mocked ms epoch; null: not yet). */
    this.madeAt = Date.now();
    this.closedAt = null;
    /** @type {object[]} */
    this.sent = [];
    sockets.push(this);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close() {
    if (this.readyState === FakeWebSocket.CLOSED) return;
    this.readyState = FakeWebSocket.CLOSED;
    this.closedAt = Date.now();
    this.dispatchEvent(new Event('close'));
  }

  /** The server (or a proxy) upgrades the socket. */
  open() {
    this.readyState = FakeWebSocket.OPEN;
    this.dispatchEvent(new Event('open'));
  }

  /** @param {object} frame */
  receive(frame) {
    const event = new Event('message');
    Object.assign(event, { data: JSON.stringify(frame) });
    this.dispatchEvent(event);
  }

  welcome() {
    this.open();
    this.receive({ t: 'welcome', d: { user: 'Dara', challenges: [] } });
  }
}

const storage = new Map();
globalThis.WebSocket = /** @type {any} */ (FakeWebSocket);
globalThis.localStorage = /** @type {any} */ ({
  getItem: (key) => storage.get(key) ?? null,
  setItem: (key, value) => storage.set(key, String(value)),
  removeItem: (key) => storage.delete(key),
});
Object.defineProperty(globalThis, 'navigator', { value: { languages: ['en'], language: 'en' }, configurable: true });
globalThis.document = /** @type {any} */ ({
  baseURI: 'https://games.example.org/',
  body: { dataset: {} },
  querySelector: () => null,
});
mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
/** Every URL the page fetched, oldest first; each is answered 404 `not_found`. */
const fetched = [];
globalThis.fetch = /** @type {any} */ (async (url) => {
  fetched.push(String(url));
  return new Response(JSON.stringify({ error: { code: 'not_found', message: 'no such challenge' } }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  });
});
const { madeChallenge, openSiteChannel } = await import('../../web/js/site.js');

/** Moves the mocked clock on, 100 ms at a time, until `done()` holds (at most `ms`). */
function waitUntil(done, ms = 60_000) {
  for (let i = 0; i < ms / 100 && !done(); i += 1) mock.timers.tick(100);
  assert.ok(done(), `not within ${ms} ms`);
}

/**
 * Lets `count` sockets in a row fail as `how` says (from the last one made): how long the page
 * waited for each before giving it up, in ms.
 * @param {number} count
 * @param {(ws: FakeWebSocket) => void} how
 */
function failing(count, how = () => {}) {
  const deadlines = [];
  for (let i = 0; i < count; i += 1) {
    const ws = sockets.at(-1);
    how(ws);
    waitUntil(() => ws.closedAt !== null);
    deadlines.push(ws.closedAt - ws.madeAt);
    waitUntil(() => sockets.at(-1) !== ws);
  }
  return deadlines;
}

// The channel reconnects for ever (a page has one): each test leaves it welcomed and quiet, and
// the next test's first socket is the reconnect that follows the server closing it.
function handOver() {
  const ws = sockets.at(-1);
  ws.close();
  sockets = [];
  waitUntil(() => sockets.length === 1);
}

test('each open that timed out in a row gives the next longer, up to 15 s; a welcome starts again at 1.5 s', () => {
  openSiteChannel();
  assert.equal(sockets[0].url.href, 'wss://games.example.org/ws/site');
  assert.deepEqual(failing(6), [1_500, 3_000, 6_000, 12_000, 15_000, 15_000]);
  sockets.at(-1).welcome();
  assert.equal(document.body.dataset.site, 'open');
  sockets.at(-1).close();
  waitUntil(() => sockets.at(-1).readyState === FakeWebSocket.CONNECTING);
  assert.deepEqual(failing(2), [1_500, 3_000]);
  sockets.at(-1).welcome();
});

test('a socket opened and never welcomed is given up as one never opened', () => {
  handOver();
  // Right after the upgrade the server froze: not a frame.
  // Welcomed within 6 s (a node may hold a hello while it takes over a dead node's room), or
  // within the open deadline once that is longer.
  assert.deepEqual(failing(5, (ws) => ws.open()), [6_000, 6_000, 6_000, 12_000, 15_000]);
  sockets.at(-1).welcome();
  assert.equal(document.body.dataset.site, 'open');
});

test('a challenge the page made that is gone for good (404) is asked after once, not at every welcome', async () => {
  handOver();
  madeChallenge('c-1');
  sockets.at(-1).welcome();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched.map((url) => new URL(url, 'https://games.example.org/').pathname), ['/api/challenges/c-1']);
  handOver();
  sockets.at(-1).welcome();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(fetched.length, 1, 'asked again after a 404');
});
