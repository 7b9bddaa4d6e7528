// The room socket's failover (web/js/socket.js) without a browser, on mocked timers and a fake
// WebSocket: a socket not opened within 1.5 s (a frozen node behind the proxy: its kernel takes
// the connection, nothing answers; each such try in a row gets twice as long, up to 15 s, for a
// slow link), one opened and not welcomed within 6 s (or the open deadline once longer), and a connection that falls
// silent are given up, and the next connection asks the proxy for another node with `via`
// (docs/deploy/cluster.md "The proxy"), until a connection that was healthy for 60 s sets it back
// to 0.
// Run by `node --test tests/js` (tests/web_client.rs `the_client_modules_pass_their_node_tests`).

import assert from 'node:assert/strict';
import { beforeEach, mock, test } from 'node:test';

/** Every WebSocket the socket made, oldest first. */
let sockets = [];

class FakeWebSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 3;

  /** @param {string} url */
  constructor(url) {
    this.url = new URL(url);
    this.readyState = FakeWebSocket.CONNECTING;
    /** When it was made, and closed by the socket (mocked ms epoch; null: not yet). */
    this.madeAt = Date.now();
    this.closedAt = null;
    /** @type {object[]} */
    this.sent = [];
    this.onopen = () => {};
    this.onmessage = (_message) => {};
    this.onclose = (_event) => {};
    sockets.push(this);
  }

  send(text) {
    this.sent.push(JSON.parse(text));
  }

  close() {
    this.readyState = FakeWebSocket.CLOSED;
    this.closedAt ??= Date.now();
  }

  /** The server upgrades the socket. */
  open() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen();
  }

  /** The server upgrades the socket and welcomes the hello. */
  welcome() {
    this.open();
    this.onmessage({ data: JSON.stringify({ t: 'welcome', d: { room_id: 'r1' } }) });
  }
}

globalThis.WebSocket = /** @type {any} */ (FakeWebSocket);
globalThis.window = /** @type {any} */ ({ addEventListener() {}, removeEventListener() {} });
globalThis.document = /** @type {any} */ ({ baseURI: 'https://games.example.org/' });
mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
const { RoomSocket } = await import('../../web/js/socket.js');

/** The last socket's `via`, or null without one. */
function lastVia() {
  return sockets.at(-1).url.searchParams.get('via');
}

/** Moves the mocked clock on by `ms`, 100 ms at a time (each timer fires in its step). */
function wait(ms) {
  for (let i = 0; i < ms / 100; i += 1) mock.timers.tick(100);
}

/** Moves the mocked clock on, 100 ms at a time, until `done()` holds (at most `ms`). */
function waitUntil(done, ms = 60_000) {
  for (let i = 0; i < ms / 100 && !done(); i += 1) mock.timers.tick(100);
  assert.ok(done(), `not within ${ms} ms`);
}

/**
 * Lets `count` sockets in a row go unopened (from the last one made): how long the room socket
 * waited for each before giving it up, in ms.
 */
function unopened(count) {
  const deadlines = [];
  for (let i = 0; i < count; i += 1) {
    const ws = sockets.at(-1);
    waitUntil(() => ws.closedAt !== null);
    deadlines.push(ws.closedAt - ws.madeAt);
    waitUntil(() => sockets.at(-1) !== ws);
  }
  return deadlines;
}

function roomSocket() {
  return new RoomSocket({ room: 'r1', route: 'K7QX', token: 't1', onFrame() {}, onState() {} });
}

beforeEach(() => {
  sockets = [];
});

test('a socket the proxy never upgrades is given up after 1.5 s, and the next asks for another node', () => {
  const socket = roomSocket();
  assert.equal(sockets.length, 1);
  assert.equal(sockets[0].url.href, 'wss://games.example.org/ws?room=K7QX');
  wait(1_400);
  assert.equal(sockets.length, 1, 'still waiting for the upgrade');
  wait(200);
  assert.equal(sockets[0].readyState, FakeWebSocket.CLOSED);
  assert.equal(socket.state, 'offline');
  wait(600); // the first retry comes within 250 to 500 ms
  assert.equal(sockets.length, 2);
  assert.equal(lastVia(), '1');
  // Not upgraded either (within 3 s, this second time): the third asks for yet another.
  wait(3_000 + 1_100);
  assert.equal(sockets.length, 3);
  assert.equal(lastVia(), '2');
  // This one is: the socket stays, and says hello there.
  sockets[2].welcome();
  assert.equal(socket.state, 'online');
  assert.equal(sockets[2].sent[0].t, 'hello');
  for (let i = 0; i < 5; i += 1) {
    wait(1_000);
    sockets[2].onmessage({ data: JSON.stringify({ t: 'pong' }) });
  }
  assert.equal(sockets.length, 3, 'a socket that pongs is kept');
  socket.close();
});

