// Quick pairing and challenges in the browser: two anonymous players each click the same pool
// on the home page and both land in one room, in different seats; a player who clicks and
// cancels leaves the pool. A logged-in player's "Challenge Sok" on Sok's page reaches Sok's home
// page at once (the site channel), Sok accepts there, and both pages open the game's room.

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
