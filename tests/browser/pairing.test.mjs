// Quick pairing and challenges in the browser: two anonymous players each click the same pool
// on the home page and both land in one room, in different seats; a player who clicks and
// cancels leaves the pool. A logged-in player's "Challenge Sok" on Sok's page reaches Sok's home
// page at once (the site channel), Sok accepts there, and both pages open the game's room; a
// challenger whose site channel was cut, then silent (opened, never welcomed: given up after the
// welcome deadline), when the challenge was accepted gets there too, and so does one whose channel
// was already away when the challenge was made (the page knows it from the POST's answer only).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launchBrowser, newPage } from './lib/browser.mjs';
import { eventually, waitForRoom } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('pairing');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Registers `name` on /login in `page` (its browser then holds the session cookie). */
async function register(page, name) {
  await page.goto(`${server.url}/login`);
  await page.fill('#register-name', name);
  await page.fill('#register-password', `${name} plays well`);
  await page.click('#register-submit');
  await page.waitForURL(/\/account$/);
}

/** How many wait in `pool`'s casual side, by the server. */
async function waiting(pool) {
  const answer = await fetch(`${server.url}/api/pairing/pools`).then((r) => r.json());
  return answer.pools.find((p) => p.id === pool).waiting.casual;
}

test('one click on the home page pairs two players; cancel leaves the pool', async (t) => {
  const nary = await newPage(t, browser);
  const vuthy = await newPage(t, browser, { viewport: 'phone' });
  for (const page of [nary, vuthy]) {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('#quick-card[data-ready="true"]');
  }
  const pool = 'ouk-chatrang@5+3';
  assert.equal(await nary.textContent(`#quick-pools button[data-pool="${pool}"]`), 'Ouk Chatrang 5+3');

  // Nary clicks and cancels: out of the pool again.
  await nary.click(`#quick-pools button[data-pool="${pool}"]`);
  await nary.waitForSelector('#quick-cancel:not([hidden])');
  await eventually(() => waiting(pool), (n) => n === 1);
  await nary.click('#quick-cancel');
  await eventually(() => waiting(pool), (n) => n === 0);
  assert.equal(await nary.isHidden('#quick-cancel'), true);

  // Both click: one room, both seats.
  await nary.click(`#quick-pools button[data-pool="${pool}"]`);
  await vuthy.click(`#quick-pools button[data-pool="${pool}"]`);
  // Both are players of one room in play: each holds one of its two seats.
  for (const page of [nary, vuthy]) {
    await page.waitForURL(/\/r\/[a-z0-9]+$/);
    await waitForRoom(page, { status: 'playing', role: 'player' });
  }
  assert.equal(nary.url(), vuthy.url());
});

test('a challenge from a player page is accepted on the home page and opens the game for both', async (t) => {
  const dara = await newPage(t, browser);
  const sok = await newPage(t, browser);
  await register(dara, 'Dara');
  await register(sok, 'Sok');
  await sok.goto(`${server.url}/`);
  await sok.waitForSelector('body[data-site="open"]');
  assert.equal(await sok.isHidden('#challenges-card'), true);

  await dara.goto(`${server.url}/@/Sok`);
  await dara.waitForSelector('#profile[data-ready="true"]');
  await dara.waitForSelector('body[data-site="open"]');
  assert.equal(await dara.textContent('#challenge'), 'Challenge Sok');
  await dara.selectOption('#challenge-game', 'ouk-chatrang');
  await dara.selectOption('#challenge-clock', '600+5');
  await dara.selectOption('#challenge-color', 'white');
  await dara.click('#challenge');
  await dara.waitForSelector('#challenge-sent:not(:empty)');

  const entry = sok.locator('#challenges li');
  await entry.waitFor();
  assert.equal(await entry.locator('span').textContent(), 'Dara challenges you: Ouk Chatrang 10+5, casual, they play White');
  await entry.locator('button[data-action="accept"]').click();
  for (const page of [dara, sok]) {
    await page.waitForURL(/\/r\/[a-z0-9]+$/);
    await waitForRoom(page, { status: 'playing', role: 'player' });
  }
  assert.equal(dara.url(), sok.url());
  // Dara plays White, as challenged, by her account's seat.
  const code = dara.url().split('/').at(-1);
  const room = await fetch(`${server.url}/api/rooms/${code}`).then((r) => r.json());
  assert.deepEqual(room.seats.map((seat) => [seat.seat, seat.user]), [[0, 'Dara'], [1, 'Sok']]);
});

/**
 * Routes `page`'s site channel through the test: forwarded to the server while `channel.away` is
 * false; while it is true, a new socket opens but never hears from the server (no welcome, no
 * event). `channel.cut()` drops the current one (the page reconnects, to a silent socket while
 * away).
 */