test('a connection that falls silent is given up, and the next asks for another node', () => {
  const socket = roomSocket();
  sockets[0].welcome();
  assert.equal(socket.state, 'online');
  // Answered pings keep it.
  for (let i = 0; i < 5; i += 1) {
    wait(1_000);
    sockets[0].onmessage({ data: JSON.stringify({ t: 'pong' }) });
  }
  assert.equal(sockets.length, 1);
  // Then nothing comes back: at the first tick more than 3 s after the first unanswered ping
  // (sent a second after the last pong), it is dropped.
  wait(4_900);
  assert.equal(sockets[0].readyState, FakeWebSocket.OPEN);
  wait(200);
  assert.equal(sockets[0].readyState, FakeWebSocket.CLOSED);
  wait(600);
  assert.equal(sockets.length, 2);
  assert.equal(lastVia(), '1');
  sockets[1].welcome();
  assert.equal(socket.state, 'online');
  socket.close();
});

test('a socket the server closes comes back through the same node', () => {
  const socket = roomSocket();
  sockets[0].welcome();
  sockets[0].readyState = FakeWebSocket.CLOSED;
  sockets[0].onclose({ code: 1012 });
  wait(600);
  assert.equal(sockets.length, 2);
  assert.equal(lastVia(), null);
  socket.close();
});

test('each open that timed out in a row gives the next longer, up to 15 s; a welcome starts again at 1.5 s', () => {
  const socket = roomSocket();
  // A link 600 ms away needs about 2 s to open a TLS WebSocket: the second try has time.
  assert.deepEqual(unopened(6), [1_500, 3_000, 6_000, 12_000, 15_000, 15_000]);
  sockets.at(-1).welcome();
  assert.equal(socket.state, 'online');
  sockets.at(-1).readyState = FakeWebSocket.CLOSED;
  sockets.at(-1).onclose({ code: 1012 });
  waitUntil(() => sockets.at(-1).readyState === FakeWebSocket.CONNECTING);
  assert.deepEqual(unopened(2), [1_500, 3_000]);
  socket.close();
});

test('a socket opened and never welcomed is given up as one never opened, and the next asks for another node', () => {
  const socket = roomSocket();
  // The node upgrades the socket, then freezes before it answers the hello.
  wait(500);
  sockets[0].open();
  assert.equal(sockets[0].sent[0].t, 'hello');
  // Longer than the open deadline: a node may hold a hello while it takes over a dead node's room.
  wait(5_900);
  assert.equal(sockets[0].readyState, FakeWebSocket.OPEN, 'still waiting for the welcome');
  waitUntil(() => sockets[0].closedAt !== null, 10_000);
  assert.equal(sockets[0].closedAt - sockets[0].madeAt, 500 + 6_000, 'the welcome deadline, counted from the upgrade');
  assert.equal(socket.state, 'offline');
  waitUntil(() => sockets.length === 2);
  assert.equal(lastVia(), '1');
  // The next one too: the welcome deadline stays 6 s until the open deadline outgrows it.
  sockets[1].open();
  wait(5_900);
  assert.equal(sockets[1].readyState, FakeWebSocket.OPEN);
  waitUntil(() => sockets[1].closedAt !== null, 10_000);
  assert.equal(sockets[1].closedAt - sockets[1].madeAt, 6_000);
  waitUntil(() => sockets.length === 3);
  assert.equal(lastVia(), '2');
  sockets[2].welcome();
  assert.equal(socket.state, 'online');
  socket.close();
});

/** Keeps the last socket answering its pings for `ms`. */
function healthyFor(ms) {
  const ws = sockets.at(-1);
  for (let i = 0; i < ms / 1_000; i += 1) {
    wait(1_000);
    ws.onmessage({ data: JSON.stringify({ t: 'pong' }) });
  }
}

/** The server closes the last socket with `code`; waits for the next. */
function closedByServer(code) {
  const ws = sockets.at(-1);
  ws.readyState = FakeWebSocket.CLOSED;
  ws.onclose({ code });
  waitUntil(() => sockets.at(-1) !== ws);
}

test('a connection healthy for 60 s reconnects, when it next does, to the room\'s own node (via 0)', () => {
  const socket = roomSocket();
  unopened(1);
  assert.equal(lastVia(), '1');
  // Healthy for 30 s only: the next connection keeps via 1.
  sockets.at(-1).welcome();
  healthyFor(30_000);
  closedByServer(1012);
  assert.equal(lastVia(), '1');
  // Healthy for 60 s: nothing happens then (no reconnect of its own) ...
  sockets.at(-1).welcome();
  const made = sockets.length;
  healthyFor(75_000);
  assert.equal(sockets.length, made, 'no reconnect just to reset via');
  // ... but the next reconnect is with via 0, the room's clients together again.
  closedByServer(1012);
  assert.equal(lastVia(), null);
  socket.close();
});

test('a connection healthy for 60 s that falls silent asks for the room\'s own node, unless it was that one', () => {
  const socket = roomSocket();
  unopened(2);
  assert.equal(lastVia(), '2');
  sockets.at(-1).welcome();
  healthyFor(60_000);
  // Falls silent: given up, and the next goes to via 0, not 3.
  waitUntil(() => sockets.at(-1).readyState === FakeWebSocket.CONNECTING, 10_000);
  assert.equal(lastVia(), null);
  // Healthy for 60 s on via 0, then silent: via 0's node is the one that fell silent.
  sockets.at(-1).welcome();
  healthyFor(60_000);
  waitUntil(() => sockets.at(-1).readyState === FakeWebSocket.CONNECTING, 10_000);
  assert.equal(lastVia(), '1');
  socket.close();
});
