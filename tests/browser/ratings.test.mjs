// Ratings in the browser: two logged-in players make a rated game from the home page's form and
// play it to a resignation; both players' pages and a spectator's show each rating change on the
// result ("+162", "-162"), and so does the game's page /g/{room_id}, and each player's page shows
// the new rating ("1662?", provisional) with its history plot; an anonymous visitor who tries to
// take a seat of a rated room is told to log in; the leaderboard page, reached from the home page's
// header, lists its speeds; the player's page and the leaderboard name the logged-in account.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowErrors, launchBrowser, newPage, screenshot } from './lib/browser.mjs';
import { createRoom, joinRoom, openRoom, playMove, waitForRoom, waitForMessage } from './lib/pages.mjs';
import { startServer } from './lib/server.mjs';

let server;
let browser;

before(async () => {
  server = await startServer('ratings');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Registers `name` on /login, landing on /account. */
async function register(page, name) {
  await page.goto(`${server.url}/login`);
  await page.fill('#register-name', name);
  await page.fill('#register-password', `${name} plays ouk chatrang`);
  await page.click('#register-submit');
  await page.waitForURL(/\/account$/);
}

/** The text of each `#ratings li`, by seat. */
function changes(page) {
  return page.$$eval('#ratings li[data-seat]', (els) =>
    els.sort((a, b) => a.dataset.seat - b.dataset.seat).map((el) => el.textContent));
}

test('a rated game shows each rating change on the result, to players and spectators, and on its page', async (t) => {
  const dara = await newPage(t, browser);
  await register(dara, 'Dara');
  const invite = await createRoom(dara, server, { game: 'ouk-chatrang', seat: 'white', clock: '180+2', rated: true });
  await dara.waitForSelector('#rated-note:not([hidden])');

  // Nobody anonymous takes the other seat.
  const guest = await newPage(t, browser, { viewport: 'phone' });
  allowErrors(guest, /status of 401/);
  await openRoom(guest, invite);
  await guest.click('#take-seat');
  await waitForMessage(guest, /Rated games are for logged-in players/);

  const sok = await newPage(t, browser, { viewport: 'phone' });
  await register(sok, 'Sok');
  await joinRoom(sok, invite);
  const watcher = await newPage(t, browser);
  await openRoom(watcher, invite);
  for (const page of [dara, sok]) await waitForRoom(page, { status: 'playing' });
  // Both move (a game ended before every player moved is unrated), then Black resigns.
  await playMove(dara, ['e3', 'e4']);
  await waitForRoom(sok, { toMove: '1' });
  await playMove(sok, ['d6', 'd5']);
  await waitForRoom(dara, { toMove: '0' });
  await sok.click('#resign');

  const expected = ['White (Dara): 1500 → 1662 +162', 'Black (Sok): 1500 → 1338 -162'];
  for (const page of [dara, sok, watcher]) {
    await waitForRoom(page, { status: 'finished' });
    await page.waitForSelector('#ratings:not([hidden]) li[data-seat="1"]');
    assert.deepEqual(await changes(page), expected);
    assert.equal(await page.locator('#ratings li[data-seat="0"] .rating-diff.up').innerText(), '+162');
    assert.equal(await page.locator('#ratings li[data-seat="1"] .rating-diff.down').innerText(), '-162');
  }
  await screenshot(dara, 'rated-game-result');

  // After a reload the snapshot brings them back; the game's page shows them too.
  await watcher.reload();
  await watcher.waitForSelector('#ratings:not([hidden]) li[data-seat="1"]');
  assert.deepEqual(await changes(watcher), expected);
  const link = dara.locator('#game-page-link');
  await link.waitFor();
  const roomId = (await link.getAttribute('href')).split('/').at(-1);
  const page = await newPage(t, browser);
  await page.goto(`${server.url}/g/${roomId}`);
  await page.waitForSelector('#room[data-ready="true"]');
  assert.deepEqual(await changes(page), expected);

  // Each player's page shows the rating ("?" while provisional) with its games, and its
  // history as a plot: a line per speed, a dot per game.
  for (const [name, rating] of [['Dara', '1662?'], ['Sok', '1338?']]) {
    await page.goto(`${server.url}/@/${name}`);
    await page.waitForSelector('#profile[data-ready="true"]');
    const section = page.locator('#ratings:not([hidden]) section[data-game="ouk-chatrang"]');
    assert.equal(await section.locator('li[data-speed="blitz"]').innerText(), `Blitz ${rating} (1 game)`);
    assert.equal(await section.locator('h3 a').getAttribute('href'), 'leaderboard/ouk-chatrang');
    assert.equal(await section.locator('svg.rating-plot polyline').count(), 1);
    assert.equal(await section.locator('svg.rating-plot polyline[data-speed="blitz"]').count(), 1);
    assert.equal(await section.locator('svg.rating-plot circle.speed-blitz').count(), 1);
    assert.match(await section.locator('svg.rating-plot circle title').textContent(), new RegExp(`^Blitz ${rating.slice(0, -1)} · \\d{4}-\\d\\d-\\d\\d$`));
  }
  await screenshot(page, 'profile-ratings');

  // Another player's page, a leaderboard, the rules and the login page name the logged-in
  // account in their header.
  for (const path of ['@/Sok', 'leaderboard/ouk-chatrang', 'rules/khan', 'login', 'account']) {
    await dara.goto(`${server.url}/${path}`);
    await dara.waitForSelector('#account-link[data-checked]');
    assert.equal(await dara.locator('#account-link').innerText(), 'Dara');
    assert.ok((await dara.locator('#account-link').getAttribute('href')).endsWith('/@/Dara'));
    assert.equal(await dara.locator('#settings-link').isVisible(), true);
  }
});

test('the leaderboard page shows every speed of a game, and says when there is no such board', async (t) => {
  const page = await newPage(t, browser, { viewport: 'phone' });
  // The home page's header leads to the leaderboards; nobody is logged in on this page.
  await page.goto(`${server.url}/`);
  await page.click('#leaderboard-link');
  await page.waitForSelector('#leaderboard[data-ready="true"]');
  assert.equal(await page.locator('#title').innerText(), 'Khan: leaderboard');
  await page.waitForSelector('#account-link[data-checked]');
  assert.equal(await page.locator('#account-link').innerText(), 'Log in');
  assert.equal(await page.locator('#settings-link').isVisible(), false);
  await page.goto(`${server.url}/leaderboard/khan-tsin-3`);
  await page.waitForSelector('#leaderboard[data-ready="true"]');
  assert.equal(await page.locator('#title').innerText(), 'Khan-Tsin, 3 players: leaderboard');
  assert.deepEqual(
    await page.$$eval('#boards section', (els) => els.map((el) => el.dataset.speed)),
    ['blitz', 'rapid', 'classical', 'correspondence'],
  );
  assert.equal(await page.locator('#boards section[data-speed="blitz"] p').innerText(), 'Nobody yet.');
  allowErrors(page, /status of (404|400)/);
  await page.goto(`${server.url}/leaderboard/chess`);
  await page.waitForSelector('#leaderboard[data-ready="true"]');
  assert.equal(await page.locator('#notice').innerText(), 'There is no such leaderboard.');
});