async function routeSiteChannel(page) {
  const channel = {
    away: false,
    /** @type {{ page: import('playwright-core').WebSocketRoute, server: import('playwright-core').WebSocketRoute | null }[]} */
    sockets: [],
    /** @type {string[]} the frames the server sent the page */
    frames: [],
    async cut() {
      const last = channel.sockets.at(-1);
      await last?.server?.close();
      await last?.page.close();
    },
  };
  await page.routeWebSocket(/\/ws\/site$/, (ws) => {
    if (channel.away) {
      channel.sockets.push({ page: ws, server: null });
      return;
    }
    const upstream = ws.connectToServer();
    upstream.onMessage((message) => {
      channel.frames.push(String(message));
      ws.send(message);
    });
    channel.sockets.push({ page: ws, server: upstream });
  });
  return channel;
}

// The page's silent sockets (opened, never welcomed) are given up after a deadline that grows
// with each one in a row (heartbeat.js welcomeDeadline: 6 s, 6 s, 6 s, 12 s, 15 s), then 2 s
// until the next: once the server is reachable again, the page may take the rest of that
// deadline and 2 s to get back.
const BACK_WITHIN_MS = 30_000;

/**
 * `player` accepts the one challenge on its home page and lands in the game's room.
 * @param {import('playwright-core').Page} player
 */
async function acceptOnHome(player) {
  await player.goto(`${server.url}/`);
  const entry = player.locator('#challenges li');
  await entry.waitFor();
  await entry.locator('button[data-action="accept"]').click();
  await player.waitForURL(/\/r\/[a-z0-9]+$/);
}

/**
 * The challenger's `channel` is reachable again: its page opens `accepter`'s room, to play.
 * @param {import('playwright-core').Page} challenger
 * @param {{ away: boolean }} channel
 * @param {import('playwright-core').Page} accepter
 */
async function backInTheRoom(challenger, channel, accepter) {
  channel.away = false;
  await challenger.waitForURL(/\/r\/[a-z0-9]+$/, { timeout: BACK_WITHIN_MS });
  assert.equal(challenger.url(), accepter.url());
  await waitForRoom(challenger, { status: 'playing', role: 'player' });
}

test('a challenge accepted while the challenger\'s site channel was away still opens the game there', async (t) => {
  const dara = await newPage(t, browser);
  const sok = await newPage(t, browser);
  await register(dara, 'Chan');
  await register(sok, 'Bopha');
  const channel = await routeSiteChannel(dara);
  await dara.goto(`${server.url}/@/Bopha`);
  await dara.waitForSelector('#profile[data-ready="true"]');
  await dara.waitForSelector('body[data-site="open"]');
  await dara.selectOption('#challenge-game', 'khan');
  await dara.click('#challenge');
  await dara.waitForSelector('#challenge-sent:not(:empty)');
  const told = await eventually(async () => channel.frames.map((frame) => JSON.parse(frame).t), (types) => types.includes('challenge'));
  assert.ok(told.includes('challenge'), `${told}`);

  // The channel drops and comes back silent: Bopha accepts meanwhile, and the game_start
  // reaches no page of Chan's.
  channel.away = true;
  await channel.cut();
  assert.equal(await eventually(async () => channel.sockets.length, (n) => n === 2), 2, 'the channel reconnected');
  await acceptOnHome(sok);
  assert.match(dara.url(), /\/@\/Bopha$/, 'still on the player page');

  // The server is reachable again: the page gives up its silent socket (no welcome in time) and
  // reconnects; the welcome no longer lists the challenge, so the page asks what became of it,
  // and opens the game.
  await backInTheRoom(dara, channel, sok);
});

test('a challenge made and accepted while the challenger\'s site channel was away opens the game there', async (t) => {
  const dara = await newPage(t, browser);
  const sok = await newPage(t, browser);
  await register(dara, 'Vanna');
  await register(sok, 'Sophea');
  const channel = await routeSiteChannel(dara);
  await dara.goto(`${server.url}/@/Sophea`);
  await dara.waitForSelector('#profile[data-ready="true"]');
  await dara.waitForSelector('body[data-site="open"]');

  // The channel drops and comes back silent before Vanna challenges: her page hears of the
  // challenge only from the POST's answer (no `challenge` frame), and Sophea accepts it at once.
  channel.away = true;
  await channel.cut();
  assert.equal(await eventually(async () => channel.sockets.length, (n) => n === 2), 2, 'the channel reconnected');
  await dara.selectOption('#challenge-game', 'khan');
  await dara.click('#challenge');
  await dara.waitForSelector('#challenge-sent:not(:empty)');
  await acceptOnHome(sok);
  assert.match(dara.url(), /\/@\/Sophea$/, 'still on the player page');
  const heard = channel.frames.map((frame) => JSON.parse(frame).t);
  assert.ok(!heard.includes('challenge') && !heard.includes('game_start'), `the page heard nothing of the challenge: ${heard}`);

  // Back: the new welcome lists no challenge of Vanna's, but the page remembers the one it made.
  await backInTheRoom(dara, channel, sok);
});
